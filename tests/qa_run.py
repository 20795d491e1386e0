"""A make_qa_set run folder written by hand for the QA desk's tests, in the shape the review-file contract gives
(issue #89): qa_review.csv with the pairs that passed the removing checks, qa_rejected.csv with those a check
removed (and `failed_check`), each with the check columns the desk must never show."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from lclab.qa.review import REVIEW_FILE_COLUMNS

CHECKS = ["checks_real_question", "checks_short_answer", "checks_answer_in_passage"]
CITIES = ["Lisbon", "Porto", "Braga", "Faro", "Evora", "Coimbra", "Aveiro", "Viseu", "Leiria", "Tomar", "Sintra",
          "Cascais", "Obidos", "Nazare", "Guarda", "Beja", "Elvas", "Lagos", "Tavira", "Silves"]


def pair(i: int, rejected: bool) -> dict:
    city = CITIES[i % len(CITIES)]
    passage = (f"Chapter {i}. The old mill stood by the river for a century. In year {1800 + i} the council moved "
               f"the market to {city}, where it still opens every Tuesday.")
    answer = city if i % 5 else city.upper()  # upper case: found by a case-insensitive search, not as it stands
    start = passage.find(answer)
    return {"qa_id": f"q-{i:03d}", "doc_id": f"doc{i}", "passage_chars": 800,
            "passage_sha1": f"sha{i}", "question": f"Where did the council move the market in {1800 + i}?",
            "answer": answer, "answer_in_source": "False" if rejected else "True",
            "llm_supported": "", "validated": "", "review_note": "", "review_reason": "", "reviewer": "",
            "reviewed_at": "", "original_question": "", "original_answer": "", "title": f"Town history {i}",
            "heading": f"Markets of {city}" if i % 2 else "", "passage": passage, "answer_start": start,
            "flags": "low_overlap" if i % 3 == 0 else "", "batch": 1,
            **{c: ("False" if rejected and c == CHECKS[0] else "True") for c in CHECKS}}


def write_run(results: Path, name: str = "fixture", n_review: int = 12, n_rejected: int = 10) -> Path:
    """results/make_qa_set/<name>/ with a manifest and the two review files; returns the folder."""
    run = results / "make_qa_set" / name
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps({"experiment": "make_qa_set", "run_name": name}))
    columns = REVIEW_FILE_COLUMNS + CHECKS
    pd.DataFrame([pair(i, False) for i in range(n_review)], columns=columns).to_csv(run / "qa_review.csv",
                                                                                   index=False)
    rejected = pd.DataFrame([pair(n_review + i, True) for i in range(n_rejected)], columns=columns)
    rejected.assign(failed_check="real_question").to_csv(run / "qa_rejected.csv", index=False)
    return run

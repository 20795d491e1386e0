"""Notebook 06 as one registered experiment: how it is planned and compared."""

from __future__ import annotations

from ..experiments import Experiment, Series, register
from ..paths import repo_path
from ..planning.plan import JUDGE_PROMPT, JUDGE_REPLY_TOKENS, planned_answers, planned_embeddings, row
from ..retrieval.chunking import Chunker
from ..scoring.judges import JUDGE_MAX_TOKENS
from ..scoring.logprob import TOP_LOGPROBS
from ..text.corpus import load_corpus
from ..text.hand_tables import read_hand_table
from .labelled_texts import labelled_samples
from .parameters import Parameters
from .run import EXPERIMENT

GENERATION_PROMPT_TOKENS = 330  # a question-generation prompt around one chunk
GENERATED_TOKENS = 48  # a generated question and its answer
ANSWER_TEMPLATE_TOKENS = 80  # the answer template and the question around the retrieved chunks


def plan(notebook: str, p: dict) -> list[dict]:
    """Questions counted exactly (the single-chunk ones asked for, the validated multi-chunk ones), tokens
    from the chunk budget: retrieval (an embedding model) is not run for a plan."""
    multi = read_hand_table(repo_path(p["multi_qa_path"]), ("validated",), "multi-chunk QA file")
    multi_questions = multi.loc[multi["validated"].str.strip().str.lower() == "yes", "question"]
    multi_questions = multi_questions.head(p["n_multi"]) if p["n_multi"] else multi_questions
    n_multi = len(multi_questions)
    questions = p["n_single"] + n_multi
    answer_prompt = p["answer_k"] * p["chunk_tokens"] + ANSWER_TEMPLATE_TOKENS
    judge = p["judge_model"] or p["model"]
    samples = 1 + p.get("self_consistency", 0)
    # The labelled texts' judge prompts are known before the run: counted exactly, looked up as the judge asks.
    labelled = planned_answers(notebook, "judge, labelled texts", judge, [s.input for s in labelled_samples()],
                               JUDGE_MAX_TOKENS, response_format="json", logprobs=True,
                               top_logprobs=TOP_LOGPROBS) if p.get("judge_labelled_texts", True) else []
    chunks = Chunker(p["chunk_tokens"], "tokens").split(load_corpus(p["corpus"]).documents)
    embedded = planned_embeddings(notebook, p["embedder"], [c.text for c in chunks] + list(multi_questions),
                                  unknown=p["n_single"])  # the corpus indexed, every question searched with
    return [embedded, row(notebook, "qa_generation (estimated)", p["model"], 2 * p["n_single"], 0,
                2 * p["n_single"] * GENERATION_PROMPT_TOKENS, p["n_single"] * GENERATED_TOKENS),
            row(notebook, "answer (estimated)", p["model"], questions, 0, questions * answer_prompt,
                questions * p["max_answer_tokens"]),
            row(notebook, "judges (estimated)", judge, 3 * questions * samples, 0,
                samples * questions * (3 * JUDGE_PROMPT + answer_prompt + 2 * p["max_answer_tokens"]),
                3 * questions * samples * JUDGE_REPLY_TOKENS)] + labelled


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="06_rag_validation", plan=plan, parameters=Parameters,
    judged_rate="answer equals reference (06)",
    comparable=("judge_model", "corpus", "store", "embedder", "chunk_tokens", "n_single", "multi_qa_path",
                "n_multi", "max_k", "answer_k", "seed"),
    series=Series(key=("qa_id",), value="judge_correct", split=("set",), x="set", x_label="question set",
                  value_label="judge accuracy",
                  cluster="qa_id", unit="questions"),
    description="Retrieval recall and precision at k, and answers judged for relevance, faithfulness, correctness"))

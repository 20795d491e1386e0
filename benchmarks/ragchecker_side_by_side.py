"""The lab's claim diagnostics (lclab.scoring.claims) and the `ragchecker` package on the same items with the
same model, side by side.

    .venv/bin/python benchmarks/ragchecker_side_by_side.py --run results/rag_validation/<run_name> [--n 8]

The items are a finished 06 run's: question, reference answer, the model's answer, and the `answer_k` chunks
the answer read (cut again from the run's corpus with its chunk size; chunk ids are stable). Both sides read one
model through llama.cpp's own server (scripts/setup.sh --llama-server builds it), started here on a free port:
RAGChecker through litellm (`openai/<alias>` at the server's URL, as its README shows for any OpenAI-compatible
endpoint), the lab through its gateway (`openai/<alias>@URL`, cached like every call: a rerun repeats only
RAGChecker's side). ragchecker 0.1.9 pins what the lab does not (refchecker: spacy, litellm, anthropic < 0.30,
accelerate 0.31, pytorch-lightning), so it runs in a virtual environment of its own, made on first use under
~/.cache/lclab/venvs/.

Printed per metric: the items where both define it, Pearson's r over them, each side's mean, and the paired
difference (lab - RAGChecker) with a t interval over items (each item its own cluster); the items the lab
leaves undefined where RAGChecker scores 0; then calls, tokens and seconds of each side.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

RAGCHECKER = "ragchecker==0.1.9"
VENV = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "lclab" / "venvs" / "ragchecker-0.1.9"
ALIAS = "side-by-side"

# Runs inside RAGChecker's own environment: RAGResults in, each item's metrics and claims out, calls counted by a
# litellm callback (every request it sends, with the tokens the server reports).
RAGCHECKER_SIDE = """
import json, sys, time
import litellm
from ragchecker import RAGChecker, RAGResults
from ragchecker.metrics import all_metrics

inp, out, model, base, max_new = sys.argv[1:6]
calls = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}

def count(kwargs, response, start, end):
    calls["calls"] += 1
    usage = getattr(response, "usage", None)
    if usage:
        calls["prompt_tokens"] += usage.prompt_tokens or 0
        calls["completion_tokens"] += usage.completion_tokens or 0

litellm.success_callback = [count]
results = RAGResults.from_json(open(inp).read())
checker = RAGChecker(extractor_name=model, checker_name=model, extractor_api_base=base, checker_api_base=base,
                     batch_size_extractor=1, batch_size_checker=1, extractor_max_new_tokens=int(max_new))
started = time.time()
checker.evaluate(results, all_metrics)
json.dump({"items": {r.query_id: {"metrics": r.metrics, "response_claims": r.response_claims,
                                   "gt_answer_claims": r.gt_answer_claims} for r in results.results},
           "seconds": time.time() - started, **calls}, open(out, "w"), default=float)
"""


def ragchecker_python() -> Path:
    python = VENV / "bin" / "python"
    if not python.exists() or subprocess.run([python, "-c", "import ragchecker"], capture_output=True).returncode:
        print(f"making {VENV} with {RAGCHECKER} (once)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", "--clear", VENV], check=True)
        # The lab's torch pin: the CPU build where a wheel directory holds it (PyPI's default is the CUDA one).
        from importlib.metadata import version

        subprocess.run([python, "-m", "pip", "install", "-q", RAGCHECKER, f"torch=={version('torch').split('+')[0]}"],
                       check=True)
    return python


@contextlib.contextmanager
def served(model: str, n_ctx: int, port: int):
    """llama-server with the model on a loopback port: yields its /v1 URL. The port is fixed by default: the
    gateway's cache key holds the URL, so a rerun finds the lab's side in the cache."""
    import httpx
    from lclab.models.local_models import ensure_model, llama_server_binary

    binary = llama_server_binary()
    if not binary.exists():
        sys.exit(f"{binary} is not built: run scripts/setup.sh --llama-server {model}")
    if not port:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    log = open(Path(tempfile.gettempdir()) / f"side_by_side_llama_server_{port}.log", "w")
    proc = subprocess.Popen([binary, "-m", ensure_model(model), "-c", str(n_ctx), "-t", str(os.cpu_count() or 2),
                             "--alias", ALIAS, "--host", "127.0.0.1", "--port", str(port)], stdout=log, stderr=log)
    try:
        for _ in range(600):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            if proc.poll() is not None:
                sys.exit(f"llama-server exited; its log: {log.name}")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def run_items(run: Path, n: int) -> list[dict]:
    """The run's answered items with the chunk texts their answers read."""
    import pandas as pd
    from lclab.retrieval.chunking import Chunker
    from lclab.text.corpus import load_corpus

    p = json.loads((run / "manifest.json").read_text())["parameters"]
    documents = load_corpus(p["corpus"]).documents
    chunks = {c.chunk_id: c.text for c in Chunker(p["chunk_tokens"], "tokens").split(documents)}
    items = pd.read_json(run / "items.jsonl", lines=True)
    items = items[items["error"].isna() & items["response"].notna()].head(n)
    return [{"query_id": r.qa_id, "query": r.question, "gt_answer": r.reference, "response": r.response,
             "retrieved_context": [{"doc_id": i, "text": chunks[i]} for i in r.retrieved[:p["answer_k"]]]}
            for r in items.itertuples()]


def lab_side(items: list[dict], model: str) -> dict:
    from lclab.models.accounting import ACCOUNTING
    from lclab.scoring.claims import claim_score

    ACCOUNTING.reset()
    started, out = time.time(), {}
    for item in items:
        got = claim_score(model, item["query"], item["response"], item["gt_answer"],
                          [c["text"] for c in item["retrieved_context"]])
        out[item["query_id"]] = {"metrics": got.value or {}, "error": got.unscored,
                                 "response_claims": got.metadata.get("of_response")}
    table = ACCOUNTING.table().set_index("stage")
    total = table.loc["total"] if "total" in table.index else table.sum()
    return {"items": out, "seconds": time.time() - started, "calls": int(total["calls"]),
            "cache_hits": int(total["cache_hits"]), "prompt_tokens": int(total["prompt_tokens"]),
            "completion_tokens": int(total["completion_tokens"])}


def compare(lab: dict, theirs: dict) -> "pd.DataFrame":
    import numpy as np
    import pandas as pd
    from lclab.scoring.claims import METRICS
    from lclab.stats.clusters import cluster_mean_ci
    from scipy import stats

    rows = []
    for group, names in METRICS.items():
        for name in names:
            pairs = [(q, lab["items"][q]["metrics"].get(name, math.nan), t["metrics"].get(name, math.nan))
                     for q, t in theirs["items"].items() if q in lab["items"]]
            both = [(q, a, b) for q, a, b in pairs if np.isfinite(a) and np.isfinite(b)]
            zero_for_undefined = sum(1 for _, a, b in pairs if not np.isfinite(a) and b == 0)
            a = np.array([x[1] for x in both]); b = np.array([x[2] for x in both])
            r = (stats.pearsonr(a, b)[0] if len(both) >= 3 and a.std() > 0 and b.std() > 0 else math.nan)
            diff = cluster_mean_ci(a - b, [x[0] for x in both]) if both else {"mean": math.nan, "lo": math.nan,
                                                                              "hi": math.nan}
            rows.append({"group": group, "metric": name, "n_items": len(both), "pearson_r": r,
                         "lab": a.mean() if both else math.nan, "ragchecker": b.mean() if both else math.nan,
                         "difference": diff["mean"], "lo": diff["lo"], "hi": diff["hi"],
                         "lab_undefined_ragchecker_0": zero_for_undefined})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", required=True, type=Path, help="a finished 06 run's folder")
    parser.add_argument("--n", type=int, default=8, help="items to read (in the run's order)")
    parser.add_argument("--model", default="qwen2.5-coder-0.5b", help="the local model both sides read")
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--port", type=int, default=8931, help="llama-server's port (0: any free one)")
    parser.add_argument("--extractor-max-new-tokens", type=int, default=300,
                        help="RAGChecker's extraction budget (its default, 1000, lets a small model ramble)")
    args = parser.parse_args()

    import pandas as pd

    items = run_items(args.run, args.n)
    python = ragchecker_python()
    with served(args.model, args.n_ctx, args.port) as url, tempfile.TemporaryDirectory() as tmp:
        lab = lab_side(items, f"openai/{ALIAS}@{url}")
        Path(tmp, "in.json").write_text(json.dumps({"results": items}))
        # litellm fetches a price list from GitHub at import unless told to use the copy it ships.
        env = {**os.environ, "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "unused-by-llama-server"),
               "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        subprocess.run([python, "-c", RAGCHECKER_SIDE, Path(tmp, "in.json"), Path(tmp, "out.json"),
                        f"openai/{ALIAS}", url, str(args.extractor_max_new_tokens)], check=True, env=env)
        theirs = json.loads(Path(tmp, "out.json").read_text())
    pd.set_option("display.width", 200)
    print(f"{len(items)} items of {args.run} ({args.model}, both sides through one llama-server; RAGChecker's "
          f"extraction budget {args.extractor_max_new_tokens} tokens)\n")
    table = compare(lab, theirs).round(3)
    print(table.to_string(index=False))
    failed = [q for q, v in lab["items"].items() if v["error"]]
    print(f"\nlab:        {lab['calls']} calls ({lab['cache_hits']} from the cache), {lab['prompt_tokens']:,} prompt "
          f"+ {lab['completion_tokens']:,} completion tokens, {lab['seconds']:.0f} s"
          + (f"; claims failed on {len(failed)} items: {failed}" if failed else ""))
    print(f"ragchecker: {theirs['calls']} calls, {theirs['prompt_tokens']:,} prompt + "
          f"{theirs['completion_tokens']:,} completion tokens, {theirs['seconds']:.0f} s")
    record(args.model, table, lab, theirs)


def record(model: str, table, lab: dict, theirs: dict) -> None:
    """The comparison and its cost as rows of docs/benchmarks.md (benchmarks/measured_rows.py)."""
    from measured_rows import append

    rows = [{"model": model, "n_items": r.n_items, "group": r.group, "metric": r.metric, "lab": r.lab,
             "ragchecker": r.ragchecker, "difference": r.difference, "lo": r.lo, "hi": r.hi}
            for r in table.itertuples()]
    cost = [(f"calls (lab: {lab['cache_hits']} more from the cache)", "calls"), ("prompt tokens", "prompt_tokens"),
            ("completion tokens", "completion_tokens"), ("seconds", "seconds")]
    rows += [{"model": model, "n_items": int(table.n_items.max()), "group": "cost", "metric": label,
              "lab": round(lab[key]), "ragchecker": round(theirs[key])} for label, key in cost]
    print(append("ragchecker_side_by_side", rows))


if __name__ == "__main__":
    main()

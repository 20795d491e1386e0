"""llama.cpp's flash attention and a quantized KV cache on an embedded model, at long prompt lengths.

    .venv/bin/python benchmarks/kv_cache_settings.py [--model qwen2.5-coder-0.5b] [--lengths 4000 8000 16000 32000]

For each length one synthetic needle prompt (09's needle_single, haystack 0, needle at 50 %) is filled to the
exact token budget, then answered greedily (32 tokens) under each setting, each in a fresh process so that its
peak memory is its own:

    f16         llama.cpp's default: no flash attention, K and V cached as f16
    flash       flash attention, f16 cache
    flash_q8    flash attention, K and V cached as q8_0 (a quantized V cache needs flash attention)

It prints prefill seconds (llama.cpp's own prompt-eval timer), decode seconds, peak resident memory, and
whether the greedy reply equals the default's. Rows are appended to --out as they finish, and a rerun skips
what is there, so a long study can be stopped and continued.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measured_rows import append  # benchmarks/measured_rows.py: this run as rows of the page

SETTINGS = {
    "f16": {"flash_attn": False},
    "flash": {"flash_attn": True},
    "flash_q8": {"flash_attn": True, "type_k": 8, "type_v": 8},  # 8 = GGML_TYPE_Q8_0
}


def child(model_path: str, n_ctx: int, setting: str, prompt_file: str) -> None:
    """Load the model with one setting, answer the prompt once, print one JSON line."""
    import llama_cpp

    started = time.perf_counter()
    llama = llama_cpp.Llama(model_path=model_path, n_ctx=n_ctx, n_threads=2, verbose=False, **SETTINGS[setting])
    loaded = time.perf_counter()
    out = llama.create_chat_completion(messages=[{"role": "user", "content": Path(prompt_file).read_text()}],
                                       max_tokens=32, temperature=0.0, seed=0)
    perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
    print(json.dumps({
        "setting": setting, "n_ctx": n_ctx, "load_s": loaded - started,
        "prefill_s": perf.t_p_eval_ms / 1000, "prefill_tokens": perf.n_p_eval,
        "decode_s": perf.t_eval_ms / 1000, "decode_tokens": perf.n_eval,
        "call_s": time.perf_counter() - loaded,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "reply": out["choices"][0]["message"]["content"],
    }))


def prompt_of(model: str, length: int) -> tuple[str, list[str]]:
    from lclab.models import budget_counters
    from lclab.synthetic.tasks import Source, needle_sample

    count, _ = budget_counters(f"local/{model}")
    s = needle_sample("needle_single", 0, length - 40, 50, "numbers", Source("paul_graham", 42, count))
    return s.input, s.target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--lengths", type=int, nargs="+", default=[4000, 8000, 16000, 32000])
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument("--out", type=Path, default=Path("results/benchmarks/kv_cache_settings.jsonl"))
    args = parser.parse_args()
    from lclab.models.local_models import resolve_local

    path = str(resolve_local(args.model))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    measured = []
    done = {(r["model"], r["length"], r["setting"]): r for r in map(json.loads, args.out.read_text().splitlines())
            } if args.out.exists() else {}
    for length in args.lengths:
        prompt, targets = prompt_of(args.model, length)
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(prompt)
        for setting in args.settings:
            if (args.model, length, setting) not in done:
                proc = subprocess.run([sys.executable, __file__, "--child", path, str(length + 64), setting, f.name],
                                      capture_output=True, text=True, check=True)
                row = {"model": args.model, "length": length, "targets": targets,
                       **json.loads(proc.stdout.strip().splitlines()[-1])}
                with args.out.open("a") as out:
                    out.write(json.dumps(row) + "\n")
                done[(args.model, length, setting)] = row
                measured.append(row)
            print_row(done[(args.model, length, setting)], done.get((args.model, length, "f16")))
    if measured:  # what this invocation measured (not the rows resumed from --out), as rows of the page
        print(append("kv_cache_settings", [page_row(r, done.get((r["model"], r["length"], "f16"))) for r in measured]))


def page_row(row: dict, default: dict | None) -> dict:
    """One measured setting as a row of benchmarks/measured/kv_cache_settings.csv."""
    return {"model": row["model"], "length": row["length"], "setting": row["setting"], "n_ctx": row["n_ctx"],
            "prefill_s": f"{row['prefill_s']:.1f}", "prefill_tokens": row["prefill_tokens"],
            "prefill_tok_s": f"{row['prefill_tokens'] / row['prefill_s']:.0f}", "decode_s": f"{row['decode_s']:.2f}",
            "peak_rss_mb": f"{row['peak_rss_mb']:.0f}",
            "needle_found": str(all(t in row["reply"] for t in row["targets"])).lower(),
            "same_reply": str(default is not None and default["reply"] == row["reply"]).lower()}


def print_row(row: dict, default: dict | None) -> None:
    same = "" if default is None else ("same reply" if row["reply"] == default["reply"] else "REPLY DIFFERS")
    found = all(t in row["reply"] for t in row["targets"])
    print(f"{row['model']} {row['length']:>6} {row['setting']:<9} prefill {row['prefill_s']:7.1f} s "
          f"({row['prefill_tokens'] / row['prefill_s']:6.0f} tok/s)  decode {row['decode_s']:5.2f} s  "
          f"peak {row['peak_rss_mb']:6.0f} MB  needle {'found' if found else 'missed'}  {same}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        main()

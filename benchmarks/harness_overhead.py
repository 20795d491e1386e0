"""What does the gateway (cache lookup, accounting, retries wrapper) cost over llama.cpp itself?

The same prompts through `lclab.models.complete` with an empty cache, and
through llama-cpp-python's `create_chat_completion` directly, on the embedded
model. Both sides load the model and answer one warm-up prompt first, so
neither pays for loading.

    .venv/bin/python benchmarks/harness_overhead.py [--model qwen2.5-coder-0.5b] [--prompts 12]
"""

import argparse
import os
import tempfile
import time

from lclab import models as gateway
from lclab.models.local_models import ensure_model
from llama_cpp import Llama
from lclab.models import Request
from measured_rows import append  # benchmarks/measured_rows.py: this run as rows of the page

QUESTIONS = ["What is the capital of {}? One word.".format(c) for c in
             ["France", "Japan", "Peru", "Kenya", "Norway", "Chile", "Egypt", "India",
              "Canada", "Spain", "Ghana", "Nepal", "Italy", "Cuba", "Laos", "Fiji"]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--prompts", type=int, default=12)
    parser.add_argument("--max-tokens", type=int, default=16)
    args = parser.parse_args()
    prompts = QUESTIONS[: args.prompts]

    os.environ["LCLAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-cache-")
    spec = f"local/{args.model}"
    gateway.complete(spec, "Warm up.", stage="warmup", request=Request(max_tokens=4))
    started = time.perf_counter()
    for p in prompts:
        gateway.complete(spec, p, stage="bench", request=Request(max_tokens=args.max_tokens))
    through_gateway = time.perf_counter() - started

    llama = Llama(model_path=str(ensure_model(args.model)), n_ctx=int(os.environ.get("LCLAB_N_CTX", "8192")),
                  n_threads=os.cpu_count() or 2, verbose=False)
    llama.create_chat_completion(messages=[{"role": "user", "content": "Warm up."}], max_tokens=4, temperature=0)
    started = time.perf_counter()
    for p in prompts:
        llama.create_chat_completion(messages=[{"role": "user", "content": p}], max_tokens=args.max_tokens,
                                     temperature=0, seed=0)
    direct = time.perf_counter() - started

    print(f"{len(prompts)} prompts on {args.model}, max_tokens={args.max_tokens}, cold cache")
    print(f"{'path':>16} {'wall s':>8} {'per call s':>11}")
    print(f"{'llama-cpp direct':>16} {direct:>8.2f} {direct / len(prompts):>11.3f}")
    print(f"{'lclab gateway':>16} {through_gateway:>8.2f} {through_gateway / len(prompts):>11.3f}")
    print(f"ratio gateway/direct: {through_gateway / direct:.3f}")
    print(append("harness_overhead", [
        {"path": path, "model": args.model, "prompts": len(prompts), "max_tokens": args.max_tokens,
         "wall_s": f"{wall:.2f}", "per_call_s": f"{wall / len(prompts):.3f}"}
        for path, wall in (("llama-cpp direct", direct), ("lclab gateway", through_gateway))]))


if __name__ == "__main__":
    main()

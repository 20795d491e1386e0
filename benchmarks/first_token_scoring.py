"""What one-token logprob scoring costs on the embedded model, three ways.

    .venv/bin/python benchmarks/first_token_scoring.py [--model local/qwen2.5-coder-0.5b] [--facts 4] [--contexts 3]

Every (fact, context) pair of notebook 04's prompt is scored:
  1. llama.cpp's own path: create_chat_completion(logprobs=True) on a logits_all=True instance,
     in context-major order (what the gateway did before the first-token path);
  2. the first-token path, fact-major order: consecutive prompts share only the chat header;
  3. the first-token path, context-major order: consecutive prompts share the context, whose
     KV cache is reused.
No model-call cache is involved; every prompt is evaluated.
"""

from __future__ import annotations

import argparse
import time

from lclab.models.llama import LocalBackend
from lclab.models.protocol import Settings
from lclab.models.specs import parse_spec
from lclab.prompts import render
from lclab.retrieval.chunking import Chunker
from lclab.text.corpus import load_corpus

FACTS = [
    "The phrase Web 2.0 came out of a brainstorming session about naming a conference.",
    "The 2005 Web 2.0 conference cost $2800.",
    "Ajax means that Javascript now works.",
    "Wikipedia shows that amateurs can surpass professionals.",
    "Venture investors are driven by exit strategies.",
    "Google Maps appeared in early 2005.",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="local/qwen2.5-coder-0.5b")
    parser.add_argument("--facts", type=int, default=4)
    parser.add_argument("--contexts", type=int, default=3)
    args = parser.parse_args()

    chunks = Chunker(2000, "chars").split(load_corpus("paul_graham").documents)
    contexts = [c.text for c in chunks if c.doc_id == "web20"][1:1 + args.contexts]
    facts = FACTS[:args.facts]
    backend = LocalBackend(parse_spec(args.model))
    settings = Settings(0.0, 1, None, True, 20, 0)

    def messages(context, fact):
        return [{"role": "user", "content": render("fact_in_context", context=context, fact=fact)}]

    context_major = [messages(c, f) for c in contexts for f in facts]
    fact_major = [messages(c, f) for f in facts for c in contexts]
    tokens = sum(backend.count_prompt_tokens(m) for m in context_major)

    llama_full, _ = backend._llama(logits_all=True)
    backend._llama(logits_all=False)
    warm = messages("warm-up", "warm-up")  # loads both instances outside the timings
    llama_full.create_chat_completion(messages=warm, max_tokens=1, logprobs=True, top_logprobs=20)
    backend.complete(warm, settings, timeout=600)

    def timed(label, fn, prompts):
        started = time.perf_counter()
        for m in prompts:
            fn(m)
        seconds = time.perf_counter() - started
        print(f"{label:<46} {seconds:8.1f} {seconds / len(prompts):10.2f}")
        return seconds

    print(f"{len(context_major)} prompts ({len(contexts)} contexts x {len(facts)} facts, {tokens} prompt tokens) "
          f"on {args.model}")
    print(f"{'path':<46} {'wall s':>8} {'per call s':>10}")
    slow = timed("llama.cpp logits_all, context-major", lambda m: llama_full.create_chat_completion(
        messages=m, temperature=0.0, max_tokens=1, logprobs=True, top_logprobs=20), context_major)
    no_reuse = timed("first-token path, fact-major (no reuse)",
                     lambda m: backend.complete(m, settings, timeout=600), fact_major)
    fast = timed("first-token path, context-major (prefix reuse)",
                 lambda m: backend.complete(m, settings, timeout=600), context_major)
    print(f"speed-up over llama.cpp's path: {slow / fast:.1f}x; of which prefix reuse: {no_reuse / fast:.1f}x")


if __name__ == "__main__":
    main()

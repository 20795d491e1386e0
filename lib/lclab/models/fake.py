"""A deterministic fake model, for tests only: `fake/NAME` answers every request shape the lab sends, at once,
the same way every time, so that the plumbing (plan = run, resume, rescore, tables, the store) is checked in
seconds without a real model's answers. Nothing a user runs defaults to it; the real models answer everywhere
else (the smoke runs on the 0.5B are the integration tests).

What it answers (each choice drawn from a hash of the model name, the messages and the settings):

    free text             a few words of the prompt's last message (so a string match sometimes holds)
    one token (logprobs)  "1" or "0", with both among its top alternatives
    a JSON schema         an object of that shape: each required key, arrays of the length the prompt asks for
                          ("exactly N") or of ARRAY_LENGTH items (a claim list, a fact list: a fan-out a test
                          can give the plan), ids 1..N, enum values from the enum
    JSON mode             the boolean key the prompt names (`correct`, `supported`, ...) or the string keys it
                          names ('question' and 'answer')
    logprobs              every reply token with itself and one alternative (true/false, 1/0) as its top two

Token counts are characters / 4 (rounded up), the window 32,768 tokens. `fake/NAME?latency=0.5` takes that many
seconds per call (a run slow enough to interrupt part-way); the latency is not part of the cache key.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import time

from .protocol import RawReply, Settings
from .specs import ModelSpec

WINDOW = 32_768
ARRAY_LENGTH = 3
TOKEN = re.compile(r'\w+|\s+|[^\w\s]')
OPPOSITE = {"true": "false", "false": "true", "1": "0", "0": "1"}


class FakeBackend:
    """The Backend protocol (models.protocol) over a seeded random choice per request."""

    tokenizer_name = "fake: characters / 4"

    def __init__(self, spec: ModelSpec):
        self.spec = spec
        self.identity = {"fake": spec.model, "version": 1}
        self.latency = float(dict(spec.options).get("latency", 0))

    def count_tokens(self, text: str) -> int:
        return math.ceil(len(text) / 4)

    def count_prompt_tokens(self, messages: list[dict]) -> int:
        return sum(self.count_tokens(m["content"]) + 4 for m in messages)

    def context_window(self) -> int:
        return WINDOW

    def chat_text(self, messages: list[dict]) -> str:
        """A chat template of its own: each message in its role's tags, then the assistant's header."""
        return "".join(f"<|{m['role']}|>\n{m['content']}<|end|>\n" for m in messages) + "<|assistant|>\n"

    def complete(self, messages: list[dict], settings: Settings, timeout: float) -> RawReply:
        return self._reply(messages, settings)

    def complete_text(self, prompt: str, settings: Settings, timeout: float) -> RawReply:
        return self._reply([{"role": "user", "content": prompt}], settings)

    def _reply(self, messages: list[dict], settings: Settings) -> RawReply:
        seed = hashlib.sha256(json.dumps([self.spec.model, messages, settings.__dict__], sort_keys=True,
                                         default=str).encode()).digest()
        rng = random.Random(seed)
        # What it asks is in the last message; its words come from the whole conversation (a pair asked again
        # quotes the passage of the first message)
        prompt = messages[-1]["content"]
        said = "\n".join(m["content"] for m in messages if isinstance(m.get("content"), str))
        if isinstance(settings.response_format, dict):
            text = json.dumps(_from_schema(settings.response_format, prompt, rng, words=said))
        elif settings.response_format == "json":
            text = json.dumps(_named_keys(prompt, rng, words=said))
        elif settings.max_tokens == 1:
            text = rng.choice(["1", "0"])
        else:
            words = re.findall(r"\w+", prompt) or ["nothing"]
            start = rng.randrange(len(words))
            text = " ".join(words[start:start + min(rng.randint(1, 6), settings.max_tokens)])
        tokens = TOKEN.findall(text)[:settings.max_tokens]
        text = "".join(tokens)
        logprobs = [_token_logprobs(t, rng, settings.top_logprobs) for t in tokens] if settings.logprobs else None
        time.sleep(self.latency)
        return RawReply(text, logprobs, self.count_prompt_tokens(messages), len(tokens), "stop")


def _token_logprobs(token: str, rng: random.Random, top: int) -> dict:
    p = rng.uniform(0.55, 0.95)
    other = OPPOSITE.get(token.strip().lower(), "~")
    alternatives = [[token, math.log(p)], [other, math.log(1 - p)]][:max(top, 1)]
    return {"token": token, "logprob": math.log(p), "top": alternatives}


def _asked_count(prompt: str) -> int | None:
    found = re.search(r"exactly (\d+)", prompt)
    return int(found.group(1)) if found else None


def _from_schema(schema: dict, prompt: str, rng: random.Random, index: int = 1, words: str | None = None):
    kind = schema.get("type")
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if kind == "object":
        return {key: (index if key == "id" else _from_schema(sub, prompt, rng, index, words))
                for key, sub in schema.get("properties", {}).items()}
    if kind == "array":
        n = _asked_count(prompt) or ARRAY_LENGTH
        return [_from_schema(schema.get("items", {}), prompt, rng, i + 1, words) for i in range(n)]
    if kind == "boolean":
        return rng.random() < 0.5
    if kind in ("integer", "number"):
        return index
    found = re.findall(r"\w+", prompt if words is None else words) or ["nothing"]
    start = rng.randrange(len(found))
    return " ".join(found[start:start + rng.randint(2, 5)])


def _named_keys(prompt: str, rng: random.Random, words: str | None = None) -> dict:
    """The keys a JSON-mode prompt names: a boolean key in backticks, else string keys in quotes."""
    boolean = re.search(r"`(\w+)` key|key `(\w+)`", prompt)
    if boolean:
        return {boolean.group(1) or boolean.group(2): rng.random() < 0.5}
    strings = re.search(r"""keys ['"](\w+)['"] and ['"](\w+)['"]""", prompt)
    keys = strings.groups() if strings else ("answer",)
    return {key: _from_schema({"type": "string"}, prompt, rng, words=words) for key in keys}


FAKE_DIMENSION = 64


def fake_vectors(texts: list[str]):
    """`fake/NAME` as an embedder (tests only): each text a hashed bag of its lower-cased words, so texts sharing
    words are near (a retrieval test still finds the passage that words the question), in no time and with no
    model to load."""
    import numpy as np

    out = np.zeros((len(texts), FAKE_DIMENSION), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in re.findall(r"\w+", text.lower()):
            out[row, int(hashlib.sha256(word.encode()).hexdigest()[:8], 16) % FAKE_DIMENSION] += 1.0
    out[out.sum(axis=1) == 0, 0] = 1.0  # a text of no word (punctuation only) is still a direction
    return out

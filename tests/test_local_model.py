"""The embedded llama.cpp backend with the real 0.5B model, at tiny sizes."""

import math

import pytest
from conftest import SMALL_MODEL
from lclab.models import Request, complete, count_prompt_tokens, count_tokens, tokenizer_name
from lclab.models.accounting import ACCOUNTING
from lclab.models.errors import ContextLengthError

pytestmark = pytest.mark.model


def test_text_reply_with_usage_and_a_warm_cache_rerun_makes_no_call():
    first = complete(SMALL_MODEL, "What is the capital of France? Answer in one word.", stage="t",
                     request=Request(max_tokens=8))
    assert "paris" in first.text.lower()
    assert first.prompt_tokens > 5 and first.completion_tokens >= 1 and not first.cached
    again = complete(SMALL_MODEL, "What is the capital of France? Answer in one word.", stage="t",
                     request=Request(max_tokens=8))
    assert again.cached and again.text == first.text
    stats = ACCOUNTING.get("t")
    assert stats.calls == 1 and stats.cache_hits == 1


def test_text_completion_continues_a_bare_prompt_without_the_chat_template():
    prompt = "The capital of France is the city of"
    reply = complete(SMALL_MODEL, prompt, stage="t", request=Request(max_tokens=4, text_completion=True))
    assert "paris" in reply.text.lower()
    # Only the prompt's own tokens (plus BOS, if any) are read: no chat-template framing.
    assert reply.prompt_tokens <= count_tokens(SMALL_MODEL, prompt) + 1
    chat = complete(SMALL_MODEL, prompt, stage="t", request=Request(max_tokens=4))
    assert not chat.cached  # the two modes are cached apart
    assert complete(SMALL_MODEL, prompt, stage="t", request=Request(max_tokens=4, text_completion=True)).cached
    with pytest.raises(ContextLengthError, match="exceeds the local context window"):
        complete(SMALL_MODEL, "word " * 9000, stage="t", request=Request(max_tokens=4, text_completion=True))


def test_json_mode():
    reply = complete(SMALL_MODEL, 'Return a JSON object with key "city" set to the capital of Japan.', stage="t",
                     request=Request(response_format="json", max_tokens=24))
    assert isinstance(reply.json, dict) and "tokyo" in str(reply.json.get("city", "")).lower()


def test_logprobs_with_top_alternatives():
    reply = complete(SMALL_MODEL, "Is 7 a prime number? Reply with 1 for yes or 0 for no, nothing else.", stage="t",
                     request=Request(max_tokens=1, logprobs=True, top_logprobs=5))
    assert len(reply.logprobs) == 1
    first = reply.logprobs[0]
    assert first["token"] == reply.text
    assert 1 <= len(first["top"]) <= 5
    total = sum(math.exp(lp) for _, lp in first["top"])
    assert 0 < total <= 1.0001


def test_token_counting_uses_the_models_tokenizer_and_chat_template():
    assert "llama.cpp tokenizer" in tokenizer_name(SMALL_MODEL)
    n = count_tokens(SMALL_MODEL, "hello world " * 50)
    assert 90 <= n <= 110
    prompt = "Name three colours. " * 20
    reply = complete(SMALL_MODEL, prompt, stage="t", request=Request(max_tokens=1))
    assert count_prompt_tokens(SMALL_MODEL, prompt) == reply.prompt_tokens  # exact, as llama.cpp counts


def test_a_text_counted_again_is_not_tokenized_again_and_counts_the_same(monkeypatch, tmp_path):
    from lclab.models import backend_for, token_counts

    # counts kept on disk by earlier processes would spare the first tokenizing too: this test's own store
    store = token_counts.TokenCounts(tmp_path / "token_counts.sqlite")
    monkeypatch.setattr(token_counts, "kept_counts", lambda: store)
    backend, texts = backend_for(SMALL_MODEL), ["Rome is in Italy. " * 40, "Rome is in Italy. " * 41]
    fresh = [len(backend._vocab.tokenize(t.encode(), add_bos=False, special=False)) for t in texts]
    assert [count_tokens(SMALL_MODEL, t) for t in texts] == fresh
    tokenized = []
    real = backend._vocab.tokenize
    monkeypatch.setattr(backend._vocab, "tokenize", lambda *a, **k: tokenized.append(a) or real(*a, **k))
    assert [count_tokens(SMALL_MODEL, t) for t in texts] == fresh and not tokenized
    assert count_prompt_tokens(SMALL_MODEL, texts[0]) > fresh[0] and len(tokenized) == 1  # the template: a new text


def test_a_prompt_beyond_the_context_window_is_refused_before_any_work(monkeypatch):
    from lclab.models import reset_backend_registry

    monkeypatch.setenv("LCLAB_N_CTX", "512")
    reset_backend_registry()
    try:
        with pytest.raises(ContextLengthError, match="exceeds the local context window n_ctx=512"):
            complete(SMALL_MODEL, "word " * 2000, stage="t", request=Request(max_tokens=8))
    finally:
        reset_backend_registry()
    assert ACCOUNTING.get("t").errors == 1 and ACCOUNTING.get("t").calls == 1


@pytest.fixture(scope="module")
def reference_llama():
    """llama-cpp-python's own logprobs path (logits_all), on a small window: what the gateway must match."""
    from lclab.models.local_models import ensure_model
    from llama_cpp import Llama

    return Llama(model_path=str(ensure_model("qwen2.5-coder-0.5b")), n_ctx=1024, logits_all=True, verbose=False)


def assert_same_distribution(got: dict, want: dict):
    assert [t for t, _ in got["top"]] == [t["token"] for t in want["top_logprobs"]]
    for (_, g), w in zip(got["top"], want["top_logprobs"]):
        assert g == pytest.approx(w["logprob"], abs=2e-3)


def test_first_token_logprobs_equal_llama_cpps_own_and_reuse_the_shared_prefix(reference_llama):
    # A one-token greedy logprobs request reads the last prompt token's logits; it must give the
    # numbers llama-cpp-python's logits_all path gives, including after a call that shares its prefix.
    from lclab.models.llama import LocalBackend
    from lclab.models.protocol import Settings
    from lclab.models.specs import parse_spec

    backend = LocalBackend(parse_spec(SMALL_MODEL))
    settings = Settings(0.0, 1, None, True, 5, 0)
    context = "Context: The Eiffel Tower is in Paris and was finished in 1889. "
    for fact in ("Fact: The tower is in Paris.", "Fact: The tower is in Rome."):
        messages = [{"role": "user", "content": context + fact + " Reply 1 if the context states it, else 0."}]
        fast = backend.complete(messages, settings, timeout=60)
        reference = reference_llama.create_chat_completion(messages=messages, temperature=0.0, max_tokens=1,
                                                           logprobs=True, top_logprobs=5)
        assert fast.text == reference["choices"][0]["message"]["content"]
        assert fast.prompt_tokens == reference["usage"]["prompt_tokens"]
        assert_same_distribution(fast.logprobs[0], reference["choices"][0]["logprobs"]["content"][0])


def test_a_call_says_how_much_of_its_prompt_the_model_kept_as_a_plan_counts_it():
    # A run's speed is set against what its calls read (lclab.planning.speed.record_throughput): the prefix kept in
    # the KV cache from the call before is not read again, after a generated reply as after a one-token verdict.
    from lclab.models.backends import shared_prefix_tokens
    from lclab.models.llama import LocalBackend
    from lclab.models.protocol import Settings
    from lclab.models.specs import parse_spec

    backend = LocalBackend(parse_spec(SMALL_MODEL))
    system = "You answer questions about the river crossings. " * 10
    a, b = ([{"role": "system", "content": system}, {"role": "user", "content": question}]
            for question in ("When does crossing 7 open?", "Which crossing closes first?"))
    backend.complete(a, Settings(0.0, 2, None, False, 0, 0), timeout=60)
    second = backend.complete(b, Settings(0.0, 2, None, False, 0, 0), timeout=60)
    shared = shared_prefix_tokens(SMALL_MODEL, a, b)
    assert 0 < shared < second.prompt_tokens and abs(second.kept_prompt_tokens - shared) <= 1
    verdict = backend.complete(a, Settings(0.0, 1, None, True, 5, 0), timeout=60)
    assert abs(verdict.kept_prompt_tokens - shared) <= 1
    again = backend.complete(a, Settings(0.0, 1, None, True, 5, 0), timeout=60)
    assert again.kept_prompt_tokens == again.prompt_tokens - 1  # all but the last token, read for its logits


def test_logprobs_of_a_longer_json_reply_match_llama_cpps_own(reference_llama):
    # A longer reply is generated, then scored in one batch over its own positions. llama-cpp-python's
    # logits_all path decodes the reply one token at a time: other kernels on a quantized model, so the
    # numbers agree to a few hundredths, not to the last digit. The reply's own tokens differed by 0.04 at most
    # in logprob; a top-5 alternative at p ~0.04 by up to 0.14 (AVX2 build) and 0.18 (AVX-512 build), a few
    # thousandths of probability (2026-11-29): the alternatives are compared as probabilities.
    from lclab.models.llama import LocalBackend
    from lclab.models.protocol import Settings
    from lclab.models.specs import parse_spec

    backend = LocalBackend(parse_spec(SMALL_MODEL))
    messages = [{"role": "user", "content": 'Is Paris in France? Reply with a JSON object {"correct": true|false}.'}]
    got = backend.complete(messages, Settings(0.0, 12, "json", True, 5, 0), timeout=60)
    reference = reference_llama.create_chat_completion(messages=messages, temperature=0.0, max_tokens=12,
                                                       response_format={"type": "json_object"}, logprobs=True,
                                                       top_logprobs=5)
    assert got.text == reference["choices"][0]["message"]["content"]
    want = reference["choices"][0]["logprobs"]["content"]
    assert "".join(t["token"] for t in got.logprobs) == got.text and len(got.logprobs) == len(want)
    for g, w in zip(got.logprobs, want):
        assert g["token"] == w["token"] and g["logprob"] == pytest.approx(w["logprob"], abs=0.1)
        theirs = {t["token"]: t["logprob"] for t in w["top_logprobs"]}
        shared = [(token, lp) for token, lp in g["top"] if token in theirs]
        assert len(shared) >= 3
        assert all(math.exp(lp) == pytest.approx(math.exp(theirs[token]), abs=0.03) for token, lp in shared)

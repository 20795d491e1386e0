"""The gateway's `Request`: one value for everything a call asks besides its prompt. Its cache keys are pinned
to the hashes the loose-keyword gateway computed before it (so a warm cache from then still hits), and what
does not change a reply (validator, timeout, retries) is left out of the key."""

import pytest
from lclab.models import Request
from lclab.models.backends import as_messages
from lclab.models.cache import request_key
from lclab.models.retry import RetryPolicy

IDENTITY = {"weights_sha256": "abc", "n_ctx": 8192}
# (prompt, request, the key the gateway computed for the same call before Request existed: git 34003cd)
PINNED = [
    ("Q?", Request(max_tokens=8), "f00b9ab21054d146df744565a3c7b969e927764277a0209c65fc8f91fa2f7990"),
    ("Q?", Request(max_tokens=32, response_format="json", logprobs=True, top_logprobs=5),
     "f0829c208b6ba3d28c260fca33b94530e86b47c96be11ce325f3b119d5e284fa"),
    ("Q?", Request(max_tokens=32, response_format="json", temperature=0.7, sample=2),
     "9ec6625c5b734f8c52ec1ec0f6b0cf759fa38fa8ec99b1e6973763d6dcaa35fd"),
    ("Q?", Request(max_tokens=1, logprobs=True, top_logprobs=5, cache_tag="t", system="S"),
     "3eab01a468556afb7bee1352b72ede22580d2bbc12e0be34c1efcc7c320f6de7"),
    ("Cont", Request(max_tokens=16, text_completion=True, sample=3),
     "11ac5898ba7981ed2efcd05c9ecc1b11add4ca3a8326b66f67d35864de54fb2c"),
    ("Q?", Request(max_tokens=200, response_format={"type": "object", "properties": {"a": {"type": "string"}}}),
     "7be69c440560e9feea97b1d2c87201e1659cd73296e3c19a2f757bdf9c387d8c"),
]


@pytest.mark.parametrize("prompt,request_,pinned", PINNED)
def test_a_requests_cache_key_is_the_one_replies_were_cached_under(prompt, request_, pinned):
    assert request_key(request_.cache_key(IDENTITY, as_messages(prompt, request_.system))) == pinned


def test_what_does_not_change_a_reply_stays_out_of_the_key():
    plain = Request(max_tokens=8, response_format="json")
    patient = plain.but(validate=lambda reply: None, timeout=5.0, retry=RetryPolicy(max_retries=0))
    assert patient == plain and patient.keyed() == plain.keyed()
    assert patient.cache_key(IDENTITY, []) == plain.cache_key(IDENTITY, [])
    assert plain.but(max_tokens=9) != plain and plain.but(sample=1).keyed() != plain.keyed()
    # greedy decoding is deterministic: the sample index keys only a sampled request
    assert plain.but(sample=1).cache_key(IDENTITY, []) == plain.cache_key(IDENTITY, [])
    with pytest.raises(ValueError, match="text_completion"):
        Request(text_completion=True, logprobs=True)

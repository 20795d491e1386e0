"""`functools.lru_cache` for what the sample builders read once (a corpus's sentences and words, a task's word
lists and written pairs), made under a lock.

Samples are built by up to `max_workers` threads at once (64 against a served model). lru_cache alone lets every
thread that misses build the value itself: 64 threads each read and split the whole corpus at the start of a
build, seconds of one core spent 63 times too often. Here the first thread builds it and the others wait for it.
"""

from __future__ import annotations

import threading
from functools import lru_cache, wraps


def built_once(maxsize: int = 4):
    def wrap(fn):
        cached, lock = lru_cache(maxsize=maxsize)(fn), threading.RLock()

        @wraps(fn)
        def call(*args):
            with lock:
                return cached(*args)

        call.cache_clear = cached.cache_clear
        return call

    return wrap

"""simplemma's Polish lemma table, read from a trie kept on disk.

simplemma's own `lemmatize` decodes its 3.6-million-record Polish table into a dict on first use: 3-5 s in every
process that lemmatizes Polish (each RAG-IFEval run, plan and test process). Its trie factory turns the same
table into a MARISA trie once per machine and memory-maps it afterwards; the lemmas are the table's own.

    usual_lemma("mają")   # simplemma's lemma of the form, as simplemma.lemmatize(..., lang="pl") gives it
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ..paths import write_atomic

_lock = threading.Lock()
_lemmatizer = None


def trie_dir() -> Path:
    """Where the tries are kept: beside the assembled models (~/.cache/lclab), per simplemma version."""
    import simplemma

    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return cache / "lclab" / "simplemma" / simplemma.__version__


def _build():
    from simplemma import Lemmatizer
    from simplemma.strategies import DefaultStrategy
    from simplemma.strategies.dictionaries.trie_dictionary_factory import _TRIE_DEPS_AVAILABLE, TrieDictionaryFactory

    if not _TRIE_DEPS_AVAILABLE:  # marisa-trie is pinned; without it, simplemma's own table (slower to load)
        return Lemmatizer()

    class AtomicTrieFactory(TrieDictionaryFactory):
        # Two runs may build the trie at once: each writes a file of its own and moves it in whole, so a reader
        # never maps half a trie (simplemma's own writes in place).
        def _write_trie_to_disk(self, lang, trie) -> None:
            self._cache_dir.mkdir(parents=True, exist_ok=True)
            write_atomic(self._cache_dir / f"{lang}.dic", lambda tmp: trie.save(str(tmp)))

    factory = AtomicTrieFactory(disk_cache_dir=str(trie_dir()))
    return Lemmatizer(lemmatization_strategy=DefaultStrategy(dictionary_factory=factory))


def usual_lemma(word: str) -> str:
    """simplemma's Polish lemma of `word` (the word itself where the table has none), lower-cased."""
    global _lemmatizer
    if _lemmatizer is None:
        with _lock:
            if _lemmatizer is None:
                _lemmatizer = _build()
    return _lemmatizer.lemmatize(word, lang="pl").lower()

"""simplemma's Polish table read from the lab's trie cache gives simplemma's own lemmas."""

import simplemma
from lclab.text.simplemma_pl import trie_dir, usual_lemma

WORDS = ["mają", "większa", "niepełnosprawnych", "złóż", "stanowi", "latem", "prawo", "osób", "Kasia", "art",
         "ustawy", "pkt", "zł", "nieznanesłowo", "2024"]


def test_the_trie_gives_simplemmas_own_lemmas_and_is_kept_on_disk():
    assert [usual_lemma(w.lower()) for w in WORDS] == [simplemma.lemmatize(w.lower(), lang="pl").lower()
                                                       for w in WORDS]
    kept = list(trie_dir().glob("pl.dic"))
    assert kept and kept[0].stat().st_size > 1_000_000
    assert not list(trie_dir().glob(".*tmp"))  # written whole, then moved in

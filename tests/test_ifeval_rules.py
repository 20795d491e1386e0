"""RAG-IFEval's normalization, conditions and aggregates, against hand-computed scores."""

import math

import pytest
from lclab.paths import REPO
from lclab.rag_ifeval import Options
from lclab.rag_ifeval.data import load_badwords
from lclab.rag_ifeval.rules import (
    Answer,
    Judge,
    aggregate,
    cite,
    cited_positions,
    exclude,
    include,
    occurs,
    refuse,
    safe,
)
from lclab.text.polish import lemma
from lclab.text.polish_phrases import normalize, words

DATA = REPO / "data/rag_ifeval"
REFUSAL_MESSAGE = Options().refusal_message


def test_the_benchmarks_normalization_example():
    assert normalize("Powiedział jej, że ma 35 lat (skłamał!).") == "powiedzieć ona że mieć 35 rok skłamać"


@pytest.mark.parametrize("form, expected", [
    ("urzędzie", "urząd"), ("opłaty", "opłata"), ("skarbowej", "skarbowy"), ("dni", "dzień"),
    ("złotych", "złoty"), ("zł", "złoty"),  # the abbreviation and the word meet
    ("albo", "albo"), ("lub", "lub"), ("nie", "nie"),  # function words keep their own reading
    ("pytanie", "pytanie"), ("być", "być"),  # a base form stays itself
    ("lata", "rok"), ("ją", "ona"), ("zrobiłem", "zrobić"),  # clitic "-em" dropped
    ("PESEL", "pesel"), ("B", "b"), ("2024", "2024"), ("ePUAP", "epuap"),
])
def test_lemmas_of_forms_official_answers_use(form, expected):
    assert lemma(form.lower()) == expected


def test_normalization_keeps_only_letters_and_digits():
    assert normalize("„20,50 zł” — (np. [0])!") == "20 50 złoty na przykład 0"
    assert words("_x_y") == ["x", "y"]  # "_" separates words too
    assert normalize("...!?") == ""


def a(text, context=("d0", "d1", "d2")):
    return Answer(text, tuple(context))


def test_include_counts_found_phrases_over_listed_ones():
    answer = a("Opłata skarbowa wynosi 84 zł i płaci się ją w urzędzie.")
    assert include(answer, ["opłata skarbowa", "84 złote"]) == 1.0  # inflected forms match
    assert include(answer, ["84 zł", "urząd gminy", "przelewem"]) == pytest.approx(1 / 3)
    assert include(answer, ["urząd gminy"]) == 0.0


def test_include_alternatives_count_once_when_any_is_found():
    answer = a("Becikowe wynosi tysiąc złotych.")
    assert include(answer, [["1000 zł", "tysiąc złotych"]]) == 1.0
    assert include(answer, [["1000 zł", "tysiąc złotych", "tysiąc"], "12 miesięcy"]) == 0.5
    assert include(answer, [["1000 zł", "1 000 zł"]]) == 0.0


def test_phrases_match_whole_words_only():
    assert include(a("Sąd wydał wyrok."), ["rok"]) == 0.0  # a raw substring test would find "rok" in "wyrok"
    assert include(a("Ważny 3 lata."), ["3 rok"]) == 1.0


def test_exclude_loses_a_share_per_found_phrase():
    answer = a("Dowód kosztuje 140 zł, a paszport 70 zł.")
    assert exclude(answer, ["urząd gminy"]) == 1.0
    assert exclude(answer, ["140 zł", "70 zł", "30 dni", "bezpłatny"]) == 0.5
    assert exclude(answer, [["5 zł", "70 złotych"], "30 dni"]) == 0.5  # an alternative found counts once
    assert exclude(answer, ["140 zł"]) == 0.0


def test_cite_finds_bracketed_numbers_in_every_form():
    assert cited_positions("A [0]. B [1][2]. C [3, 4]. D [ 5 ]. Not: [a], (6), 7.") == {0, 1, 2, 3, 4, 5}


def test_cite_scores_positions_in_the_order_the_prompt_showed():
    # The sample lists d0, d1, d2; the shuffled prompt showed d2, d0, d1, so d0 is [1] and d2 is [0].
    shown = ("d2", "d0", "d1")
    assert cite(a("Tak [1][0].", shown), ["d0", "d2"]) == {"f1": 1.0, "precision": 1.0, "recall": 1.0}
    # Citing the file positions instead of the shown ones: [0] is d2 (right), [2] is d1 (wrong).
    got = cite(a("Tak [0][2].", shown), ["d0", "d2"])
    assert got == {"f1": 0.5, "precision": 0.5, "recall": 0.5}
    # One right ([1] is d0) among four cited ([7] is no document at all): P 1/4, R 1, F1 = 0.4.
    got = cite(a("[1] [0] [2] [7]", shown), ["d0"])
    assert got["precision"] == pytest.approx(1 / 4) and got["recall"] == 1.0
    assert got["f1"] == pytest.approx(0.4)
    assert cite(a("Bez cytowań.", shown), ["d0"]) == {"f1": 0.0, "precision": 0.0, "recall": 0.0}


def test_cite_with_nothing_expected_rewards_citing_nothing():
    assert cite(a("Nie udało mi się odnaleźć odpowiedzi na pytanie"), [])["f1"] == 1.0
    assert cite(a("Może [0]?"), [])["f1"] == 0.0


def test_refuse_both_ways_and_a_custom_phrase():
    refusal = a("nie udało mi się odnaleźć odpowiedzi na pytanie.")  # case does not matter
    answer = a("Opłata wynosi 60 zł [0].")
    assert refuse(refusal, True, REFUSAL_MESSAGE) == 1
    assert refuse(answer, True, REFUSAL_MESSAGE) == 0
    assert refuse(answer, False, REFUSAL_MESSAGE) == 1
    assert refuse(refusal, False, REFUSAL_MESSAGE) == 0
    assert refuse(a("Brak danych."), True, "Brak danych") == 1


def test_safe_finds_an_offensive_word_in_an_inflected_form():
    badwords = load_badwords(DATA / "badwords.txt")
    assert safe(a("Ci urzędnicy to banda idiotów."), True, badwords) == 0  # "idiotów" -> idiota
    assert safe(a("Kasa jest nieczynna w środy [0]."), True, badwords) == 1
    assert safe(a("Wywóz śmieci kosztuje 32 zł."), True, badwords) == 1  # waste, not an insult
    assert safe(a("Spierdalaj."), False, badwords) == 1  # the argument is what is expected


def test_judge_scores_every_condition_of_a_sample():
    judge = Judge(REFUSAL_MESSAGE, frozenset({"idiota"}))
    scores = judge.score(a("Wydanie dowodu jest bezpłatne [1]."),
                         {"include": ["bezpłatny"], "exclude": ["140 zł"], "cite": ["d1"], "refuse": False,
                          "safe": True})
    assert scores == {"include": 1.0, "exclude": 1.0, "cite_f1": 1.0, "cite_precision": 1.0,
                      "cite_recall": 1.0, "refuse": 1, "safe": 1}


def test_aggregates_pool_conditions_and_count_them():
    rows = [
        {"include": 0.5, "cite_f1": 1.0, "cite_precision": 1.0, "cite_recall": 1.0, "refuse": 1,
         "len_chars": 30, "len_words": 5},
        {"exclude": 0.0, "refuse": 0, "safe": 1, "len_chars": 10, "len_words": 1},
    ]
    agg = aggregate(rows)
    assert agg["include"] == (0.5, 1)
    assert agg["correctness"] == (pytest.approx(1.5 / 3), 3)  # include, cite F1, exclude
    assert agg["safety"] == (pytest.approx(2 / 3), 3)  # refuse, refuse, safe
    assert agg["total"] == (pytest.approx(3.5 / 6), 6)  # precision and recall are not pooled
    assert agg["len_chars"] == (20, 2) and agg["len_words"] == (3, 2)
    empty = aggregate([])
    assert math.isnan(empty["total"][0]) and empty["total"][1] == 0


# -- one lemma per word --------------------------------------------------------------------------

@pytest.mark.parametrize("answer, phrase", [
    ("Zgłoszenie dotyczy prac związanych z pracami budowlanymi.", "prace budowlane"),
    ("Opłata dotyczy usług świadczonych w usługach turystycznych.", "usługi turystyczne"),
    ("Wniosek mogą złożyć ojcowie dziecka.", "ojciec"),
    ("Naliczono odsetek za zwłokę.", "odsetki za zwłokę"),
    ("Urząd przyjmuje wnioski od 1 do 31 maja.", "maj"),
])
def test_an_inflected_form_matches_the_phrase(answer, phrase):
    assert occurs(phrase, normalize(answer)), (normalize(answer), normalize(phrase))


def common_lemmas(n: int = 240) -> list[tuple[str, int]]:
    """The most frequent nouns, verbs and adjectives (Morfeusz lemma ids) of the shipped Polish documents."""
    import collections
    import json

    from lclab.text import polish

    counts = collections.Counter()
    docs = [json.loads(line)["contents"] for line in (DATA / "documents.jsonl").read_text(encoding="utf-8").splitlines()]
    questions = [s["question"] for s in json.loads((DATA / "samples.json").read_text(encoding="utf-8"))]
    for word in words(" ".join(docs + questions).lower()):
        for lemma_id, tag, qualifiers in polish.readings(word):
            rank = polish.tag_rank(tag)
            if rank in (2, 3, 4) and not qualifiers:
                counts[(lemma_id, rank)] += 1
    return [key for key, _ in counts.most_common(n)]


def test_every_form_of_a_common_word_gets_one_lemma():
    from lclab.text import polish

    sample = common_lemmas()
    assert len(sample) >= 200
    split = {}
    for lemma_id, rank in sample:
        forms = polish.forms_of(lemma_id, rank)
        # A form that is also a word of a better-ranked kind (a conjunction, a noun) is read as that word,
        # by rule ("lub" is "or", not "like!"): the property is about the forms read as this kind of word.
        # A form two different words share ("prawa": law's and the right hand's) belongs to one of them by rule.
        read_here = [f for f in forms if polish.reading_rank(f) == rank and not f.isdigit() and len(f) > 1
                     and not polish.has_usual_reading(f) and not polish.is_homograph(f, rank)]
        lemmas = {polish.lemma(f) for f in read_here}
        if len(lemmas) > 1:
            split[lemma_id] = {f: polish.lemma(f) for f in read_here}
    assert not split, split


@pytest.mark.parametrize("forms, expected", [
    (["lepszy", "lepsza", "lepsze", "lepszego", "lepszej", "najlepszy", "najlepsza"], "dobry"),
    (["gorszy", "gorsza", "gorsze", "gorszej", "najgorszy"], "zły"),
    (["mniejszy", "mniejsza", "mniejsze", "najmniejszy"], "mały"),
    (["starszy", "starsza", "najstarszy"], "stary"),
])
def test_every_degree_of_an_adjective_meets_its_positive(forms, expected):
    # A comparative is read as its adjective even where a noun ("lepsza") or a verb ("gorszy": scandalizes)
    # shares the form.
    assert {form: lemma(form) for form in forms} == dict.fromkeys(forms, expected)


def test_a_comparative_in_an_answer_matches_the_positive_or_comparative_in_a_rule():
    assert occurs("lepszy", normalize("Oferta jest lepsza od poprzedniej."))
    assert occurs("dobry", normalize("Ta oferta jest lepsza."))


@pytest.mark.parametrize("form, expected", [
    ("prawo", "prawo"), ("prawa", "prawo"), ("prawem", "prawo"),  # law, not "prawy"
    ("życie", "życie"), ("życia", "życie"),  # life, not rye ("żyto")
    ("latem", "lato"), ("lato", "lato"),  # summer keeps its own lemma; "lata" and "lat" are years by usage
    ("kasia", "kasia"), ("kasie", "kasa"),  # a name is not the cash desk
])
def test_words_that_merely_share_forms_keep_their_own_lemmas(form, expected):
    assert lemma(form) == expected


# -- words read with their neighbours (issue 35) ---------------------------------------------------------------

@pytest.mark.parametrize("answer, phrase", [
    # a noun that is also an adjective, agreeing with its noun: every form meets every other
    ("Ulga przysługuje osobom niepełnosprawnym.", "osoba niepełnosprawna"),
    ("Dotyczy to osób niepełnosprawnych.", "osoba niepełnosprawna"),
    ("Osoba niepełnosprawna składa wniosek.", "osoby niepełnosprawne"),
    ("Pomoc dla osób bezrobotnych.", "osoba bezrobotna"),
    ("Zasiłek dla osoby bezrobotnej.", "osoby bezrobotne"),
    ("Każda osoba ubezpieczona ma prawo do zasiłku.", "osób ubezpieczonych"),
    ("Liczba osób zatrudnionych wzrosła.", "osoba zatrudniona"),
    ("Opieka nad osobą chorą trwa miesiąc.", "osoba chora"),
    ("Założono spółkę akcyjną prostą.", "spółka akcyjna prosta"),
    ("Wniosek składa osoba uprawniona.", "osób uprawnionych"),
    ("Wniosek składają osoby uprawnione.", "osoba uprawniona"),
    ("Cudzoziemiec ma stały pobyt w Polsce.", "stałego pobytu"),
    ("Nie posiada stałego pobytu.", "stały pobyt"),
    # a verb before what it governs
    ("Rodzice mają prawo do urlopu.", "mieć prawo"),
    ("Mamy prawo odwołać się od decyzji.", "mieć prawo"),
    ("Złóż wniosek w urzędzie.", "złożyć wniosek"),
    ("Należy złożyć wniosek.", "złóż wniosek"),
    ("Umowa stanowi podstawę wpisu.", "stanowić podstawę"),
    ("Wniosek może złożyć rodzic.", "móc złożyć"),
    # comparatives and superlatives of one adjective meet each other
    ("Ta kwota jest większa.", "największy"),
    ("To największy urząd.", "większy"),
    # abbreviations and the words they stand for, either way round
    ("Zgodnie z art. 27 ust. 2 pkt 3 ustawy.", "artykuł 27 ustęp 2 punkt 3"),
    ("Zgodnie z artykułem 27 ustępem 2 punktem 3.", "art. 27 ust. 2 pkt 3"),
    ("Opublikowano w Dz.U. z 2024 r. poz. 1.", "dziennik ustaw"),
    ("Opublikowano w Dzienniku Ustaw, pozycja 1.", "Dz.U. poz. 1"),
    ("Tekst jest w Dzienniku Ustaw pozycja 5.", "dziennik ustaw"),  # a genitive after a noun is no verb
    ("Opłata wynosi 20 zł.", "20 złotych"),
    ("Opłata wynosi 20 złotych.", "20 zł"),
])
def test_a_phrase_meets_its_forms_read_with_their_neighbours(answer, phrase):
    assert occurs(phrase, normalize(answer)), (normalize(answer), normalize(phrase))


@pytest.mark.parametrize("answer, phrase", [
    ("Przy kasie chorych stała kolejka.", "kasać"),  # a noun with a genitive after it stays a noun
    ("Prawo jazdy wydaje starosta.", "prawy"),  # law, not the right hand
    ("Złoże węgla leży głęboko.", "złożyć"),  # a deposit, not to submit
    ("Maja złożyła wniosek.", "maj"),  # the name is not May
    ("Wnioski przyjmujemy do 31 maja.", "Maja"),  # May's genitive is not the name
    ("Prawa ręka boli.", "prawo"),  # an adjective before its noun is that adjective
    ("Rodzice mamy mieszkają w Gdańsku.", "mieć"),  # mum's parents: a genitive with no object after it
    ("Lut kupiono w sklepie.", "luty"),  # solder is not February
])
def test_neighbours_do_not_merge_words_that_differ(answer, phrase):
    assert not occurs(phrase, normalize(answer)), (normalize(answer), normalize(phrase))


@pytest.mark.parametrize("phrase, expected", [  # an adjective after its noun stays one (the genitive rule's bounds)
    ("osoba prawna", "osoba prawny"), ("pomocy prawnej", "pomoc prawny"), ("sprawa karna", "sprawa karny"),
    ("straż miejska", "straż miejski"), ("osoby starsze", "osoba stary"), ("pieróg ruski", "pieróg ruski"),
])
def test_an_adjective_after_its_noun_is_read_as_the_adjective(phrase, expected):
    assert normalize(phrase) == expected


# Homographs (#49 §1): a noun or a conjunction keeps its usual reading unless the sentence says it is a verb, and
# an adjective used as a noun is read as the adjective. Each case both ways: the answer holds a phrase in another
# form (include finds it, exclude loses it), and a rule phrase in the other reading is not found (exclude keeps
# its full score).
HOMOGRAPHS = [
    # (answer, a phrase it holds, a phrase of the wrong reading)
    ("Zgodę wyraża matka lub ojciec.", "matka lub ojciec", "lubić"),
    ("Termin wynosi 14 dni roboczych.", "dzień roboczy", "dzienić"),
    ("Urlop przypada dniem wolnym od pracy.", "dzień wolny od pracy", "dzienić"),
    ("Mamy 30 dni na odpowiedź.", "mieć 30 dni", "mama"),
    ("Proszę dołączyć kopię umowy.", "kopia umowy", "kopić"),
    ("Kopia umowy leży w aktach.", "kopię umowy", "kopić"),
    ("Na dachu są ogniwa fotowoltaiczne.", "ogniwo fotowoltaiczne", "ogniwać"),
    ("Zamontowano ogniwo fotowoltaiczne.", "ogniwa fotowoltaiczne", "ogniwać"),
    ("Ustawa stanowi, że wniosek składa się na piśmie.", "stanowić", "stan"),
    ("Mowa o czystych powietrzu.", "czyste powietrze", "czysta"),
    ("Amortyzacja środków trwałym.", "środki trwałe", "trwała"),
    # what passed before stays passing
    ("Rodzice mają prawo do urlopu.", "mieć prawo", "maić"),
    ("Mamy prawo odwołać się od decyzji.", "mieć prawo", "mama"),
    ("Złóż wniosek w urzędzie.", "złożyć wniosek", "złoże"),
    ("Umowa stanowi podstawę wpisu.", "stanowić podstawę", "stan"),
    ("Przy kasie chorych stała kolejka.", "kasa chorych", "kasać"),
    # #67 §5, one class per group, the probes and the maintainer's own beside them:
    # an adjectival noun that another noun also reads keeps its reading (the month, not solder's plural)
    ("Termin mija 28 lutego.", "luty", "lut"),
    ("Wniosek złożono w lutym.", "luty", "lut"),
    ("Umowę zawarto w lutym 2024 roku.", "luty 2024", "lut"),
    # an abbreviation after a verb is the noun it stands for, the verb's object
    ("Jak stanowi art. 5 ustawy, wniosek składa się na piśmie.", "stanowić", "stan"),
    ("Zgodnie z tym, co stanowi ust. 2, opłata wynosi 20 zł.", "stanowić", "stan"),
    # a noun/verb homograph after its subject (a nominative noun, a relative pronoun) is the verb
    ("Osoba, która mieszka za granicą, składa wniosek.", "mieszkać", "mieszek"),
    ("Wnioskodawca mieszka w Krakowie.", "mieszkać", "mieszek"),
    ("Fundacja, która działa w Polsce, otrzymuje dotację.", "działać", "działo"),
    ("Urząd działa od poniedziałku do piątku.", "działać", "działo"),
    ("Mieszkańcy stali w kolejce do urzędu.", "stać w kolejce", "stały"),
    ("Kobiety stały w kolejce po zasiłek.", "stać w kolejce", "stały"),
    # a genitive after a verb-or-noun homograph's noun, followed by an object, is the verb with its object
    ("Rodzice mamy prawo do zasiłku.", "mieć prawo", "mama"),
    # a genitive noun after a noun completes it; it is no adjective agreeing with that noun
    ("Grozi za to utrata prawa jazdy.", "prawo jazdy", "prawy"),
    ("Nastąpiła utrata prawa do zasiłku.", "prawo do zasiłku", "prawy"),
    ("Dołączono dwie kopie umowy.", "kopia umowy", "umowy"),
    ("Sąd orzekł zakaz prowadzenia pojazdów.", "zakaz prowadzenia", "prowadzenie zakaz"),
    # ...and what those rules must not take: a noun after a preposition is no subject, a sentence's full stop
    # ends what its last word is read with
    ("Ile zapłaci za wywóz śmieci rodzina?", "wywóz śmieci", "śmiecić"),
    ("Opieka trwa od 10. tygodnia ciąży. Wniosek składa się w urzędzie.", "tydzień ciąży", "ciążyć"),
    ("Rodzice, którzy mają troje dzieci, dostają kartę.", "mieć troje dzieci", "maja"),
    # a noun's whole paradigm under one lemma: a field's jargon sharing its forms (karo, of card games) loses
    ("Umowa przewiduje karę umowną.", "kara umowna", "karo"),
    ("O karze umownej mówi umowa.", "kara umowna", "karo"),
    ("Strony ustaliły zasady naliczania odsetek i kar.", "odsetki", "karo"),
    ("Zapłacono karami umownymi.", "kara umowna", "karo"),
    ("Podano pierogi ruskie.", "pieróg ruski", "pierog"),  # ...but not between two spellings of one word
]


@pytest.mark.parametrize("answer, held, wrong", HOMOGRAPHS)
def test_homographs_keep_their_usual_reading_unless_the_sentence_says_otherwise(answer, held, wrong):
    text = Answer(answer, ())
    assert include(text, [held]) == 1.0 and exclude(text, [held]) == 0.0, (normalize(answer), normalize(held))
    assert wrong not in words(answer), (normalize(answer), wrong)
    if normalize(wrong) == wrong:  # a rule phrase of the wrong reading (read alone, it keeps that reading)
        assert include(text, [wrong]) == 0.0 and exclude(text, [wrong]) == 1.0, (normalize(answer), wrong)
    # The other way round: the phrase as the answer, the answer's words as the rule.
    assert occurs(held, Answer(held, ()).normalized) and wrong not in words(held)

"""Text the experiments read and build; shared by the experiments.

    corpus.py       documents from the shipped essays or a folder, cut into passages (clear errors for bad files)
    context.py      long contexts: fill a token budget with distractors, place the answer at a depth
    normalize.py    answer normalization for the judge-free check
    sentences.py    Punkt sentences, long ones cut, short ones merged (05's hypotheses, 06's claims)
    polish.py       Polish normalization and lemmas (RAG-IFEval's rules, Polish content-word overlap)
    hand_tables.py  reading the hand-made CSV files under data/
"""

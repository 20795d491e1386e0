"""Scoring answers and reading how far a score can be trusted; shared by the experiments.

    judges.py       LLM judges: one-token yes/no verdicts with their probability
    logprob.py      logprob-weighted scores from one-token distributions
    entailment.py   the one-token entailment verdict, p(supported) (05's hypotheses, 06's claims)
    claims.py       claim-level RAG diagnostics: RAGChecker's metrics from claims and entailment verdicts
    baselines.py    judge-free baselines (string match, content-word overlap)
    refusal.py      the judge-free refusal check (unanswerable items, Self-Route's fallback)
    reliability.py  reliability cards: agreement with labels, κ, AUC, against a baseline
    labelling.py    labelling sheets for a run, and importing the labels (python -m lclab.scoring.labelling)
    score_eval.py   ROC AUC and separation of scores against yes/no labels, paired AUC differences
"""

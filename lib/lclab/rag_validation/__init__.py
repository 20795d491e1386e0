"""Notebook 06, RAG validation (seed 004): how often does the retriever return the chunks a question needs,
and are the answers right, relevant and faithful?

    run.py     index the corpus, generate single-chunk questions, read the reviewed multi-chunk ones,
               retrieve, answer and judge
    curves.py  recall/precision@k curves, the seed's headline numbers, answer quality
    figure.py  recall@k and precision@k with bootstrap bands
    stages.py      its declared stages: the answer (from what retrieval found) and a judge per judge kind
    experiment.py  its registration: plan, what makes runs comparable, how they are compared
"""

from .curves import answer_quality, retrieval_curves, seed_numbers
from .run import EXPERIMENT, format_passages, run_rag_validation, single_chunk_questions

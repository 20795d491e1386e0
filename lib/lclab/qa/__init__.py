"""QA sets (notebook 00, seed §1-§2): candidate pairs per passage, checked, reviewed, the pairs marked yes used.

    factoid_passages.py  which passages can carry a factoid question (the others are never sampled)
    generate.py     generate candidate pairs and walk them through the checks (notebook 00, 06's questions)
    checks.py       the named checks, which remove and which flag, duplicates within a set
    planned.py      the plan of generation: the run's walk over the cache
    review.py       read a reviewed file; the validated pairs the experiments use
    review_desk.py  the blind review, one pair at a time (the explorer's QA desk, python -m lclab.qa.review_desk)
    multi_chunk.py  questions that need three chunks (06), generated for review
                    (python -m lclab.qa.multi_chunk)
"""

from .generate import generate_pair, qa_shape, sample_passages
from .review import load_validated, read_qa_file, review_marks, validated_pairs

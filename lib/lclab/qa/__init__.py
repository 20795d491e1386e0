"""QA sets (notebook 00, seed §1-§2): generate one pair per passage, review by hand, use the pairs marked yes.

    generate.py     generate and check pairs (notebook 00, lclab.make_qa_set, writes the review file)
    review.py       read a reviewed file; the validated pairs the experiments use
    review_desk.py  the blind review, one pair at a time (the explorer's QA desk, python -m lclab.qa.review_desk)
    multi_chunk.py  questions that need three chunks (06), generated for review
                    (python -m lclab.qa.multi_chunk)
"""

from .generate import generate_pair, qa_shape, sample_passages
from .review import load_validated, read_qa_file, review_marks, validated_pairs

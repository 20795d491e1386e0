"""QA sets (notebook 00, seed §1-§2): generate one pair per passage, review by hand, use the pairs marked yes.

    generate.py     generate and check pairs (notebook 00, lclab.make_qa_set, writes the review file)
    review.py       read a reviewed file; the validated pairs the experiments use
    multi_chunk.py  questions that need three chunks (06), generated for review
                    (python -m lclab.qa.multi_chunk)
"""

from .generate import generate_pair, qa_shape, sample_passages
from .review import load_validated, read_qa_file, review_marks, validated_pairs

"""Notebook 00, make a QA set (seed §1-§2): sample passages, generate and check a pair for each, and write
the review file a reader marks; the experiments then use the pairs marked yes (`lclab.qa`).

    run.py         make_qa_set: the run, its review file and the checks' counts
    experiment.py  its registration and plan
"""

from .run import EXPERIMENT, make_qa_set

__all__ = ["EXPERIMENT", "make_qa_set"]

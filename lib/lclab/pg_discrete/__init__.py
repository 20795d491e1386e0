"""Notebook 03, the Paul Graham discrete retrieval dataset (seed 002): does a retrieved context hold the
golden response, and does the logprob-weighted score tell better than the sampled token?

    points.py  hand-written questions, retrieved positive/negative candidates, the maintainer's labels
    run.py     every model scores every point; separation (ROC AUC) and calibration per scorer
    figure.py  ROC curves and calibration against the maintainer's labels
    experiment.py  its registration: plan, what makes runs comparable, how they are compared
"""

from .points import SCORERS, attach_labels, candidate_ranks, load_questions, read_labels, retrieve_points, usable
from .run import EXPERIMENT, SCORE, calibration, prepare, run_discrete, separation

"""Notebook 01, lost in the middle (seed §3a): accuracy against the depth of the answer document.

    sweep.py   trials (one fixed distractor set per pair and budget; only the depth moves), run, summary
    figure.py  accuracy vs depth with Wilson CIs, or a depth x length heatmap
"""

from .figure import depth_figure
from .sweep import EXPERIMENT, build_trials, run_depth_sweep, summarize

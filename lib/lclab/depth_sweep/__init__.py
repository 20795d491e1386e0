"""Notebook 01, lost in the middle (seed §3a): accuracy against the depth of the answer document.

    sweep.py       trials (one fixed distractor set per pair and budget; only the depth moves), run, summary
    haystacks.py   harder haystacks: one shared per length, similar distractors, several needles
    needles.py     several needles at once, scored by the fraction of gold answers found
    effects.py     paired depth effects and the effective length of a run
    figure.py      accuracy vs depth with Wilson CIs, or a depth x length heatmap
    experiment.py  its registration: plan, what makes runs comparable, how they are compared
"""

from .sweep import EXPERIMENT, build_trials, run_depth_sweep, summarize

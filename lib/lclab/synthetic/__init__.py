"""Notebook 09, synthetic long-context tasks: where does a model lose information, at any length, with as many
seeded samples as the budget allows and no judge? The lab's own tasks, and RULER's thirteen as RULER defines them.

    haystack.py    sentences of the user's documents (or the shipped essays) filling an exact token budget,
                   needles placed at depths
    tasks.py       the tasks (needles with distractors, several values or several queries; variable tracking;
                   common and frequent words; QA on validated pairs) and their string-match scores
    ruler.py       RULER's thirteen tasks (tasks: [ruler]); ruler_qa.py its two QA tasks on the lab's data;
                   ruler_tables.py RULER's table, its mean over tasks and effective length; value kinds as an axis
    run.py         every sample answered once and scored; summaries with CIs over haystacks; effective length
    reading_gain.py  the closed-book arm: haystacks answered with no text, the reading gain per task
    stages.py      the answer stage (a RULER prompt prefilled as a raw completion, or a chat turn)
    figure.py      score by length per task; depth x length heatmap with n per cell
    experiment.py  its registration: plan, design, comparison
"""

from .run import EXPERIMENT, build_samples, run_synthetic, summarize
from .tasks import TASKS, score

__all__ = ["EXPERIMENT", "TASKS", "build_samples", "run_synthetic", "score", "summarize"]

"""How experiments run and are recorded; shared by every experiment, changed with care.

    runner.py     Run (Run.stages executes the declared stages) and the Result every experiment returns
    trials.py     run_trials: every pending trial through the stages, each as a Step; the shared answer columns
    folders.py    run folders, item logs (resumable JSONL), the run lock, the accounting log
    manifest.py   manifest.json: what made a run; rebuilding an item's prompt
    index.py      results/index.csv: one line per run
    parallel.py   map_items: a step over many items, with workers and a progress bar
    params.py     notebook parameters checked against their declarations before anything loads
    notebooks.py  executing the notebooks under a profile (python -m lclab.runs.notebooks, run_all.sh)
    kernels.py    how a notebook's kernel is started: IPC, one progress line per loop, its log in a file
    progress.py   the runner's live line per notebook: calls done of planned, time left (from the plan)
    report.py     results/report/index.html (python -m lclab.runs.report)
    profile_table.py  the planned calls of the profiles the README quotes (python -m lclab.runs.profile_table)
"""

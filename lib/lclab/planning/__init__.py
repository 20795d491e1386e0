"""What a run will cost before it runs: each experiment's `plan` prepares its samples as the run does and
counts them with `stages` (first stages exact, later stages by their templates, replies at their budget or as
earlier runs measured them); `plan.row` prices a row on this machine; `plan.plan_notebook` asks the registry
which experiment a notebook runs; `design` says what a run's n can show."""

"""What a run will cost before it runs: each experiment's `plan` builds its rows with `plan.row` and
`plan.answers_and_judges`; `plan.plan_notebook` asks the registry which experiment a notebook runs."""

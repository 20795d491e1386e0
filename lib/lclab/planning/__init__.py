"""What a run will cost before it runs: `experiment_plan.plan_notebook` asks the registry which experiment a
notebook runs and walks its `prepare`'s samples through its declared stages (`experiment_plan.planned_stages`),
or calls its own `plan` where a stage's prompts cannot be known before a call; `priced` counts them (first
stages exact, later stages by their templates, replies at their budget or as earlier runs measured them);
`plan.row` prices a row on this machine; `design` says what a run's n can show."""

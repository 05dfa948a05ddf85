"""Judge a `judge_later` lm-eval run afterwards by the tasks' own code: as an in-run judge would."""

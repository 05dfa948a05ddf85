"""Judge an lm-eval `judge_later` run after the fact with each benchmark's own filter,
`process_results` and aggregations, so the numbers equal those of an in-run judge by construction."""

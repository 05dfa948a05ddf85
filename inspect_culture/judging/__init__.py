"""What both harnesses share about the LLM judge; the lm-eval judge client lives in
`lm_eval_tasks.judge`, Inspect calls its judge through its model API (`inspect_adapter.judge`)."""

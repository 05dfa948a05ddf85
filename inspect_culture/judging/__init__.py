"""What both harnesses share about the LLM judge: verdict constraints and generation defaults.
The lm-eval judge client lives in `lm_eval_tasks.judge`; Inspect calls its judge through its own
model API (`inspect_plumbing.judge`)."""

"""The LLM judge, harness-free: its options, one orchestration, juries and re-judging, the cache,
reasons, redaction and constraints, and the transports that need no harness (the HTTP client
lm-eval's filters use, the OpenAI Batch API). Inspect's grader roles send through
`inspect_adapter.judge`, which imports Inspect."""

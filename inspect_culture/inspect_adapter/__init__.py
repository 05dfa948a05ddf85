"""Inspect-only plumbing the task files share: judge calls, model roles, chat messages, setup
errors and engine defaults. Harness-free logic stays in `benchmarks/` and `judging/`."""

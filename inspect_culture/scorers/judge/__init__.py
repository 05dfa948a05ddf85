"""Harness-agnostic LLM-judge layer: settings, verdict parsing, a persistent cache and a
concurrent OpenAI-compatible client with retries. Inspect uses its own model API instead of the
client (transcripts, usage, Inspect's cache) but shares the prompts and verdict parsers."""

"""Harness-agnostic scoring: prompts, answer parsers, metrics and statistics (no harness imports)."""

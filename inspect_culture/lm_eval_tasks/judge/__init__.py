"""lm-eval's judge: settings, cache and a concurrent client (Inspect uses its own model API)."""

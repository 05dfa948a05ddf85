"""Judge generation defaults both harnesses send, so a judge answers alike under either."""

DEFAULT_SEED = 20250101
# A long (thinking) judge reply is cut at the same length in both harnesses.
DEFAULT_MAX_TOKENS = 1024

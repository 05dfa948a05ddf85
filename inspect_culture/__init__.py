"""Cultural-awareness benchmarks for Inspect AI and lm-evaluation-harness.

Importing this package must stay cheap and harness-free: the wheel test imports it in a
bare virtual environment, and `culture-evals` starts from here.
"""

__version__ = "0.1.0"  # the package version: pyproject.toml reads it from here

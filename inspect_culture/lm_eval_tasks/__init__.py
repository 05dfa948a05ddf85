"""lm-evaluation-harness task YAMLs shipped as package data (`lm_eval --include_path <this dir>`)."""

from __future__ import annotations

from pathlib import Path


def include_path() -> Path:
    """Our task YAMLs: this package's folder (what `culture-evals lm-eval-path` prints)."""
    return Path(__file__).resolve().parent

"""Errors of `culture-evals report` that the CLI prints as one line and exits on."""

from __future__ import annotations


class ReportDependencyError(RuntimeError):
    """An optional dependency of the report (matplotlib for figures) is not installed.

    A `RuntimeError`, so callers that only know the standard hierarchy still catch it; its
    message is one line that names the extra to install."""

"""Errors of `culture-evals report` that the CLI prints as one line and exits on."""

from __future__ import annotations


class ReportDependencyError(RuntimeError):
    """A missing optional dependency of the report; the one-line message names the extra."""

"""Reading and exporting finished runs, never running ones. Only `finder` finds their files, and
only `inspect_outputs` (Inspect logs) and `lm_eval_outputs` (lm-eval folders) read them."""

from __future__ import annotations

import sys


class RunsError(ValueError):
    """A problem with the given runs that the user can fix; the message is one line."""


class UnreadableLog(RunsError):
    """Not an Inspect log, or a damaged one; the message says so in one line."""


def first_line(text: str | None) -> str:
    return text.strip().splitlines()[0][:200] if text and text.strip() else "no message"


def report_to_stderr(message: str) -> None:
    print(f"culture-evals: {message}", file=sys.stderr)

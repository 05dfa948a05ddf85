"""Reading and exporting finished runs, never running ones. Only `finder` finds their files, and
only `inspect_outputs` (Inspect logs) and `lm_eval_outputs` (lm-eval folders) read them."""

from __future__ import annotations

import sys


class RunsError(ValueError):
    """A problem with the given runs that the user can fix; the message is one line."""


class UnreadableLog(RunsError):
    """Not an Inspect log, or a damaged one; the message says so in one line."""


def message_line(text: str | None) -> str:
    """An error's first line, at most 200 characters, for a one-line message; "no message"
    when it says nothing."""
    return text.strip().splitlines()[0][:200] if text and text.strip() else "no message"


def report_to_stderr(message: str) -> None:
    print(f"culture-evals: {message}", file=sys.stderr)

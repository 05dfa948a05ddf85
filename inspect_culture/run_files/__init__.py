"""Reading and exporting finished runs, never running ones; `read_log` opens their Inspect logs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


class RunsError(ValueError):
    """A problem with the given runs that the user can fix; the message is one line."""


class UnreadableLog(RunsError):
    """Not an Inspect log, or a damaged one; the message says so in one line."""


def read_log(path: Path, header_only: bool = False) -> Any:
    from inspect_ai.log import read_eval_log

    try:
        return read_eval_log(str(path), header_only=header_only)
    except Exception as exc:  # noqa: BLE001 (any reader failure means: not a usable log)
        reason = f"{type(exc).__name__}: {first_line(str(exc))}"
        raise UnreadableLog(f"not a readable Inspect log ({reason})") from None


def first_line(text: str | None) -> str:
    return text.strip().splitlines()[0][:200] if text and text.strip() else "no message"


def report_to_stderr(message: str) -> None:
    print(f"culture-evals: {message}", file=sys.stderr)

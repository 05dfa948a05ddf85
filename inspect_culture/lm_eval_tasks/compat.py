"""Every use of lm-evaluation-harness's internals, in one place (docs/architecture.md, "Harness
internals"). Each is here because no public API does the job; each has a test in
tests/test_compat.py that fails when a supported release (the floor or the newest,
scripts/compat) changes it."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any


def simple_evaluate_call() -> dict[str, Any] | None:
    """The arguments of the `lm_eval.evaluator.simple_evaluate` call loading this task, or None.
    lm-eval hands a task's loader the merged metadata only: which keys were model arguments,
    and whether the run is `--predict_only`, it does not say."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if (
            frame.f_code.co_name == "simple_evaluate"
            and frame.f_globals.get("__name__") == "lm_eval.evaluator"
        ):
            return frame.f_locals
        frame = frame.f_back
    return None

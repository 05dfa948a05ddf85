"""Our refusals in the `lm_eval` command line: their message alone, not after a 45-line
traceback. Each task loader (`custom_dataset`) is wrapped at the boundary where lm-eval calls it;
no hook of the interpreter's is replaced, and a library caller gets the exception itself."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import ParamSpec, TypeVar

from inspect_culture.benchmarks.choices import BenchmarkOptionError
from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError
from inspect_culture.judging.constraints import JudgeConstraintError
from inspect_culture.judging.options import JudgeConfigError

# What a task's loader refuses with a message that says it all: a bad option (a benchmark's, or
# the judge's) or unusable data.
ONE_LINE_ERRORS = (
    BenchmarkOptionError,
    JudgeConfigError,
    JudgeConstraintError,
    DatasetUnavailableError,
    DataValidationError,
)

P = ParamSpec("P")
R = TypeVar("R")


def under_lm_eval_cli() -> bool:
    """True in the `lm_eval` (or `lm-eval`, or `python -m lm_eval`) command line."""
    name = sys.argv[0] if sys.argv else ""
    return Path(name).name in ("lm_eval", "lm-eval") or name.endswith("lm_eval/__main__.py")


def one_line_in_cli(loader: Callable[P, R]) -> Callable[P, R]:
    """`loader`, whose refusals end the `lm_eval` command line as one line (SystemExit prints
    its message, exit code 1); elsewhere they are raised as they are."""

    @wraps(loader)
    def load(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return loader(*args, **kwargs)
        except ONE_LINE_ERRORS as exc:
            if under_lm_eval_cli():
                raise SystemExit(f"\n{type(exc).__name__}: {exc}") from exc
            raise

    return load

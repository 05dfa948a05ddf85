"""Strict checks of the Inspect-only task parameters (`-T` values arrive YAML-parsed): a value
of the wrong kind is refused with the values allowed, never coerced."""

from __future__ import annotations

import contextlib
import math
from typing import Any

from inspect_culture.benchmarks.choices import check_bool, is_whole_number_text

as_bool = check_bool  # true or false only (the shared check of both harnesses)


def as_optional_int(name: str, value: Any, minimum: int | None = None) -> int | None:
    return None if value is None else as_int(name, value, minimum, optional=True)


def as_int(name: str, value: Any, minimum: int | None = None, optional: bool = False) -> int:
    """A whole number (at least `minimum`); "3" as text is read too."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and is_whole_number_text(value):
        number = int(value.strip())
    allowed = "a whole number" + (f" >= {minimum}" if minimum is not None else "")
    allowed += " (or leave it out)" if optional else ""
    if number is None or (minimum is not None and number < minimum):
        raise ValueError(f"-T {name}={value!r}: {name} must be {allowed}")
    return number


def as_optional_seconds(name: str, value: Any) -> float | None:
    return None if value is None else as_seconds(name, value)


def as_seconds(name: str, value: Any) -> float:
    """A number of seconds > 0."""
    number = math.nan
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        with contextlib.suppress(ValueError):
            number = float(value.strip())
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"-T {name}={value!r}: {name} must be a number of seconds > 0")
    return number

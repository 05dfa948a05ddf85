"""Validation of enumerated parameters, so a typo fails with the allowed values."""

from __future__ import annotations

from collections.abc import Iterable


def check_choice(parameter: str, value: object, allowed: Iterable[str]) -> str:
    options = tuple(allowed)
    if value not in options:
        raise ValueError(
            f"{parameter}={value!r} is not supported; allowed values: {', '.join(map(str, options))}"
        )
    return str(value)

"""Validation of enumerated parameters, so a typo fails with the allowed values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def check_choice(parameter: str, value: object, allowed: Iterable[str]) -> str:
    options = tuple(allowed)
    if value not in options:
        raise ValueError(
            f"{parameter}={value!r} is not supported; allowed values: {', '.join(map(str, options))}"
        )
    return str(value)


def check_bool(parameter: str, value: object) -> bool:
    """true/false only: a typo such as `reasoning=ture` must not silently pick one."""
    if isinstance(value, str) and value.strip().lower() in {"true", "false"}:
        return value.strip().lower() == "true"
    if isinstance(value, bool):
        return value
    raise ValueError(f"{parameter}={value!r} is not supported; allowed values: true, false")


def is_whole_number_text(text: str) -> bool:
    """ "12", "+3", " -4 ": not "²" or "١", which isdigit takes and int() refuses namelessly."""
    text = text.strip()
    digits = text[1:] if text[:1] in ("+", "-") else text
    return digits.isascii() and digits.isdigit()


def check_int(parameter: str, value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and is_whole_number_text(value):
        return int(value.strip())
    raise ValueError(f"{parameter}={value!r}: expected an integer")


def check_fixed(task: str, given: Mapping[str, object], **fixed: object) -> None:
    """What an lm-eval task's name fixes: `--metadata` changing it would relabel the result."""
    for key, value in fixed.items():
        if key in given and given[key] != value:
            raise ValueError(
                f"{key} is fixed per task (this task is {task}, {key}={value!r}); run the task "
                f"for {key}={given[key]!r} instead of passing {key} in --metadata"
            )

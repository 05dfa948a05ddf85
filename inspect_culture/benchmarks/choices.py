"""Validation of enumerated parameters, so a typo fails with the allowed values."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager


class BenchmarkOptionError(ValueError):
    """A benchmark option (Inspect's `-T`, lm-eval's `--metadata`) with a value it does not take:
    the message is one line naming the option and what it allows, so every entry point can show
    it alone (the lm-eval command line prints it without a traceback)."""


@contextmanager
def option_errors() -> Iterator[None]:
    """Around a spec's option checks (as a decorator of its `validate`): a ValueError from a
    shared check it calls (the judge constraint's, a language list's) is an option error too."""
    try:
        yield
    except BenchmarkOptionError:
        raise
    except ValueError as exc:
        raise BenchmarkOptionError(str(exc)) from None


def check_choice(parameter: str, value: object, allowed: Iterable[str]) -> str:
    options = tuple(allowed)
    if value not in options:
        raise BenchmarkOptionError(
            f"{parameter}={value!r} is not supported; allowed values: {', '.join(map(str, options))}"
        )
    return str(value)


def check_bool(parameter: str, value: object) -> bool:
    """true/false only: a typo such as `reasoning=ture` must not silently pick one."""
    if isinstance(value, str) and value.strip().lower() in {"true", "false"}:
        return value.strip().lower() == "true"
    if isinstance(value, bool):
        return value
    raise BenchmarkOptionError(
        f"{parameter}={value!r} is not supported; allowed values: true, false"
    )


def is_whole_number_text(text: str) -> bool:
    """ "12", "+3", " -4 ": not "²" or "١", which isdigit takes and int() refuses namelessly."""
    text = text.strip()
    digits = text[1:] if text[:1] in ("+", "-") else text
    return digits.isascii() and digits.isdigit()


def check_int(parameter: str, value: object, minimum: int | None = None) -> int:
    """An integer (at least `minimum`); "3" as text too, as `--metadata` may give it."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and is_whole_number_text(value):
        number = int(value.strip())
    if number is not None and (minimum is None or number >= minimum):
        return number
    at_least = "" if minimum is None else f" >= {minimum}"
    raise BenchmarkOptionError(f"{parameter}={value!r}: expected an integer{at_least}")


def check_fixed(task: str, given: Mapping[str, object], **fixed: object) -> None:
    """What an lm-eval task's name fixes: `--metadata` changing it would relabel the result."""
    for key, value in fixed.items():
        if key in given and given[key] != value:
            raise BenchmarkOptionError(
                f"{key} is fixed per task (this task is {task}, {key}={value!r}); run the task "
                f"for {key}={given[key]!r} instead of passing {key} in --metadata"
            )

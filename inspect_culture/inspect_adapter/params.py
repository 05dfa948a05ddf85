"""Strict checks of the Inspect-only task parameters (`-T` values arrive YAML-parsed): a value
of the wrong kind is refused with the values allowed, never coerced; and a judged task's (or
its judge scorer's) judge parameters, from their declaration (`judging/options.py`)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from inspect_culture.benchmarks.choices import is_whole_number_text
from inspect_culture.inspect_adapter.errors import scorer_setup_errors, task_setup_errors
from inspect_culture.judging.options import TASK, declared, inspect_options

Made = TypeVar("Made", bound=Callable[..., Any])


def as_optional_int(name: str, value: Any, minimum: int | None = None) -> int | None:
    """A whole number (at least `minimum`), or None; "3" as text is read too."""
    if value is None:
        return None
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and is_whole_number_text(value):
        number = int(value.strip())
    allowed = "a whole number" + (f" >= {minimum}" if minimum is not None else "")
    allowed += " (or leave it out)"
    if number is None or (minimum is not None and number < minimum):
        raise ValueError(f"-T {name}={value!r}: {name} must be {allowed}")
    return number


def judge_parameters(where: str = TASK) -> Callable[[Made], Made]:
    """The judge parameters of a judged task (TASK) or its judge scorer (SCORER), from their
    declaration, in place of its `judge` and `**judge_parameters` parameters: Inspect reads them
    in the signature (`-T`, the log's task and scorer arguments, `inspect score`), and the
    function gets them checked, as one `JudgeOptions` (a bad value: the task's or scorer's setup
    error naming it). `**judge_parameters` (always empty) tells a reader of the source, such as
    the Register's lint of README commands, that the task takes more than it lists."""
    errors = task_setup_errors if where == TASK else scorer_setup_errors
    options = declared(where)
    judge = [
        inspect.Parameter(
            o.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=o.default,
            annotation=o.annotation,
        )
        for o in options
    ]

    def decorate(made: Made) -> Made:
        own = inspect.signature(made)
        kept = [p for p in own.parameters.values() if p.kind != p.VAR_KEYWORD]
        listed = [judge if p.name == "judge" else [p] for p in kept]
        signature = own.replace(parameters=[p for group in listed for p in group])

        @functools.wraps(made)
        def with_options(*args: Any, **kwargs: Any) -> Any:
            given = signature.bind(*args, **kwargs).arguments
            with errors():
                checked = inspect_options(
                    {o.name: given.pop(o.name) for o in options if o.name in given}, where
                )
            return made(**given, judge=checked)

        with_options.__signature__ = signature  # type: ignore[attr-defined]
        return with_options  # type: ignore[return-value]

    return decorate

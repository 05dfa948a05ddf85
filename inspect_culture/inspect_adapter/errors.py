"""Turn our setup errors into Inspect's prerequisite error, which `inspect eval` prints as one
clear message instead of a traceback through Inspect's task loader."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

from inspect_culture.datasets_hub.errors import DatasetUnavailableError
from inspect_culture.inspect_adapter.roles import prerequisite_error

PrerequisiteError = prerequisite_error()


class TaskSetupError(PrerequisiteError, ValueError):  # type: ignore[misc,valid-type]
    """A bad task parameter or unusable data; still a ValueError for Python callers."""


class ScorerSetupError(PrerequisiteError):  # type: ignore[misc,valid-type]
    """A bad scorer option. Deliberately not a ValueError: `inspect score` takes a ValueError
    from a scorer's constructor for "scorer not found" and hides its message."""


@contextmanager
def _setup_errors(caught: tuple[type[Exception], ...], raised: type[Exception]) -> Iterator[None]:
    try:
        yield
    except caught as exc:
        raise raised(str(exc)) from None


scorer_setup_errors = partial(_setup_errors, (ValueError,), ScorerSetupError)
task_setup_errors = partial(_setup_errors, (ValueError, DatasetUnavailableError), TaskSetupError)

"""Model roles, and Inspect's `PrerequisiteError` (printed without a traceback): not public
API, so its class is taken from the public call that raises it for an unbound role."""

from __future__ import annotations

from functools import cache

from inspect_ai.model import Model, get_model

from inspect_culture.inspect_adapter.failures import guard_secrets
from inspect_culture.judging.jury import BASELINE_ROLE, GRADER_ROLE

__all__ = ["BASELINE_ROLE", "GRADER_ROLE", "prerequisite_error", "role_model"]
_NEVER_BOUND = "inspect_culture.never_bound"


@cache
def prerequisite_error() -> type[Exception]:
    try:
        get_model(role=_NEVER_BOUND, required=True)
    except Exception as exc:
        return type(exc)
    raise RuntimeError(f"model role {_NEVER_BOUND!r} is bound: cannot learn Inspect's error type")


def role_model(role: str, missing: str, default: Model | None = None) -> Model:
    """The model bound to `role`, else `default` (key-guarded); with neither, fails: `missing`."""
    if default is not None:
        return guard_secrets(get_model(role=role, default=default))
    error = prerequisite_error()
    try:
        return guard_secrets(get_model(role=role, required=True))
    except error:
        raise error(missing) from None

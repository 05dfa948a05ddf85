"""Every use of lm-evaluation-harness's internals, in one place (docs/architecture.md, "Harness
internals"). Each is here because no public API does the job; each has a test in
tests/test_compat.py that fails when a supported release (the floor or the newest,
scripts/compat) changes it."""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from types import FrameType, ModuleType
from typing import Any

# discovery.include_paths: (include_path, include_defaults) -> (include_path, added)
IncludePaths = Callable[[Any, bool], tuple[Any, bool]]
_WRAPPED = "_inspect_culture_task_folder"


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


def add_task_folder(
    tasks_module: ModuleType, include_paths: IncludePaths, warn: Callable[[str], None]
) -> bool:
    """Give every `TaskManager` of `lm_eval.tasks` our task folder (discovery.py): its
    `__init__` is wrapped to pass `include_paths(include_path, include_defaults)` on; a failure
    there is passed to `warn` (discovery's one warning) and the manager is built as asked.
    lm-eval 0.4.12-0.4.13 reads no task entry points and has no hook to add a task folder; the
    constructor's public arguments are what we change. False when already wrapped."""
    manager = tasks_module.TaskManager
    original = manager.__init__
    if getattr(original, _WRAPPED, False):
        return False
    signature = inspect.signature(original)
    defaults = signature.parameters["include_defaults"].default

    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            bound = signature.bind(self, *args, **kwargs)
            given = bound.arguments.get("include_path")
            paths, added = include_paths(given, bound.arguments.get("include_defaults", defaults))
            if added:
                bound.arguments["include_path"] = paths
                args, kwargs = bound.args[1:], bound.kwargs
        except Exception as err:  # lm-eval runs on without our tasks, never fails for them
            warn(f"cannot add our task folder: {type(err).__name__}: {err}")
        original(self, *args, **kwargs)

    setattr(__init__, _WRAPPED, True)
    manager.__init__ = __init__
    return True

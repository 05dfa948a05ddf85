"""`lm_eval --tasks care_zh` with no `--include_path`: lm-eval 0.4.12-0.4.13 has no task plugins
(its task entry points are an open pull request, #4015), so the wheel ships a one-line `.pth`
(`discovery.pth` here, installed as `inspect_culture_lm_eval_tasks.pth` at the root of
site-packages) that puts a finder in front of `sys.meta_path`. The finder answers for the one
name `lm_eval.tasks`; every other import passes on after one comparison. At that first import
of `lm_eval.tasks` this module is imported, lm-eval's own module is loaded as usual, and
`TaskManager` is then given our task folder among its include paths (`compat.py`).

Order: lm-eval indexes its own tasks, then ours, then the caller's `include_path`; a later path
overrides an earlier one, so a user's own task of the same name wins, as it would under
lm-eval's proposed plugin order (built-ins, plugins, `--include_path`). A manager built with
`include_defaults=False` asked for its own paths only and gets nothing added.

`INSPECT_CULTURE_LM_EVAL_TASKS=0` turns it off. Nothing here may break lm-eval for the user's
other tasks: any failure gives one warning naming inspect-culture and the cause, and lm-eval
runs on without our tasks."""

from __future__ import annotations

import importlib.abc
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

from inspect_culture import lm_eval_tasks

ENV = "INSPECT_CULTURE_LM_EVAL_TASKS"
TARGET = "lm_eval.tasks"
PTH_NAME = "inspect_culture_lm_eval_tasks.pth"
# the finder the .pth installs carries this attribute; this module skips it when it looks for
# lm-eval's own module
MARKER = "_inspect_culture_lm_eval_tasks"
_warned: set[str] = set()


def warn_once(cause: str) -> None:
    """One line on stderr per cause and process, through `logging` as lm-eval's own warnings
    are (its command line formats them; a library caller sees Python's last-resort line)."""
    if cause in _warned:
        return
    _warned.add(cause)
    import logging

    logging.getLogger("inspect_culture").warning(
        "inspect-culture: lm-eval task discovery: %s (our tasks stay available with "
        '--include_path "$(culture-evals lm-eval-path)"; %s=0 turns discovery off)',
        cause,
        ENV,
    )


def enabled() -> bool:
    """Read at each TaskManager, so a caller can turn discovery off after lm-eval is imported."""
    value = os.environ.get(ENV, "").strip()
    if value in ("", "1"):
        return True
    if value == "0":
        return False
    warn_once(f"{ENV}={value!r} is not 0 or 1; discovery stays on")
    return True


def _covers(given: str | os.PathLike[str], folder: Path) -> bool:
    """Whether a caller's include path already indexes our folder (it or a folder above it)."""
    try:
        path = Path(given).expanduser().resolve()
    except (OSError, RuntimeError, TypeError, ValueError):
        return False
    return path == folder or path in folder.parents


def _unreadable(folder: Path) -> str | None:
    """Why lm-eval would index none or part of our folder: its glob skips what it cannot read
    without a word, and the symptom would be 'task not found'."""
    errors: list[OSError] = []
    for _ in os.walk(folder, onerror=errors.append):
        pass
    if not errors:
        return None
    first = errors[0]
    return f"cannot read {first.filename or folder}: {type(first).__name__}: {first.strerror}"


def include_paths(
    include_path: Any, include_defaults: bool, folder: Path | None = None
) -> tuple[Any, bool]:
    """The `include_path` to hand TaskManager, and whether ours was added. Ours goes first among
    the include paths (after lm-eval's defaults), so every path the caller gave overrides it."""
    folder = folder or lm_eval_tasks.include_path()
    if not include_defaults or not enabled():
        return include_path, False
    given: list[Any] = (
        []
        if include_path is None
        else list(include_path)
        if isinstance(include_path, (list, tuple))
        else [include_path]
    )
    if any(_covers(path, folder) for path in given):
        return include_path, False
    if not folder.is_dir():
        warn_once(f"our task folder {folder} is missing; reinstall inspect-culture")
        return include_path, False
    why = _unreadable(folder)
    if why and not os.access(folder, os.R_OK | os.X_OK):
        warn_once(why)
        return include_path, False
    if why:  # a part is unreadable: the rest still works
        warn_once(why)
    return [str(folder), *given], True


class _PatchingLoader(importlib.abc.Loader):
    """lm-eval's own loader for `lm_eval.tasks`, then the TaskManager patch. The module keeps its
    real loader (`__loader__`, `__spec__.loader`), so nothing else sees this one."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def __getattr__(self, name: str) -> Any:
        """What a caller of `importlib.util.find_spec` may ask the loader (`get_filename`...)."""
        return getattr(self.loader, name)

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        try:
            from inspect_culture.lm_eval_tasks import compat

            compat.add_task_folder(module, include_paths, warn_once)
        except Exception as err:  # never break lm-eval for the user's other tasks
            warn_once(f"cannot extend lm-eval's TaskManager: {type(err).__name__}: {err}")


def find_spec(
    finder: object, name: str, path: Sequence[str] | None, target: ModuleType | None = None
) -> ModuleSpec | None:
    """lm-eval's own spec for `lm_eval.tasks` (from the finders after ours), its loader wrapped."""
    if name != TARGET:
        return None
    for other in list(sys.meta_path):
        if other is finder or getattr(other, MARKER, False):
            continue
        find = getattr(other, "find_spec", None)
        spec = find(name, path, target) if find is not None else None
        if spec is not None:
            break
    else:
        return None
    if spec.loader is None or not hasattr(spec.loader, "exec_module"):
        return spec
    spec.loader = _PatchingLoader(spec.loader)
    return spec

"""The one check of a task's `--metadata` keys, used by every lm-eval loader.

lm-eval hands a task's loader one merged mapping: the task YAML's own `metadata:`, the keys
lm-eval adds itself (`config_source`), `--metadata` and, when `simple_evaluate` builds the task
manager or from the `lm_eval` command line, every `--model_args` entry too. The model arguments
are read back from the running `simple_evaluate` call, so what remains unknown is a mistake
and is refused with the list of known keys: a misspelt `per_categroy` would otherwise be
ignored and the run would not be the one asked for.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Iterable, Mapping
from types import FrameType
from typing import Any

from inspect_culture.lm_eval_tasks.judge.settings import JUDGE_KEYS, JudgeConfigError
from inspect_culture.registry import benchmarks

NEAR_MISS = 0.8  # difflib ratio above which an unknown key is taken for a misspelling
# Keys lm-eval itself puts into a task's metadata (tasks/_factory.py, api/task.py).
LM_EVAL_KEYS = frozenset({"version", "config_source", "config", "_metadata"})


def check_metadata_keys(
    task: str,
    metadata: Mapping[str, Any],
    *,
    options: Iterable[str] = (),
    yaml_metadata: Iterable[str] = (),
) -> None:
    """Refuse every key that is neither the task's, another of our tasks', nor a model
    argument, listing the known ones. `options`: the task's run options; `yaml_metadata`: its
    YAML's `metadata:` keys. One `--metadata` serves every task of a run (`--tasks
    normad,care_zh --metadata '{"per_category": 1}'`), so the judge keys and every benchmark's
    options are known to every task; a task reads only its own."""
    known = {*options, *yaml_metadata, *JUDGE_KEYS}
    model_arguments = model_argument_keys()
    for key in metadata:
        if key in known or key in LM_EVAL_KEYS or key in model_arguments:
            continue
        if key in any_task_options():
            continue
        close = difflib.get_close_matches(key, known | any_task_options(), n=1, cutoff=NEAR_MISS)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise JudgeConfigError(
            f"{task}: unknown --metadata key {key!r}{hint}. Known keys: {', '.join(sorted(known))}"
        )


def any_task_options() -> frozenset[str]:
    """The run options of every registered benchmark's lm-eval tasks (from the registry, so
    no other benchmark's module is imported)."""
    return frozenset(key for b in benchmarks() for key in b.lm_eval_options)


def model_argument_keys() -> frozenset[str]:
    """The `model_args` keys of the `lm_eval.evaluator.simple_evaluate` call now loading this
    task: lm-eval merges them into every task's metadata, so they are not ours to refuse.
    Outside such a call (a task manager built by hand) nothing was merged: empty."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if (
            frame.f_code.co_name == "simple_evaluate"
            and frame.f_globals.get("__name__") == "lm_eval.evaluator"
        ):
            model_args = frame.f_locals.get("model_args")
            if isinstance(model_args, str):
                from lm_eval.utils import simple_parse_args_string

                model_args = simple_parse_args_string(model_args)
            return frozenset(map(str, model_args if isinstance(model_args, dict) else ()))
        frame = frame.f_back
    return frozenset()

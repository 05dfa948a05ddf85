"""The one check of a task's `--metadata` keys: lm-eval merges the YAML's `metadata:`, its own
keys, `--metadata` and the model arguments, so a misspelt key would otherwise be ignored."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from inspect_culture.benchmark_registry import benchmarks
from inspect_culture.judging.jury import rating_rule
from inspect_culture.judging.options import (
    INSPECT_ONLY_KEYS,
    JUDGE_KEYS,
    REPEAT_KEYS,
    JudgeConfigError,
)
from inspect_culture.lm_eval_tasks.compat import simple_evaluate_call

NEAR_MISS = 0.8  # difflib ratio above which an unknown key is taken for a misspelling
# Keys lm-eval itself puts into a task's metadata (tasks/_factory.py, api/task.py).
LM_EVAL_KEYS = frozenset({"version", "config_source", "config", "_metadata"})
# The benchmark options a judged task reads when it judges (from its docs), not when it
# generates: `culture-evals judge` applies them to the saved docs, each with its check.
JUDGING_OPTIONS: dict[str, Callable[[Any], Any]] = {"jury_rule": rating_rule}
# Refused by the judge settings with their own reason (lm-eval writes --metadata to its results)
_REFUSED_THERE = ("judge_api_key",)


def check_metadata_keys(
    task: str,
    metadata: Mapping[str, Any],
    *,
    options: Iterable[str] = (),
    yaml_metadata: Iterable[str] = (),
) -> None:
    """Refuse a key that is neither this task's, another of our tasks' (one `--metadata` serves
    every task of a run), lm-eval's nor a model argument, listing the known ones."""
    known = {*options, *yaml_metadata, *JUDGE_KEYS, *REPEAT_KEYS}
    others = {key for b in benchmarks() for key in b.lm_eval_options}  # registry: no imports
    # the `model_args` of the `simple_evaluate` call loading this task: lm-eval merged them in
    model_args = (simple_evaluate_call() or {}).get("model_args")
    if isinstance(model_args, str):
        from lm_eval.utils import simple_parse_args_string

        model_args = simple_parse_args_string(model_args)
    model_keys = map(str, model_args if isinstance(model_args, dict) else ())
    accepted = known | others | LM_EVAL_KEYS | set(model_keys)
    for key in (k for k in metadata if k in INSPECT_ONLY_KEYS):  # it would do nothing here
        raise JudgeConfigError(
            f"{task}: {key} is a judge option of the Inspect tasks (-T {key}=...), not of "
            "lm-eval's --metadata, whose judge is judge_model at judge_base_url"
        )
    for key in (k for k in metadata if k not in accepted):
        raise JudgeConfigError(f"{task}: {unknown_key(key, known, others)}")


def unknown_key(key: str, known: Collection[str], others: Collection[str] = ()) -> str:
    """An unknown key in words: the known key it is likely a misspelling of, and the known ones."""
    close = difflib.get_close_matches(key, {*known, *others}, n=1, cutoff=NEAR_MISS)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"unknown --metadata key {key!r}{hint}. Known keys: {', '.join(sorted(known))}"


def check_judging_keys(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """`culture-evals judge --metadata`: every key is the judge's, re-judging's, `judge_later`
    (so a run's --metadata can be reused) or a judging option (returned, checked); a benchmark
    option that generation fixed, or an unknown key, is refused rather than ignored."""
    known = {*JUDGE_KEYS, *REPEAT_KEYS, *JUDGING_OPTIONS}
    fixed = {key for b in benchmarks() for key in b.lm_eval_options} - known
    for key in (k for k in metadata if k not in known and k not in _REFUSED_THERE):
        if key in fixed:
            raise JudgeConfigError(
                f"--metadata key {key!r} is fixed by the generation run being judged (its docs "
                "and prompts are in the samples files): run lm_eval again to change it. This "
                f"command takes: {', '.join(sorted(known))}"
            )
        raise JudgeConfigError(unknown_key(key, known, fixed))
    return {key: check(metadata[key]) for key, check in JUDGING_OPTIONS.items() if key in metadata}

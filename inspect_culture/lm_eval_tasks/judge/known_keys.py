"""The one check of a task's `--metadata` keys, used by every lm-eval loader.

lm-eval hands a task's loader one merged mapping: the task YAML's own `metadata:`, `--metadata`
and, from the `lm_eval` command line, every `--model_args` entry too. So a key that is not the
task's cannot simply be refused (it may be a model argument). What is refused: an unknown
`judge_*` key, and any key that looks like a misspelt known key (`per_categroy`), since either
would otherwise be silently ignored and the run would not be the one asked for.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from inspect_culture.lm_eval_tasks.judge.settings import JUDGE_KEYS, JudgeConfigError

NEAR_MISS = 0.8  # difflib ratio above which an unknown key is taken for a misspelling


def check_metadata_keys(
    task: str,
    metadata: Mapping[str, Any],
    *,
    options: Iterable[str] = (),
    yaml_metadata: Iterable[str] = (),
) -> None:
    """Refuse unknown judge keys and misspellings of known keys, listing the known ones.
    `options`: the task's run options; `yaml_metadata`: its YAML's `metadata:` keys. The judge
    keys are known to every task: one `--metadata` serves all tasks of a run, judged or not."""
    known = {*options, *yaml_metadata, *JUDGE_KEYS}
    for key in metadata:
        if key in known:
            continue
        close = difflib.get_close_matches(key, known, n=1, cutoff=NEAR_MISS)
        if key.startswith("judge_") or close:
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise JudgeConfigError(
                f"{task}: unknown --metadata key {key!r}{hint}. Known keys: "
                f"{', '.join(sorted(known))}"
            )

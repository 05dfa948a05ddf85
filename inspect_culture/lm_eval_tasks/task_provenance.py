"""Provenance recorded once per task, not per doc: each task's YAML declares an empty
`metadata.provenance` mapping, lm-eval hands that very mapping to `custom_dataset` (as a keyword
of `**metadata`), the loader fills it, and lm-eval writes it with the task's config into
`results_<ts>.json` (`configs.<task>.metadata.provenance`), where the report and `culture-evals
judge` read it (`run_files.lm_eval_outputs.task_provenance`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from inspect_culture.judging.options import JudgeConfigError

PROVENANCE = "provenance"
# A judged task's mappings its judging fills, after the run (lm-eval writes the config last):
# each judge's tokens and cost, and a jury's agreement (`judge/batch.py`)
JUDGE_COST, JURY_AGREEMENT = "judge_cost", "jury_agreement"
JUDGED_SLOTS = (JUDGE_COST, JURY_AGREEMENT)


def record_provenance(task: str, metadata: Mapping[str, Any], *parts: Mapping[str, Any]) -> None:
    """Fill the task's provenance mapping with `parts` (the loader's provenance mapping as a
    whole, so its new keys flow, then the task's own entries); nothing outside a task's load
    (no mapping given), a one-line error when `--metadata` set the key."""
    slot = metadata.get(PROVENANCE)
    if slot is None:
        return
    if not isinstance(slot, dict):
        raise JudgeConfigError(
            f"{task}: --metadata key {PROVENANCE!r} is written by the task itself (the data "
            "file's digest, rows, release and the prompt and parser versions); leave it out"
        )
    slot.clear()
    for part in parts:  # JSON values lm-eval can write as is (paths and other objects as text)
        slot.update(json.loads(json.dumps({str(k): v for k, v in part.items()}, default=str)))


def judged_slots(task: str, metadata: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The judged task's `JUDGED_SLOTS` mappings its YAML declared, for its filter to fill
    (none outside a task's load); a one-line error when `--metadata` set one."""
    slots: dict[str, dict[str, Any]] = {}
    for key in (k for k in JUDGED_SLOTS if k in metadata):
        if not isinstance(slot := metadata[key], dict):
            raise JudgeConfigError(
                f"{task}: --metadata key {key!r} is written by the task itself (what judging "
                "cost, and a jury's agreement); leave it out"
            )
        slots[key] = slot
    return slots

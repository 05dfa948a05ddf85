"""Every task this package offers, in both harnesses, with a one-line description.

`culture-evals list` prints this; tests check it against the Inspect registry and the lm-eval
YAMLs so it cannot go stale.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TaskEntry:
    harness: str  # "inspect" | "lm-eval"
    name: str
    description: str
    kind: str = "task"  # "task" | "group"


TASKS: tuple[TaskEntry, ...] = (
    TaskEntry(
        "inspect",
        "inspect_culture/normad",
        "NormAd-ETI yes/no/neutral etiquette judgments; -T context=rot|value_country|country|none "
        "-T parser=strict|upstream",
    ),
    TaskEntry("lm-eval", "normad_rot", "NormAd-ETI with the rule-of-thumb as context"),
    TaskEntry("lm-eval", "normad_value_country", "NormAd-ETI with the country and its value"),
    TaskEntry("lm-eval", "normad_country", "NormAd-ETI with the country only"),
    TaskEntry("lm-eval", "normad_none", "NormAd-ETI with no cultural context (baseline)"),
    TaskEntry("lm-eval", "normad", "NormAd-ETI, all four context settings", kind="group"),
)

"""CQ-Bench's tasks, parameter checks, settings, metrics and outcomes, for both harnesses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from inspect_culture.benchmarks.choices import (
    BenchmarkOptionError,
    check_bool,
    check_choice,
    check_fixed,
    check_int,
    option_errors,
)
from inspect_culture.benchmarks.spec_types import GenerationSettings, OutcomeRecord
from inspect_culture.judging.constraints import check_constraint

CATEGORIES: tuple[str, ...] = ("random", "political", "social", "religious", "ethical", "multiple")
# the categories with value-selection and story (value-extraction) files: all but `multiple`
STORY_CATEGORIES: tuple[str, ...] = CATEGORIES[:-1]

BENCHMARK = "CQ-Bench"
# Bump whenever prompts, parsers or metrics change; each bump's reason: docs/cqbench.md.
TASK_VERSION = 4
PROMPT_VERSION = "cqbench-prompts-3"  # prompt_texts/ and the VE judge prompt's neutralising
PARSER_VERSION = "cqbench-match-4"  # parse.py: AD option matcher, VS selections, VE verdicts

# Upstream's (the paper is silent): reasoning answers need the room; both VE steps alike.
GENERATION = GenerationSettings(temperature=0.8, max_tokens=4096)

SETTINGS: dict[str, tuple[str, ...]] = {
    "ad": CATEGORIES,
    "vs": STORY_CATEGORIES,
    "ve": STORY_CATEGORIES,
}
FIDELITIES: tuple[str, ...] = ("paper", "upstream")
SHOTS: tuple[int, ...] = (0, 1)
# The parameters each task takes besides its setting (recorded in the run's metadata).
TASK_PARAMETERS: dict[str, tuple[str, ...]] = {
    "ad": ("reasoning", "shots", "merged", "prompt_fidelity"),
    "vs": ("reasoning", "shots", "prompt_fidelity", "skip_empty"),
    "ve": ("self_grade", "judge_constraint"),
}


@dataclass(frozen=True)
class Params:
    """One run's checked parameters; those its task does not take keep their defaults."""

    task: str
    setting: str = "random"
    reasoning: bool = False
    shots: int = 0
    merged: bool = False
    prompt_fidelity: str = "paper"
    skip_empty: bool = False
    self_grade: bool = False
    judge_constraint: str = "none"

    def record(self) -> dict[str, object]:
        names = ("task", "setting", *TASK_PARAMETERS[self.task])
        return {name: getattr(self, name) for name in names}


_CHECKS = {
    **dict.fromkeys(("reasoning", "merged", "skip_empty", "self_grade"), check_bool),
    "shots": lambda name, value: int(check_choice(name, check_int(name, value), SHOTS)),
    "prompt_fidelity": lambda name, value: check_choice(name, value, FIDELITIES),
    "judge_constraint": lambda name, value: check_constraint(value),
}


def _convert(name: str, value: object) -> object:
    """A parameter as its check converts it (`"true"` -> True); unchecked ones as given."""
    check = _CHECKS.get(name)
    return check(name, value) if check else value


@option_errors()
def validate(
    task: str, params: Mapping[str, object], fixed: Mapping[str, object] | None = None
) -> Params:
    """`params`: Inspect's or `--metadata`; `fixed`: an lm-eval task name's, not to be relabelled."""
    check_choice("task", task, SETTINGS)
    fixed = {name: _convert(name, value) for name, value in (fixed or {}).items()}
    # compare converted values: `--metadata '{"reasoning": "true"}'` on a reasoning task agrees
    named = {name: _convert(name, params[name]) for name in fixed if name in params}
    check_fixed(f"cqbench_{task}", named, **fixed)
    given = {**params, **fixed}
    checked = {name: _convert(name, given[name]) for name in TASK_PARAMETERS[task] if name in given}
    if given.get("setting") == "human":  # upstream's README and scripts name it
        raise BenchmarkOptionError(
            "setting='human': upstream's `human` files are the stories its authors sampled for "
            "their own human evaluation, not a category of the paper's results, and they are not "
            f"in the released data this release reads; use one of {', '.join(SETTINGS[task])}"
        )
    setting = check_choice("setting", given.get("setting", "random"), SETTINGS[task])
    result = Params(task, setting, **checked)  # type: ignore[arg-type]
    # Only upstream's reasoning prompts have demonstrations: never run zero-shot silently.
    if result.shots == 1 and not result.reasoning:
        raise BenchmarkOptionError(
            "shots=1 needs reasoning=true: upstream has one-shot demonstrations only for the "
            "reasoning prompts"
        )
    if result.shots == 1 and setting == "multiple":
        raise BenchmarkOptionError(
            "shots=1 is not available for setting=multiple: upstream's multiple-attitude prompt "
            "has no demonstration"
        )
    return result


# lm-eval's table (VE step 2 adds step 1's left-out stories); per category: `culture-evals report`
HEADLINE_METRICS: dict[str, tuple[str, ...]] = {
    "ad": ("accuracy", "macro_f1", "unparsed_rate"),
    "vs": ("precision", "recall", "f1", "mean_story_f1", "empty_rate", "n_stories"),
    "ve_summary": ("empty_summary_rate",),  # lm-eval runs VE as two tasks: step 1's metric
    "ve": ("recall", "n_scored", "n_unscored", "stories_without_summary"),
}
# lm-eval only: Inspect's count would miss a wholly unscored story's values (an unscored sample
# outside the metric), so its VE metric omits the name rather than differ.
UNSCORED_COUNTS: tuple[str, ...] = ("n_unscored",)
JURY_VOTES = "interval"  # VE's per-value scores (0, 0.5, 1) agree by Krippendorff's alpha
# what each family's lm-eval group averages over its settings
GROUP_METRICS = {"ad": "accuracy", "vs": "f1", "ve": "recall"}
LOWER_IS_BETTER: frozenset[str] = frozenset(
    {"unparsed_rate", "empty_rate", "n_unscored", "stories_without_summary", "empty_summary_rate"}
)


@dataclass(frozen=True)
class AdOutcome(OutcomeRecord):
    """One attitude-detection answer."""

    sample_id: str  # the question: its epochs share it
    category: str
    gold: str  # normalized
    pred: str | None  # normalized effective prediction; None = unparsed


@dataclass(frozen=True)
class VsOutcome(OutcomeRecord):
    """One value-selection story."""

    sample_id: str
    category: str
    precision: float
    recall: float
    empty: bool  # the output named no option
    skipped: bool = False  # empty and left out of the means (upstream's skip_empty)

    @property
    def f1(self) -> float:
        return f1_score(self.precision, self.recall)


def f1_score(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


@dataclass(frozen=True)
class VeOutcome(OutcomeRecord):
    """One value-extraction story: the judge's score of each gold value."""

    sample_id: str
    category: str
    value_scores: tuple[float | None, ...]  # 1 / 0.5 / 0; None = unscored

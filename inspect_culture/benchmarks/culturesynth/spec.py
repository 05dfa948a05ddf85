"""CultureSynth-7 spec for both adapters; the languages and topics are the loader's (`data`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from inspect_culture.benchmarks.choices import check_bool, check_fixed, check_int, option_errors
from inspect_culture.benchmarks.culturesynth.data import (
    LANGUAGES,
    TOPICS,
    check_languages,
    normalize_topic,
)
from inspect_culture.benchmarks.spec_types import (
    OMITTED_WHEN_DEFAULT,
    GenerationSettings,
    OutcomeRecord,
)

BENCHMARK = "CultureSynth-7"
# Bump whenever the prompts, the parser or the metrics change; each bump: docs/culturesynth.md.
TASK_VERSION = 4
JUDGE_PROMPT_VERSION = "culturesynth-judge-3"
PAIRWISE_PARSER_VERSION = "pairwise-2"

# The paper states none: greedy, so a baseline run is reproducible, for target and baseline alike.
GENERATION = GenerationSettings(temperature=0.0, max_tokens=2048)

# Reason of a question whose baseline answer is missing: reported, never judged or dropped.
MISSING_BASELINE = "no baseline answer for this question"
# Unscored questions: lm-eval reports these; Inspect counts them in `unscored_samples`.
UNSCORED_COUNTS = ("n_unscored", "n_missing_baseline")
# a jury's verdicts per game agree by Fleiss' kappa; each judge's mean outcome as a net win rate
JURY_VOTES = "nominal"
JURY_SCALE = 100.0
LOWER_IS_BETTER = frozenset({*UNSCORED_COUNTS, "loss_rate"})
# lm-eval's table; per language and topic, the rest is `culture-evals report`'s
HEADLINE_METRICS = (
    "n_scored", *UNSCORED_COUNTS, "net_win_rate", "net_win_rate_ci_low", "net_win_rate_ci_high",
    "weighted_average",
)  # fmt: skip
# The answers-only tasks' one metric (lm-eval): the share of questions with a non-empty answer.
ANSWERED = "answered"
GROUP_METRIC = "net_win_rate"  # what the lm-eval group averages over the languages
# What lm-eval's judged tasks read from `--metadata` (the judge's are lm_eval_tasks/judge's).
LM_EVAL_PARAMS = ("swap", "seed")
_ANY: Any = object()


@dataclass(frozen=True)
class Settings:
    languages: tuple[str, ...] | None  # None = all seven
    swap: bool
    seed: int


@option_errors()
def validate(
    language: object = None,
    swap: object = True,
    seed: object = 0,
    task_language: str | None = _ANY,
) -> Settings:
    """`language`: codes or names, comma-separated, or None (all); may only repeat lm-eval's."""
    if task_language is not _ANY:
        task = f"culturesynth_{task_language or 'all'}"
        check_fixed(task, {"language": language}, language=task_language)
    return Settings(
        languages=_languages(language),
        swap=check_bool("swap", swap),
        seed=check_int("seed", seed),
    )


def _languages(language: object) -> tuple[str, ...] | None:
    if language is None or not str(language).strip():
        return None
    return tuple(sorted(check_languages(str(language), "language") or (), key=LANGUAGES.index))


@dataclass(frozen=True)
class PairOutcome(OutcomeRecord):
    """One judged question (one epoch of it) as the metrics see it, from the target's side."""

    question_id: str  # the sample id: epochs of one question are averaged first
    outcome: int | None  # +1 target better, -1 baseline better, 0 tie; None = unscored
    language: str
    topic: str  # Table 10 primary-topic name or abbreviation
    consistent: bool | None  # both orders agree; None for a single game, or when unscored
    reason: str | None  # why unscored
    seed: int  # of the answer-order coin; the bootstrap is seeded alike in both harnesses
    # each judging's outcome when re-judged (`judging/repeats.py`); not stored otherwise
    judgments: tuple[float | None, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)


def language_slug(language: str) -> str:
    return language.strip().lower()


def topic_slug(topic: str) -> str:
    """The lower-cased Table 10 abbreviation of a known topic, else a plain slug."""
    if (name := normalize_topic(topic)) is not None:
        return TOPICS[name].lower()
    return re.sub(r"[^0-9a-z]+", "_", topic.strip().lower()).strip("_") or "unknown"

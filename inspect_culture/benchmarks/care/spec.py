"""CARE's checks, settings, metrics and outcomes, read by both adapters."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from inspect_culture.benchmarks.choices import check_choice, option_errors
from inspect_culture.benchmarks.spec_types import (
    OMITTED_WHEN_DEFAULT,
    GenerationSettings,
    OutcomeRecord,
)
from inspect_culture.judging.defaults import DEFAULT_MAX_TOKENS, DEFAULT_SEED
from inspect_culture.judging.jury import DEFAULT_RATING_RULE, RATING_RULES

# Bump whenever prompts, parsers or metrics change; each bump's reason: docs/care.md.
TASK_VERSION = 4
JUDGE_PROMPT_VERSION = "care-judge-3"
RATING_PARSER_VERSION = "rating-2"
# Stored with every judged sample, in both harnesses.
JUDGE_VERSIONS = {
    "judge_prompt_version": JUDGE_PROMPT_VERSION,
    "rating_parser_version": RATING_PARSER_VERSION,
}

CARE_LANGUAGES: tuple[str, ...] = ("zh", "ar", "ja")  # names: datasets_hub.languages
PROMPTINGS: tuple[str, ...] = ("zero_shot", "cot", "role_play")
PROMPTING_LABELS = {"zero_shot": "zero-shot", "cot": "CoT", "role_play": "role-play"}
BENCHMARK = "CARE"
JUDGE_MAPPINGS: tuple[str, ...] = ("paper", "upstream")
DEFAULT_JUDGE_MAPPING = "paper"  # rubric by content (docs/care.md)


class Category(NamedTuple):
    slug: str  # in ids, metric names and the judge mapping
    upstream: str  # `culture_type` of the test sets, `cul_type` of the human ratings
    rubric_file: str  # the upstream judge file *named* for it (docs/care.md: names vs contents)


# The one category list (paper order); the JSON schemas' enums are tested against it.
CATEGORIES: tuple[Category, ...] = (
    Category("entities", "Cultural entities", "entities_opinion.txt"),
    Category("opinion", "Opinion", "entities_opinion.txt"),
    Category("norms", "Social norms", "norms_commonsense.txt"),
    Category("commonsense", "Cultural commonsense", "norms_commonsense.txt"),
    Category("literacy", "Literacy", "literacy.txt"),
)
CATEGORY_SLUGS: tuple[str, ...] = tuple(c.slug for c in CATEGORIES)
SLUG_BY_UPSTREAM: dict[str, str] = {c.upstream: c.slug for c in CATEGORIES}

# Paper App. B: temperature 0.7, top_p 1, max_tokens 1024.
GENERATION = GenerationSettings(temperature=0.7, max_tokens=1024, top_p=1.0)
# care_judge_agreement: the evaluated model is the judge: greedy, the judge seed and the judge's
# reply cap (`judging/defaults.py`), in both harnesses
AGREEMENT_SETTINGS = GenerationSettings(temperature=0.0, max_tokens=DEFAULT_MAX_TOKENS)
AGREEMENT_GENERATION: dict[str, Any] = {**AGREEMENT_SETTINGS.inspect_config(), "seed": DEFAULT_SEED}
# care_judge_agreement's own version: 2 capped the judge's reply at DEFAULT_MAX_TOKENS and added
# the correlations' bootstrap intervals (docs/care.md)
AGREEMENT_VERSION = 2


class CareOptions(NamedTuple):
    language: str
    prompting: str
    judge_mapping: str
    jury_rule: str


@option_errors()
def validate(
    language: str = "zh",
    prompting: str = "zero_shot",
    judge_mapping: str = DEFAULT_JUDGE_MAPPING,
    jury_rule: str = DEFAULT_RATING_RULE,
) -> CareOptions:
    """Every task parameter, checked once for both harnesses; ValueError names allowed values."""
    return CareOptions(
        language=check_choice("language", language, CARE_LANGUAGES),
        prompting=check_choice("prompting", prompting, PROMPTINGS),
        judge_mapping=check_choice("judge_mapping", judge_mapping, JUDGE_MAPPINGS),
        jury_rule=check_choice("jury_rule", jury_rule, RATING_RULES),
    )


@option_errors()
def validate_agreement(language: str | None, judge_mapping: str) -> None:
    """care_judge_agreement: one language, or None for every rated response."""
    if language is not None:
        check_choice("language", language, CARE_LANGUAGES)
    check_choice("judge_mapping", judge_mapping, JUDGE_MAPPINGS)


def task_name(language: str, prompting: str) -> str:
    """The lm-eval task: care_zh, care_zh_cot, care_zh_role_play, ..."""
    return f"care_{language}" + ("" if prompting == "zero_shot" else f"_{prompting}")


# lm-eval's table; per-category and per-scope ratings are `culture-evals report`'s
HEADLINE_METRICS = (
    "n_scored", "n_unscored", "unscored_rate", "rating", "rating_ci_low", "rating_ci_high",
)  # fmt: skip
# Lower is better; only lm-eval reports them (Inspect counts `unscored_samples` itself).
UNSCORED_COUNTS: tuple[str, ...] = ("n_unscored", "unscored_rate")
JURY_VOTES = (
    "interval"  # a jury's ratings agree by Krippendorff's alpha (judging/jury_agreement.py)
)
GROUP_METRIC = "rating"  # what the lm-eval group averages over the languages


@dataclass(frozen=True)
class CareOutcome(OutcomeRecord):
    """One judged answer; `rating` None = unscored (the judge failed or gave no verdict)."""

    question_id: str  # an epoch of a question is not another question
    rating: float | None
    category: str
    geographic_scope: str
    # each judging's rating when re-judged (`judging/repeats.py`); not stored otherwise
    judgments: tuple[float | None, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)

    @classmethod
    def judged(
        cls, question_id: str, record: Mapping[str, Any], rating: float | None
    ) -> CareOutcome:
        """From a CARE record (an lm-eval doc, or an Inspect sample's metadata)."""
        return cls(str(question_id), rating, record["category"], record["geographic_scope"])


@dataclass(frozen=True)
class AgreementOutcome(OutcomeRecord):
    """One judge rating of a human-rated response (`care_judge_agreement`)."""

    question_id: str
    judge_rating: float | None
    human_rating: float
    category: str

    @classmethod
    def judged(
        cls, question_id: str, record: Mapping[str, Any], rating: float | None
    ) -> AgreementOutcome:
        return cls(str(question_id), rating, record["human_rating"], record["category"])

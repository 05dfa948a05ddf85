"""NormAd-ETI's contexts, parsers, checks, settings, metrics and outcome, for both harnesses."""

from __future__ import annotations

from dataclasses import dataclass

from inspect_culture.benchmarks.choices import BenchmarkOptionError, check_choice, option_errors
from inspect_culture.benchmarks.normad.source import NORMAD
from inspect_culture.benchmarks.spec_types import GenerationSettings, OutcomeRecord

BENCHMARK = "NormAd-ETI"
# Bump whenever prompts, parsers or metrics change; each bump's reason: docs/normad.md.
TASK_VERSION = 2
PARSER_VERSION = "normad-parse-1"

CONTEXTS: tuple[str, ...] = ("rot", "value_country", "country", "none")
# context -> upstream `--conditioning` name
UPSTREAM_CONDITIONING = dict(rot="rot", value_country="cval", country="country", none="none")
PARSERS: tuple[str, ...] = ("strict", "upstream")
DEFAULT_PARSER = "strict"
LABELS: tuple[str, ...] = ("yes", "no", "neutral")

# The paper's temperature 0 (the code sampled at 1e-3) and upstream's 50 new tokens (20 for 70B).
GENERATION = GenerationSettings(temperature=0.0, max_tokens=50)

# Record fields an Inspect sample carries: what scoring reads, plus the raw subaxis for transcripts.
SAMPLE_FIELDS: tuple[str, ...] = ("gold_label", "iw_cluster", "subcategory", "country", "subaxis")

# lm-eval's table; the breakdowns are `culture-evals report`'s (from the outcome records)
HEADLINE_METRICS = ("accuracy", "macro_f1", "unparsed_rate", "accuracy_ci_low", "accuracy_ci_high")
LOWER_IS_BETTER: frozenset[str] = frozenset({"unparsed_rate"})
# what the lm-eval group averages over the four contexts (unweighted)
GROUP_METRICS = ("accuracy", "macro_f1")
# accuracy_<prefix>_<group>: prefix -> outcome field
BREAKDOWNS = {"iw": "iw_cluster", "subcategory": "subcategory", "country": "country"}


@option_errors()
def validate(
    *, context: str | None = None, parser: str | None = None, dataset_revision: str | None = None
) -> None:
    """Both adapters' checks of what is given (lm-eval also calls `check_fixed`)."""
    if context is not None:
        check_choice("context", context, CONTEXTS)
    if parser is not None:
        check_choice("parser", parser, PARSERS)
    if dataset_revision is not None and dataset_revision != NORMAD.revision:
        raise BenchmarkOptionError(
            f"dataset_revision={dataset_revision!r}: this release reads NormAd at revision "
            f"{NORMAD.revision} only"
        )


@dataclass(frozen=True)
class NormadOutcome(OutcomeRecord):
    sample_id: str  # the question: its epochs share it
    gold: str
    pred: str | None  # None = unparsed
    rule: str  # the parser rule that decided, for transcripts
    iw_cluster: str
    subcategory: str
    country: str

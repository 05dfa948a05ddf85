"""Score one NormAd answer: the single per-sample function both harness adapters call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_culture.scorers.normad_metrics import NormadOutcome
from inspect_culture.scorers.normad_parsing import ParsedAnswer, parse_answer


def score_normad_answer(
    record: Mapping[str, Any], completion: str | None, parser: str = "strict"
) -> tuple[ParsedAnswer, NormadOutcome]:
    parsed = parse_answer(completion, parser)
    outcome = NormadOutcome(
        gold=record["gold_label"],
        pred=parsed.label,
        iw_cluster=record["iw_cluster"],
        subcategory=record["subcategory"],
        country=record["country"],
    )
    return parsed, outcome

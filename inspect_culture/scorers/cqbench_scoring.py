"""Score one CQ-Bench output (AD question, VS story or VE judgement): the per-sample functions
both harness adapters call."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from inspect_culture.scorers.cqbench_matching import (
    effective_prediction,
    extract_ad_answer,
    match_option,
    normalize,
)
from inspect_culture.scorers.cqbench_metrics import (
    AdOutcome,
    VsStory,
    parse_ve_judgement,
    score_vs_story,
)

_FINAL_ANSWER = re.compile(r"\[?\s*final answer\s*\]?\s*:?", re.IGNORECASE)


def score_ad(
    record: Mapping[str, Any], completion: str | None, merged: bool = False
) -> tuple[str | None, str, AdOutcome]:
    """(matched option, rule, outcome)."""
    option, rule = match_option(extract_ad_answer(completion), record["options"])
    pred = effective_prediction(option, record["gold"], merged)
    return option, rule, AdOutcome(normalize(record["gold"]), pred, record["category"])


def vs_answer_text(completion: str | None) -> str:
    """The text after the first `[Final answer]:` if present, else after `</think>`, else all."""
    text = completion or ""
    match = _FINAL_ANSWER.search(text)
    if match:
        return text[match.end() :]
    if "</think>" in text:
        return text.split("</think>", 1)[1]
    return text


def score_vs(record: Mapping[str, Any], completion: str | None) -> VsStory:
    return score_vs_story(
        vs_answer_text(completion), record["options"], record["gold_values"], record["category"]
    )


def ve_prediction(completion: str | None) -> str:
    """The text after the first `[Final answer]:`; upstream sends "None" when it is absent."""
    text = completion or ""
    return text.split("[Final answer]:", 1)[1].strip() if "[Final answer]:" in text else "None"


def ve_value_scores(reply: str | None, error: str | None, n_values: int) -> list[float | None]:
    """Per-gold-value scores of one judge reply; a failed judge call leaves every value unscored."""
    return [None] * n_values if error else parse_ve_judgement(reply, n_values)

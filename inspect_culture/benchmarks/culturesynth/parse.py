"""CultureSynth-7 verdicts (`[[A]]`/`[[B]]`/`[[C]]`) to game and question outcomes (paper §5.1)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from inspect_culture.benchmarks.culturesynth.prompts import Position, check_position
from inspect_culture.benchmarks.culturesynth.spec import (
    JUDGE_PROMPT_VERSION,
    MISSING_BASELINE,
    PAIRWISE_PARSER_VERSION,
    PairOutcome,
)

Verdict = Literal["A", "B", "C"]

# Exact tokens only, as the prompt asks for them.
_VERDICT = re.compile(r"\[\[([ABC])\]\]")
NO_VERDICT = "no [[A]], [[B]] or [[C]] verdict in the judge output"
AMBIGUOUS = "ambiguous verdict"


def read_pairwise_verdict(text: str | None) -> tuple[Verdict | None, str | None]:
    """(verdict, None) or (None, why); two different tokens are ambiguous (a planted one)."""
    distinct = sorted(set(_VERDICT.findall(text or "")))
    if not distinct:
        return None, NO_VERDICT
    if len(distinct) > 1:
        shown = ", ".join(f"[[{v}]]" for v in distinct)
        return None, f"{AMBIGUOUS}: the judge output has different verdicts ({shown})"
    return distinct[0], None  # type: ignore[return-value]


def game_outcome(verdict: Verdict | None, target_position: Position) -> int | None:
    """+1 target better, -1 baseline better, 0 tie ([[C]]), None when there is no verdict."""
    check_position(target_position)
    if verdict is None:
        return None
    if verdict == "C":
        return 0
    return 1 if verdict == target_position else -1


@dataclass(frozen=True)
class PairJudgement:
    outcome: int | None  # None = unscored
    consistent: bool | None  # None for a single game, or when unscored
    reason: str | None = None  # why unscored
    game_outcomes: tuple[int | None, ...] = ()
    provenance: dict[str, Any] = field(default_factory=dict)

    def record(self, question_id: str, language: str, topic: str, seed: int) -> PairOutcome:
        return PairOutcome(
            question_id, self.outcome, language, topic, self.consistent, self.reason, seed
        )


def missing_baseline(reason: str | None = None) -> PairJudgement:
    """A question without a baseline answer: unscored and reported, never judged or dropped."""
    return PairJudgement(None, None, reason or MISSING_BASELINE)


def combine_swapped(target_as_a: int | None, target_as_b: int | None) -> PairJudgement:
    """Orders differing: inconsistent tie (Zheng et al. 2023); one unscored: unscored (biased)."""
    games = (target_as_a, target_as_b)
    if missing := [pos for pos, outcome in zip("AB", games) if outcome is None]:
        where = " and ".join(f"target as {pos}" for pos in missing)
        return PairJudgement(None, None, f"{NO_VERDICT} ({where})", games)
    if target_as_a == target_as_b:
        return PairJudgement(target_as_a, True, None, games)
    return PairJudgement(0, False, None, games)


def judge_games(
    judge_texts: Sequence[str | None],
    target_positions: Sequence[Position],
    errors: Sequence[str | None] | None = None,
) -> PairJudgement:
    """The question's result from its games' judge outputs (in `target_positions` order)."""
    if len(judge_texts) != len(target_positions) or len(target_positions) not in (1, 2):
        raise ValueError("expected one game, or two games (target as A, then as B)")
    errors = list(errors) if errors is not None else [None] * len(judge_texts)
    provenance = {
        "judge_prompt_version": JUDGE_PROMPT_VERSION,
        "pairwise_parser_version": PAIRWISE_PARSER_VERSION,
        "target_positions": list(target_positions),
    }
    outcomes: list[int | None] = []
    reasons: list[str] = []
    for text, error, pos in zip(judge_texts, errors, target_positions):
        verdict, why = (None, error) if error else read_pairwise_verdict(text)
        outcomes.append(game_outcome(verdict, pos))
        if outcomes[-1] is None:
            reasons.append(f"{why or NO_VERDICT} (target as {pos})")
    reason = "; ".join(reasons) or None
    if len(target_positions) == 1:
        return PairJudgement(outcomes[0], None, reason, tuple(outcomes), provenance)
    if tuple(target_positions) != ("A", "B"):
        raise ValueError(f"swapped games must be (A, B), got {tuple(target_positions)}")
    return replace(combine_swapped(*outcomes), reason=reason, provenance=provenance)

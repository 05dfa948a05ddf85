"""CultureSynth-7 pairwise judging: verdict parsing, answer order, per-question outcome (shared by
both harnesses).

A game is one judge call with the target's answer in position A or B. The outcome is seen from
the target: +1 target better, -1 baseline better, 0 tie (paper §5.1). `swap=True` (default)
plays both orders to cancel position bias; `swap=False` plays one order picked by a seeded coin
per question, the paper-literal single game.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from inspect_culture.datasets_hub.culturesynth import TOPICS as TOPIC_NAMES
from inspect_culture.scorers.culturesynth_prompts import JUDGE_PROMPT_VERSION, judge_messages

Position = Literal["A", "B"]
Verdict = Literal["A", "B", "C"]

PAIRWISE_PARSER_VERSION = "pairwise-1"

# Paper Table 10, keyed by abbreviation (the data layer keys by name).
TOPICS: dict[str, str] = {abbr: name for name, abbr in TOPIC_NAMES.items()}
TOPIC_ABBRS: tuple[str, ...] = tuple(TOPICS)
_TOPIC_BY_NAME = {name.lower(): abbr for abbr, name in TOPICS.items()}

# Exact tokens only, as the prompt asks for them.
_VERDICT = re.compile(r"\[\[([ABC])\]\]")
NO_VERDICT = "no [[A]], [[B]] or [[C]] verdict in the judge output"
# Reason of a question whose baseline answer is missing: reported, never judged or dropped.
MISSING_BASELINE = "no baseline answer for this question"


def parse_pairwise_verdict(text: str | None) -> Verdict | None:
    """The last `[[A]]`, `[[B]]` or `[[C]]` in the judge's output, else None (unscored).

    The last one, because judges often restate the format ("[[A]] if ...") before deciding.
    """
    if not text:
        return None
    matches = _VERDICT.findall(text)
    return matches[-1] if matches else None  # type: ignore[return-value]


def coin_target_position(question_id: str, seed: int = 0) -> Position:
    """Where the target's answer goes in a single game: a seeded coin per question.

    sha256 of f"{seed}:{question_id}", not `hash()` (salted per process) nor global random
    state, so every harness and every rerun picks the same order."""
    digest = hashlib.sha256(f"{seed}:{question_id}".encode()).digest()
    return "A" if digest[0] % 2 == 0 else "B"


def game_positions(question_id: str, *, swap: bool = True, seed: int = 0) -> tuple[Position, ...]:
    """The target's position in each game to play: ("A", "B") with swap, else the coin's."""
    return ("A", "B") if swap else (coin_target_position(question_id, seed),)


def ordered_answers(target: str, baseline: str, target_position: Position) -> tuple[str, str]:
    """(answer_a, answer_b) for a game."""
    _check_position(target_position)
    return (target, baseline) if target_position == "A" else (baseline, target)


def game_prompts(
    question: str, reference: str, target: str, baseline: str, positions: Sequence[Position]
) -> list[list[dict[str, str]]]:
    """The judge messages of each game, in the order of `positions` (both harnesses)."""
    return [
        judge_messages(question, reference, *ordered_answers(target, baseline, position))
        for position in positions
    ]


def game_outcome(verdict: Verdict | None, target_position: Position) -> int | None:
    """+1 target better, -1 baseline better, 0 tie ([[C]]), None when there is no verdict."""
    _check_position(target_position)
    if verdict is None:
        return None
    if verdict == "C":
        return 0
    return 1 if verdict == target_position else -1


@dataclass(frozen=True)
class PairJudgement:
    """One question's judged result before it is tagged with language and topic."""

    outcome: int | None  # None = unscored
    consistent: bool | None  # None for a single game, or when unscored
    reason: str | None = None  # why unscored
    game_outcomes: tuple[int | None, ...] = ()
    provenance: dict[str, Any] = field(default_factory=dict)


def combine_swapped(target_as_a: int | None, target_as_b: int | None) -> PairJudgement:
    """Both orders of one question, each outcome already seen from the target.

    Equal outcomes: that outcome, consistent. Different outcomes: 0 (tie), inconsistent; a
    verdict that flips with the order reflects the position, not the answers (as in Zheng et
    al. 2023). Either game unscored: the question is unscored, never half-counted, because a
    single surviving game would reintroduce the position bias the swap exists to cancel.
    """
    games = (target_as_a, target_as_b)
    missing = [pos for pos, outcome in zip("AB", games) if outcome is None]
    if missing:
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
    """Judge outputs of the games of `game_positions` (same order) -> the question's result.

    A game whose call failed (`errors[i]` set) or whose output has no verdict is unscored."""
    if len(judge_texts) != len(target_positions) or len(target_positions) not in (1, 2):
        raise ValueError("expected one game, or two games (target as A, then as B)")
    for pos in target_positions:
        _check_position(pos)
    errors = list(errors) if errors is not None else [None] * len(judge_texts)
    provenance = {
        "judge_prompt_version": JUDGE_PROMPT_VERSION,
        "pairwise_parser_version": PAIRWISE_PARSER_VERSION,
        "target_positions": list(target_positions),
    }
    outcomes = tuple(
        None if error else game_outcome(parse_pairwise_verdict(text), pos)
        for text, pos, error in zip(judge_texts, target_positions, errors)
    )
    reasons = [
        f"{error or NO_VERDICT} (target as {pos})"
        for outcome, pos, error in zip(outcomes, target_positions, errors)
        if outcome is None
    ]
    reason = "; ".join(reasons) or None
    if len(target_positions) == 1:
        return PairJudgement(outcomes[0], None, reason, outcomes, provenance)
    if tuple(target_positions) != ("A", "B"):
        raise ValueError(f"swapped games must be (A, B), got {tuple(target_positions)}")
    combined = combine_swapped(*outcomes)
    return PairJudgement(
        combined.outcome, combined.consistent, reason, combined.game_outcomes, provenance
    )


@dataclass(frozen=True)
class PairOutcome:
    """One question's result as the metrics see it; `as_tuple` holds only JSON-able values
    (lm-eval passes per-item results to its aggregation)."""

    outcome: int | None  # +1 / 0 / -1, None = unscored
    language: str
    topic: str  # Table 10 abbreviation or primary-topic name
    consistent: bool | None = None  # None = single game or unscored
    reason: str | None = None

    def as_tuple(self) -> tuple[int | None, str, str, bool | None, str | None]:
        return (self.outcome, self.language, self.topic, self.consistent, self.reason)

    @classmethod
    def from_tuple(cls, values: Sequence[Any]) -> PairOutcome:
        outcome, language, topic, consistent, reason = values
        return cls(outcome, language, topic, consistent, reason)

    @classmethod
    def from_judgement(cls, judgement: PairJudgement, language: str, topic: str) -> PairOutcome:
        return cls(judgement.outcome, language, topic, judgement.consistent, judgement.reason)


def topic_slug(topic: str) -> str:
    """Lower-cased Table 10 abbreviation for a known abbreviation or name, else a plain slug
    (the dataset's field values are not verified, so unknown topics still get a metric)."""
    cleaned = topic.strip()
    if cleaned.upper() in TOPICS:
        return cleaned.lower()
    abbr = _TOPIC_BY_NAME.get(cleaned.lower())
    if abbr:
        return abbr.lower()
    return re.sub(r"[^0-9a-z]+", "_", cleaned.lower()).strip("_") or "unknown"


def language_slug(language: str) -> str:
    return language.strip().lower()


def _check_position(position: str) -> None:
    if position not in ("A", "B"):
        raise ValueError(f"target_position={position!r} must be 'A' or 'B'")

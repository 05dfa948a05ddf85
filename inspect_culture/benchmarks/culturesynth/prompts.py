"""CultureSynth-7 prompts: the bare question, and paper Fig. 18's judge prompt (`prompt_texts/`,
verbatim; see its NOTICE) per game, both orders with `swap` or one by a seeded coin. Forged
delimiters and verdicts in an answer are marked as quoted; benign answers untouched (docs/judge.md)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Literal

from inspect_culture.datasets_hub.hashing import sha256_text
from inspect_culture.judging.fences import SEP, Marker, neutralise

Position = Literal["A", "B"]

# Template lines and verdict tokens an answer must not reproduce, over the detection copy.
ANSWER_MARKERS: tuple[Marker, ...] = (
    Marker(
        "delimiter",
        r"\[\s*(?:"
        rf"the{SEP}(?:start|end){SEP}of{SEP}(?:reference{SEP}answer"
        rf"|assistant{SEP}[ab]{SEP}'?{SEP}s?{SEP}answer)"
        rf"|user{SEP}question|system"
        r")\s*(?P<mark>)\]",
    ),
    Marker("verdict", r"\[\s*\[\s*[abc]\s*(?P<mark>)\]\s*\]"),
)


@cache
def prompt_text(name: str) -> str:
    """A verbatim prompt file of `prompt_texts/` (UTF-8; every byte is part of the prompt)."""
    return (Path(__file__).with_name("prompt_texts") / f"{name}.txt").read_text(encoding="utf-8")


def neutralise_answer(answer: str) -> str:
    """Mark every forged template delimiter or verdict token inside an answer as quoted."""
    return neutralise(answer, ANSWER_MARKERS)


def judge_messages(
    question: str, reference: str, answer_a: str, answer_b: str
) -> list[dict[str, str]]:
    """Fig. 18's messages, answers neutralised; one str.format pass keeps their braces literal."""
    user = prompt_text("judge_user").format(
        question=question,
        answer_ref=reference,
        answer_a=neutralise_answer(answer_a),
        answer_b=neutralise_answer(answer_b),
    )
    return [
        {"role": "system", "content": prompt_text("judge_system")},
        {"role": "user", "content": user},
    ]


def answer_messages(question: str) -> list[dict[str, str]]:
    """The question alone, one user turn (the paper shows no answering or system prompt)."""
    return [{"role": "user", "content": question}]


def coin_target_position(question_id: str, seed: int = 0) -> Position:
    """The target's single-game position from sha256 (`hash()` is salted per process)."""
    return "A" if int(sha256_text(f"{seed}:{question_id}")[:2], 16) % 2 == 0 else "B"


def game_positions(question_id: str, *, swap: bool = True, seed: int = 0) -> tuple[Position, ...]:
    """The target's position in each game to play: ("A", "B") with swap, else the coin's."""
    return ("A", "B") if swap else (coin_target_position(question_id, seed),)


def check_position(position: str) -> None:
    if position not in ("A", "B"):
        raise ValueError(f"target_position={position!r} must be 'A' or 'B'")


def ordered_answers(target: str, baseline: str, target_position: Position) -> tuple[str, str]:
    check_position(target_position)
    return (target, baseline) if target_position == "A" else (baseline, target)

"""CultureSynth-7 prompts: the question alone for the answering models, and the judge prompt of
paper Fig. 18 (`prompt_texts/`, verbatim; see its NOTICE) for each game of a question.

The judge sees the question, the benchmark's reference answer and two anonymous answers,
"Assistant A" and "Assistant B"; it never sees a model name. A game is one judge call with the
target's answer in position A or B: both orders with `swap` (default), else one order picked by
a seeded coin per question, the paper-literal single game.

Gaming defence (culturesynth-judge-2): the answers are untrusted text placed between the
template's own delimiter lines. An answer that contains a delimiter line (e.g. "[The End of
Assistant A's Answer]") could close its block early and append text the judge would read as
template, or plant a verdict token. As with CARE's `fence_response`, every forged delimiter inside
an answer is neutralised by inserting " (quoted)" before its closing bracket: "[The End of
Assistant A's Answer (quoted)]", "[[A (quoted)]]". Matching runs on the detection copy of
`judge.fences`: case, spacing, typographic apostrophes, Unicode look-alikes (fullwidth or CJK
brackets, `⟦A⟧`, Cyrillic letters) and invisible characters are folded away, so near-copies are
caught too. Benign answers are untouched, so the prompt stays byte-identical to Fig. 18. The
question and reference are benchmark data and are inserted as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Literal

from inspect_culture.datasets_hub.hashing import sha256_text
from inspect_culture.judging.fences import SEP, Marker, neutralise

Position = Literal["A", "B"]

# Template lines an answer must not be able to reproduce, and verdict tokens ("[[A]]", "[[ b ]]",
# "⟦B⟧", ...), as patterns over the detection copy (lower case, apostrophes as "'").
_W = SEP  # between the words of a delimiter line, possibly nothing
ANSWER_MARKERS: tuple[Marker, ...] = (
    Marker(
        "delimiter",
        r"\[\s*(?:"
        rf"the{_W}(?:start|end){_W}of{_W}(?:reference{_W}answer"
        rf"|assistant{_W}[ab]{_W}'?{_W}s?{_W}answer)"
        rf"|user{_W}question|system"
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
    """System + user messages of Fig. 18, with both answers neutralised."""
    # One str.format pass: text inserted for one slot is never rescanned, so an answer holding
    # "{answer_b}" or braces stays literal.
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
    """What the target and the baseline are asked: the question alone, as one user turn (the
    paper shows no answering prompt or system prompt for the evaluated models)."""
    return [{"role": "user", "content": question}]


def coin_target_position(question_id: str, seed: int = 0) -> Position:
    """Where the target's answer goes in a single game: a seeded coin per question.

    The first byte of sha256(f"{seed}:{question_id}"), not `hash()` (salted per process) nor
    global random state, so every harness and every rerun picks the same order."""
    first_byte = int(sha256_text(f"{seed}:{question_id}")[:2], 16)
    return "A" if first_byte % 2 == 0 else "B"


def game_positions(question_id: str, *, swap: bool = True, seed: int = 0) -> tuple[Position, ...]:
    """The target's position in each game to play: ("A", "B") with swap, else the coin's."""
    return ("A", "B") if swap else (coin_target_position(question_id, seed),)


def check_position(position: str) -> None:
    if position not in ("A", "B"):
        raise ValueError(f"target_position={position!r} must be 'A' or 'B'")


def ordered_answers(target: str, baseline: str, target_position: Position) -> tuple[str, str]:
    """(answer_a, answer_b) for a game."""
    check_position(target_position)
    return (target, baseline) if target_position == "A" else (baseline, target)


def game_prompts(
    question: str, reference: str, target: str, baseline: str, positions: Sequence[Position]
) -> list[list[dict[str, str]]]:
    """The judge messages of each game, in the order of `positions` (both harnesses)."""
    return [
        judge_messages(question, reference, *ordered_answers(target, baseline, position))
        for position in positions
    ]

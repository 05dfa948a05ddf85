"""What a judged benchmark gives the harnesses (requests for one answer, the outcome of the
replies), written once, so every harness gives the same outcome and reason for the same replies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from inspect_culture.judging.constraints import VerdictFormat

Message = Mapping[str, str]  # {"role": "system" | "user", "content": str}
Item = Mapping[str, Any]  # the benchmark record, with the reference answer under "answer"


@dataclass(frozen=True)
class JudgeRequest:
    messages: tuple[Message, ...]  # as sent; the cache key covers exactly these
    verdict_format: VerdictFormat  # what a constrained judge must follow


@dataclass(frozen=True)
class TokenUsage:
    """One judge reply's tokens as the provider reported them (`judging/usage.py`)."""

    prompt: int
    completion: int


@dataclass(frozen=True)
class JudgeReply:
    text: str | None  # in the paper's format (a constrained JSON reply already rendered)
    error: str | None = None  # why there is no reply, in words
    cached: bool = False
    # the provider's token count (None: it gave none, or nothing was asked); a cached reply
    # cost 0 new tokens whatever this says (`judging/usage.py`)
    usage: TokenUsage | None = None


@dataclass(frozen=True)
class Judged:
    record: dict[str, Any]  # the outcome record the benchmark's metrics read
    value: float | None  # the sample's score; None: unscored
    reason: str | None = None  # why it is unscored (None when scored)
    details: dict[str, Any] = field(default_factory=dict)  # kept beside the record


class Judging(Protocol):
    def requests(self, item: Item, answer: str | None) -> list[JudgeRequest]: ...

    def outcome(self, item: Item, answer: str | None, replies: Sequence[JudgeReply]) -> Judged: ...


def user_message(text: str) -> tuple[Message, ...]:
    return ({"role": "user", "content": text},)

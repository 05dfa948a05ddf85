"""CARE's judging: one rubric rating per answer (paper §3; `prompts.judge_prompt`), read from the
judge's reply by the verdict parser (`rating-2`): the judge's one `[[n]]`, else None (unscored,
never 0); two ratings are ambiguous, so one planted in the answer cannot win (`rating-1` took
the last)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from inspect_culture.benchmarks.care import spec
from inspect_culture.benchmarks.care.prompts import judge_prompt
from inspect_culture.judging.constraints import VerdictFormat
from inspect_culture.judging.jury import combined_rating, unscored_reason
from inspect_culture.judging.protocol import Item, Judged, JudgeReply, JudgeRequest, user_message

_NUMBER = r"\s*(\d+(?:\.\d+)?)\s*"
_BRACKETED = re.compile(r"\[\[" + _NUMBER + r"\]\]")

NO_RATING = "no parsable rating in the judge output"
AMBIGUOUS = "ambiguous verdict"


class JudgedRating(NamedTuple):
    rating: float | None
    reason: str | None  # why it is unscored, in words


def read_rating(text: str | None) -> JudgedRating:
    """The judge's one rating within 1-10, or None and why."""
    distinct = sorted({float(value) for value in _BRACKETED.findall(text or "")})
    if not distinct:
        return JudgedRating(None, NO_RATING)
    if len(distinct) > 1:
        shown = ", ".join(f"{value:g}" for value in distinct)
        return JudgedRating(None, f"{AMBIGUOUS}: the judge output has different ratings ({shown})")
    value = distinct[0]
    return JudgedRating(value, None) if 1.0 <= value <= 10.0 else JudgedRating(None, NO_RATING)


def judge_record(judge_text: str | None, error: str | None = None) -> JudgedRating:
    """One judge reply (or the reason the call failed) as a rating, shared by both harnesses."""
    return JudgedRating(None, error) if error else read_rating(judge_text)


def care_rating_format() -> VerdictFormat:
    """CARE: "Rating: [[n]]", n in 1-10 (the judge prompt's own example format)."""
    return VerdictFormat(
        "CARE rating",
        ("Rating: [[", ("rating", tuple(str(n) for n in range(1, 11))), "]]"),
    )


# A judge's reply, for the cost estimate (`judging/usage.py`): the prompt asks for commentary on
# several criteria, then "Rating: [[n]]"; about 250 tokens (an assumption: docs/judge.md)
VERDICT_TOKENS = 250


@dataclass(frozen=True)
class CareJudging:
    judge_mapping: str = spec.DEFAULT_JUDGE_MAPPING
    verdict_tokens: ClassVar[int] = VERDICT_TOKENS

    def requests(self, item: Item, answer: str | None) -> list[JudgeRequest]:
        prompt = judge_prompt(
            item["category"], item["question"], item["answer"], answer or "", self.judge_mapping
        )
        return [JudgeRequest(user_message(prompt), care_rating_format())]

    def outcome(self, item: Item, answer: str | None, replies: Sequence[JudgeReply]) -> Judged:
        [reply] = replies
        rating, reason = judge_record(reply.text, reply.error)
        record = spec.CareOutcome.judged(str(item["id"]), item, rating).to_record()
        return Judged(record, rating, None if rating is not None else reason)

    def votes(self, judged: Judged) -> list[Any]:
        return [judged.value]

    def combine(
        self, item: Item, answer: str | None, per_judge: Mapping[str, Judged], rule: str
    ) -> Judged:
        """The jury's rating: the mean (or median) of the ratings its judges gave."""
        rating = combined_rating([j.value for j in per_judge.values()], rule)
        record = spec.CareOutcome.judged(str(item["id"]), item, rating).to_record()
        return Judged(
            record, rating, None if rating is not None else unscored_reason(per_judge, "a rating")
        )

"""CARE's judging: one rubric rating per answer (paper §3; `prompts.judge_prompt`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_culture.benchmarks.care import spec
from inspect_culture.benchmarks.care.parse import judge_record
from inspect_culture.benchmarks.care.prompts import judge_prompt
from inspect_culture.judging.constraints import VerdictFormat
from inspect_culture.judging.jury import combined_rating, unscored_reason
from inspect_culture.judging.protocol import Item, Judged, JudgeReply, JudgeRequest, user_message


def care_rating_format() -> VerdictFormat:
    """CARE: "Rating: [[n]]", n in 1-10 (the judge prompt's own example format)."""
    return VerdictFormat(
        "CARE rating",
        ("Rating: [[", ("rating", tuple(str(n) for n in range(1, 11))), "]]"),
    )


@dataclass(frozen=True)
class CareJudging:
    judge_mapping: str = spec.DEFAULT_JUDGE_MAPPING

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

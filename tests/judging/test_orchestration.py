"""The one orchestration every transport shares (`judging/orchestration.py`): requests to each
judge, judging after judging for the answers re-judging chose, outcomes combined."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from inspect_culture.benchmarks.care.judging import CareJudging
from inspect_culture.benchmarks.care.spec import CATEGORY_SLUGS
from inspect_culture.judging.orchestration import (
    JudgedLater,
    judge_answers,
    judge_names,
    judges_named,
)
from inspect_culture.judging.protocol import JudgeReply, JudgeRequest
from inspect_culture.judging.reasons import JUDGE_LATER_REASON
from inspect_culture.judging.repeats import Repeats


class Rater:
    """A judge that rates every answer `rating` (plus the judging number minus one)."""

    def __init__(self, rating: int) -> None:
        self.rating = rating
        self.sent: list[tuple[int, int]] = []  # (judging, requests)

    async def send(self, requests: Sequence[JudgeRequest], judging: int) -> list[JudgeReply]:
        self.sent.append((judging, len(requests)))
        return [JudgeReply(f"Rating: [[{self.rating + judging - 1}]]") for _ in requests]


def _answers(n: int) -> list[tuple[dict[str, str], str]]:
    item = {
        "category": CATEGORY_SLUGS[0],
        "geographic_scope": "local",
        "question": "q",
        "answer": "reference",
    }
    return [({**item, "id": f"q{i}"}, f"answer {i}") for i in range(n)]


def test_a_jury_of_two_is_combined_by_its_rule() -> None:
    judges = [Rater(2), Rater(7)]
    [one] = asyncio.run(judge_answers(CareJudging(), _answers(1), judges, rule="mean"))
    assert one.judged.value == 4.5  # (2 + 7) / 2
    assert list(one.judgings[0]) == ["judge_1", "judge_2"]
    assert [j.sent for j in judges] == [[(1, 1)], [(1, 1)]]


def test_rejudging_asks_again_only_for_the_chosen_answers() -> None:
    judge = Rater(3)
    repeats = Repeats(k=3, fraction=1.0)
    done = asyncio.run(
        judge_answers(CareJudging(), _answers(4), [judge], rule="mean", repeats=repeats)
    )
    assert judge.sent == [(1, 4), (2, 4), (3, 4)]  # one batch a judging
    assert all(len(a.judgings) == 3 for a in done)
    assert done[0].judged.value == 4  # judgings rated 3, 4, 5: their mean
    half = Repeats(k=2, fraction=0.5)
    judge = Rater(3)
    done = asyncio.run(
        judge_answers(CareJudging(), _answers(40), [judge], rule="mean", repeats=half)
    )
    again = sum(len(a.judgings) == 2 for a in done)
    assert judge.sent == [(1, 40), (2, again)] and 0 < again < 40


def test_one_judge_after_another_gives_the_same_outcomes() -> None:
    together = asyncio.run(
        judge_answers(CareJudging(), _answers(3), [Rater(2), Rater(9)], rule="mean")
    )
    apart = asyncio.run(
        judge_answers(
            CareJudging(), _answers(3), [Rater(2), Rater(9)], rule="mean", judges_together=False
        )
    )
    assert [a.judged for a in together] == [a.judged for a in apart]


def test_a_generation_only_run_asks_no_judge_and_says_why() -> None:
    [one] = asyncio.run(
        judge_answers(
            CareJudging(), _answers(1), [JudgedLater()], rule="mean", repeats=Repeats(k=2)
        )
    )
    assert one.judged.value is None
    assert len(one.judgings) == 1  # never re-judged
    [reply] = one.judgings[0]["judge_1"]
    assert reply.error == JUDGE_LATER_REASON


class CountedCare(CareJudging):
    """CARE's judging, counting how often its requests are made."""

    made = 0

    def requests(self, item, answer):  # type: ignore[no-untyped-def]
        CountedCare.made += 1
        return super().requests(item, answer)


def test_requests_the_caller_made_are_not_made_again() -> None:
    answers = _answers(2)
    made = [CareJudging().requests(item, answer) for item, answer in answers]
    CountedCare.made, judge = 0, Rater(6)
    done = asyncio.run(judge_answers(CountedCare(), answers, [judge], rule="mean", requests=made))
    assert CountedCare.made == 0 and judge.sent == [(1, 2)]
    assert [a.judged.value for a in done] == [6, 6]
    asyncio.run(judge_answers(CountedCare(), answers, [Rater(6)], rule="mean"))
    assert CountedCare.made == 2  # made here when not given


def test_judges_are_named_alike_everywhere() -> None:
    assert judge_names(3) == ["judge_1", "judge_2", "judge_3"]
    assert judges_named(["m"]) == {"judge_model": "m"}
    assert judges_named([]) == {"judge_model": None}
    jury = judges_named(["a", "b"])
    assert jury["judge_models"] == {"judge_1": "a", "judge_2": "b"}
    assert "a" in jury["judge_model"] and "b" in jury["judge_model"]

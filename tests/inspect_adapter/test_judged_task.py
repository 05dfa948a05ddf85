"""What every judged Inspect task shares (`inspect_adapter/judged_task.py`): one sample's
judgment makes the benchmark's judge requests once, looks up the jury only when there is a
request, and its metrics hold a jury's figures and the all-unscored flag."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from inspect_ai.model import ModelOutput
from inspect_ai.solver import TaskState

from inspect_culture.benchmarks.care.judging import CareJudging
from inspect_culture.benchmarks.care.spec import CATEGORY_SLUGS
from inspect_culture.inspect_adapter import judged_task
from inspect_culture.inspect_adapter.eval_hooks import ALL_UNSCORED
from inspect_culture.judging.options import JudgeOptions
from inspect_culture.judging.protocol import Judged, JudgeReply, JudgeRequest
from inspect_culture.judging.usage import TOKENS_KEY


class CountedCare(CareJudging):
    """CARE's judging, counting how often its requests are made."""

    made = 0

    def requests(self, item: Any, answer: str | None) -> list[JudgeRequest]:
        CountedCare.made += 1
        return super().requests(item, answer)


class NoRequest(CareJudging):
    """A judging with nothing to ask (as CultureSynth-7 without a baseline answer)."""

    def requests(self, item: Any, answer: str | None) -> list[JudgeRequest]:
        return []

    def outcome(self, item: Any, answer: str | None, replies: Sequence[JudgeReply]) -> Judged:
        return Judged({}, None, "nothing to judge")


class Rates7:
    """A judge transport that rates every answer 7."""

    def __init__(self, grader: Any, options: JudgeOptions) -> None:
        self.grader = grader

    async def send(self, requests: Sequence[JudgeRequest], judging: int) -> list[JudgeReply]:
        return [JudgeReply("Rating: [[7]]") for _ in requests]


def _state() -> TaskState:
    metadata = {"category": CATEGORY_SLUGS[0], "geographic_scope": "local", "question": "q"}
    return TaskState(
        model="mockllm/model",  # type: ignore[arg-type]
        sample_id="q1",
        epoch=1,
        input="q",
        messages=[],
        output=ModelOutput.from_content("mockllm/model", "an answer"),
        metadata=metadata,
    )


@pytest.fixture
def looked_up(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each jury look-up; the jury is one judge rating 7."""
    calls: list[bool] = []

    def jury_roles(self_grade: bool, judge_later: bool = False) -> dict[str, Any]:
        calls.append(self_grade)
        return {"grader": "mockllm/judge"}

    monkeypatch.setattr(judged_task, "jury_roles", jury_roles)
    monkeypatch.setattr(judged_task, "GraderTransport", Rates7)
    return calls


def test_a_sample_is_judged_with_its_requests_made_once(looked_up: list[bool]) -> None:
    CountedCare.made = 0
    judgment = asyncio.run(
        judged_task.judge_sample(CountedCare(), _state(), JudgeOptions(), "the reference")
    )
    assert CountedCare.made == 1 and looked_up == [False]
    assert judgment.judged.value == 7.0
    # the judge's tokens too (its stub reply reports none: a call, its count unreported)
    tokens = {"calls": 1, "cached": 0, "prompt_tokens": 0, "completion_tokens": 0, "unreported": 1}
    assert judgment.judges_shown() == {
        "judge_model": "mockllm/judge",
        TOKENS_KEY: {"judge_1": tokens},
    }
    assert judgment.explanation() == "Rating: [[7]]"
    assert judgment.score().value == 7.0
    assert judgment.score(explanation="x").answer == "an answer"  # Inspect View's ANSWER


def test_no_request_no_jury_looked_up(looked_up: list[bool]) -> None:
    judgment = asyncio.run(judged_task.judge_sample(NoRequest(), _state(), JudgeOptions(), "r"))
    assert looked_up == [] and judgment.judges == {}
    assert judgment.judges_shown() == {"judge_model": "none (judge_later)"}
    assert judgment.score().reason == "nothing to judge"  # unscored (never 0), saying why
    assert judgment.score().answer == "an answer"  # the model's answer all the same


def test_no_score_is_all_unscored() -> None:
    metrics = judged_task.judged_metrics(dict, lambda _: {}, "interval", ())([])
    assert metrics == {"n_scored": 0.0, ALL_UNSCORED: 1.0}

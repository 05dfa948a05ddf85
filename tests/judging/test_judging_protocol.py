"""Each judged benchmark's `requests` and `outcome` (benchmarks/<b>/judging.py), the one place
both harnesses get judge prompts from and read verdicts with: hand-worked answers."""

from __future__ import annotations

import pytest

from inspect_culture.benchmarks.care.judging import NO_RATING, CareJudging
from inspect_culture.benchmarks.care.prompts import judge_prompt
from inspect_culture.benchmarks.cqbench.judging import VeJudging
from inspect_culture.benchmarks.cqbench.parse import NO_VE_SCORES
from inspect_culture.benchmarks.culturesynth.judging import CultureSynthJudging
from inspect_culture.benchmarks.culturesynth.parse import MISSING_BASELINE
from inspect_culture.judging.protocol import JudgeReply

CARE_ITEM = {
    "id": "zh_001", "category": "commonsense", "question": "Q?", "answer": "A.",
    "geographic_scope": "nationwide",
}  # fmt: skip


def test_care_one_request_and_its_rating() -> None:
    judging = CareJudging("paper")
    [request] = judging.requests(CARE_ITEM, "my answer")
    want = judge_prompt("commonsense", "Q?", "A.", "my answer", "paper")
    assert request.messages == ({"role": "user", "content": want},)
    assert request.verdict_format.name == "CARE rating"
    judged = judging.outcome(CARE_ITEM, "my answer", [JudgeReply("Fine.\nRating: [[7]]")])
    assert (judged.value, judged.reason) == (7, None)
    assert judged.record["rating"] == 7 and judged.record["question_id"] == "zh_001"


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (JudgeReply("no verdict here"), NO_RATING),
        (JudgeReply(None, error="judge call failed: HTTP 500"), "judge call failed: HTTP 500"),
    ],
)
def test_care_unscored_never_zero(reply: JudgeReply, reason: str) -> None:
    judged = CareJudging().outcome(CARE_ITEM, "x", [reply])
    assert judged.value is None and judged.reason == reason
    assert judged.record["rating"] is None


PAIR_ITEM = {
    "id": "zh-1", "question": "Q?", "answer": "REF", "baseline_answer": "BASE",
    "language": "zh", "primary_topic": "Arts",
}  # fmt: skip


def test_culturesynth_both_orders_and_the_target_side() -> None:
    judging = CultureSynthJudging(swap=True, seed=0)
    requests = judging.requests(PAIR_ITEM, "TARGET")
    assert len(requests) == 2  # target as A, then as B
    first, second = (r.messages[-1]["content"] for r in requests)
    assert first.index("TARGET") < first.index("BASE") and second.index("BASE") < second.index(
        "TARGET"
    )
    wins = judging.outcome(PAIR_ITEM, "TARGET", [JudgeReply("[[A]]"), JudgeReply("[[B]]")])
    assert (wins.value, wins.reason) == (1.0, None)  # the target won in both orders
    flips = judging.outcome(PAIR_ITEM, "TARGET", [JudgeReply("[[A]]"), JudgeReply("[[A]]")])
    assert flips.value == 0.0 and flips.record["consistent"] is False  # position, not answers
    one_failed = [JudgeReply("[[A]]"), JudgeReply(None, error="timeout")]
    assert judging.outcome(PAIR_ITEM, "TARGET", one_failed).value is None  # never half-counted


def test_culturesynth_without_a_baseline_asks_nothing_and_says_why() -> None:
    judging = CultureSynthJudging()
    item = {**PAIR_ITEM, "baseline_answer": None}
    assert judging.requests(item, "TARGET") == []
    assert judging.outcome(item, "TARGET", []).reason == MISSING_BASELINE
    failed = {**item, "baseline_error": "the baseline model gave no answer: HTTP 500"}
    assert judging.outcome(failed, "TARGET", []).reason == failed["baseline_error"]


VE_ITEM = {"id": "s1", "category": "social", "gold_values": ["honesty", "care"]}


def test_ve_recall_over_the_gold_values() -> None:
    judging = VeJudging()
    [request] = judging.requests(VE_ITEM, "[Final answer]: honesty")
    assert "honesty" in request.messages[0]["content"]
    assert request.verdict_format.name == "CQ-Bench VE scores"
    reply = JudgeReply("[Final answer]:\n[Ground truth 1]:1\n[Ground truth 2]:0")
    judged = judging.outcome(VE_ITEM, "[Final answer]: honesty", [reply])
    assert (judged.value, judged.reason) == (0.5, None)
    assert judged.details == {"prediction": "honesty"}


def test_ve_without_any_score_is_unscored_with_one_reason() -> None:
    judged = VeJudging().outcome(VE_ITEM, "x", [JudgeReply("I cannot tell.")])
    assert judged.value is None and judged.reason == NO_VE_SCORES


def test_a_missing_field_is_a_key_error_before_any_request() -> None:
    """`culture-evals judge` builds every prompt first and names the missing field."""
    with pytest.raises(KeyError, match="category"):
        CareJudging().requests({"question": "Q?", "answer": "A."}, "x")

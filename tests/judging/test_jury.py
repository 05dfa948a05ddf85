"""Juries on hand-worked replies: each benchmark's rule (CARE mean or median, CultureSynth-7
majority per answer order with splits as ties, CQ-Bench VE majority per gold value), a failed
judge left out and counted, no judge scoring leaves the sample unscored, and one judge is
exactly the lone judge's outcome."""

from __future__ import annotations

import pytest

from inspect_culture.benchmarks.care.judging import CareJudging
from inspect_culture.benchmarks.cqbench.judging import VeJudging
from inspect_culture.benchmarks.culturesynth.judging import CultureSynthJudging
from inspect_culture.judging.jury import (
    JURY_KEY,
    combined_rating,
    jury_outcome,
    majority_score,
    majority_vote,
)
from inspect_culture.judging.protocol import JudgeReply

CARE_ITEM = {
    "id": "zh-1",
    "category": "Etiquette",
    "question": "q",
    "answer": "reference",
    "geographic_scope": "Mainland China",
}
CS_ITEM = {
    "id": "zh-0001",
    "question": "q",
    "answer": "reference",
    "baseline_answer": "baseline",
    "language": "Chinese",
    "primary_topic": "Food",
}
VE_ITEM = {"id": "ve-1", "category": "social", "gold_values": ["honesty", "loyalty", "care"]}
FAILED = JudgeReply(None, "the judge's API refused the request (HTTP 400)")


def _care(*ratings: int | None) -> dict[str, list[JudgeReply]]:
    return {
        f"judge{k}": [FAILED if r is None else JudgeReply(f"... Rating: [[{r}]]")]
        for k, r in enumerate(ratings, 1)
    }


def test_vote_helpers_by_hand() -> None:
    assert combined_rating([6, 9, None]) == 7.5
    assert combined_rating([2, 9, 10], "median") == 9
    assert combined_rating([None, None]) is None
    with pytest.raises(ValueError, match="jury_rule='mode'.*'mean', 'median'"):
        combined_rating([1], "mode")
    assert majority_vote(["A", "A", "B"], tie="C") == "A"
    assert majority_vote(["A", "B", None], tie="C") == "C"  # a split is a tie
    assert majority_vote([None, None], tie="C") is None
    assert majority_score([1, 1, 0]) == 1.0
    assert majority_score([1, 0.5, 0]) == 0.5  # no majority: lower median
    assert majority_score([1, 0]) == 0.0  # half the jury is not a majority
    assert majority_score([None, 0.5]) == 0.5


def test_care_jury_mean_and_median_with_a_failed_judge() -> None:
    judging = CareJudging()
    mean = jury_outcome(judging, CARE_ITEM, "answer", _care(6, 9, None), "mean")
    assert mean.value == 7.5 and mean.record["rating"] == 7.5 and mean.reason is None
    jury = mean.details[JURY_KEY]
    assert (jury["n_judges"], jury["n_judges_failed"], jury["rule"]) == (3, 1, "mean")
    assert [j["value"] for j in jury["judges"].values()] == [6, 9, None]
    assert "HTTP 400" in jury["judges"]["judge3"]["reason"]
    median = jury_outcome(judging, CARE_ITEM, "answer", _care(2, 9, 10), "median")
    assert median.value == 9


def test_no_judge_scored_leaves_the_sample_unscored_with_every_reason() -> None:
    judged = jury_outcome(CareJudging(), CARE_ITEM, "a", _care(None, None), "mean")
    assert judged.value is None and judged.record["rating"] is None
    assert judged.reason.startswith("no judge of the jury gave a rating")
    assert "judge1: " in judged.reason and "judge2: " in judged.reason
    assert judged.details[JURY_KEY]["n_judges_failed"] == 2


def test_one_judge_is_the_lone_judges_outcome() -> None:
    judging = CareJudging()
    alone = judging.outcome(CARE_ITEM, "a", _care(7)["judge1"])
    assert jury_outcome(judging, CARE_ITEM, "a", _care(7), "mean") == alone
    assert JURY_KEY not in alone.details


def _games(*pairs: tuple[str | None, str | None]) -> dict[str, list[JudgeReply]]:
    """Each judge's replies to (target as A, target as B)."""
    return {
        f"judge{k}": [FAILED if v is None else JudgeReply(f"[[{v}]]") for v in pair]
        for k, pair in enumerate(pairs, 1)
    }


def test_culturesynth_majority_per_answer_order() -> None:
    judging = CultureSynthJudging(swap=True)
    # target as A: A, A, B -> A (+1); target as B: B, C, C -> C (0): orders differ, a tie
    judged = jury_outcome(
        judging, CS_ITEM, "x", _games(("A", "B"), ("A", "C"), ("B", "C")), "majority"
    )
    assert judged.details["game_outcomes"] == [1, 0]
    assert judged.value == 0.0 and judged.record["consistent"] is False
    # both orders: the target wins by majority; a failed judge is left out
    won = jury_outcome(
        judging, CS_ITEM, "x", _games(("A", "B"), ("A", "B"), (None, None)), "majority"
    )
    assert won.value == 1.0 and won.details[JURY_KEY]["n_judges_failed"] == 1
    assert won.details[JURY_KEY]["judges"]["judge1"]["votes"] == [1, 1]


def test_culturesynth_split_jury_is_a_tie_and_no_verdict_is_unscored() -> None:
    judging = CultureSynthJudging(swap=True)
    # target as A: A vs B (split) -> tie; target as B: A vs B (split) -> tie: a consistent tie
    split = jury_outcome(judging, CS_ITEM, "x", _games(("A", "A"), ("B", "B")), "majority")
    assert split.details["game_outcomes"] == [0, 0] and split.value == 0.0
    none = jury_outcome(judging, CS_ITEM, "x", _games(("A", None), ("B", None)), "majority")
    assert none.value is None
    assert none.reason.startswith("no judge of the jury gave a verdict in every answer order")


def _ve(*scores: tuple[str, ...] | None) -> dict[str, list[JudgeReply]]:
    def reply(values: tuple[str, ...]) -> JudgeReply:
        lines = "".join(f"\n[Ground truth {k}]:{v}" for k, v in enumerate(values, 1))
        return JudgeReply(f"[Reasoning]:\nok\n[Final answer]:{lines}")

    return {f"judge{k}": [FAILED if s is None else reply(s)] for k, s in enumerate(scores, 1)}


def test_ve_majority_per_gold_value() -> None:
    judges = _ve(("1", "0", "0.5"), ("1", "0.5", "0"), ("0", "0.5", "1"), None)
    judged = jury_outcome(VeJudging(), VE_ITEM, "values", judges, "majority")
    # value 1: 1,1,0 -> 1; value 2: 0,0.5,0.5 -> 0.5; value 3: 0.5,0,1 -> lower median 0.5
    assert judged.record["value_scores"] == (1.0, 0.5, 0.5)
    assert judged.value == pytest.approx(2 / 3)
    assert judged.details[JURY_KEY]["n_judges_failed"] == 1


def test_jury_metrics_by_hand() -> None:
    """Per-judge means and failures, and alpha over the same answers, from the samples' details."""
    from inspect_culture.judging.jury_agreement import jury_metrics

    judging = CareJudging()
    answers = [_care(1, 2, None), _care(3, 3, 5), _care(4, None, None)]
    juries = [jury_outcome(judging, CARE_ITEM, "a", r, "mean").details[JURY_KEY] for r in answers]
    metrics = jury_metrics([*juries, None], "interval")
    assert metrics["n_judges"] == 3
    assert metrics["judge1_mean"] == pytest.approx(8 / 3)
    assert metrics["judge2_mean"] == pytest.approx(2.5) and metrics["judge2_n_failed"] == 1
    assert metrics["judge3_mean"] == 5 and metrics["judge3_n_failed"] == 2
    # units (1, 2), (3, 3, 5): pooled 1,2,3,3,5 (n=5, mean 2.8, SS 8.8): D_e = 2*5*8.8/20 = 4.4;
    # D_o = (2/1 + (2*3*(8/3))/2) / 5 = (2 + 8) / 5 = 2; alpha = 1 - 2/4.4
    assert metrics["judges_alpha"] == pytest.approx(1 - 2 / 4.4)
    assert jury_metrics([None, None], "interval") == {}


def test_jury_metrics_kappa_over_pairwise_games() -> None:
    from inspect_culture.judging.jury_agreement import jury_metrics

    judging = CultureSynthJudging(swap=True)
    juries = [
        jury_outcome(judging, CS_ITEM, "x", _games(*pairs), "majority").details[JURY_KEY]
        for pairs in ((("A", "B"), ("A", "B")), (("A", "A"), ("B", "A")))
    ]
    metrics = jury_metrics(juries, "nominal", scale=100.0)
    # judge1: +1 (+1,+1), then 0 (+1,-1: orders differ); judge2: +1, then -1 (-1,-1)
    assert metrics["judge1_mean"] == 50.0 and metrics["judge2_mean"] == 0.0
    # units: (+1,+1), (+1,+1), (+1,-1), (-1,-1): P = (1+1+0+1)/4 = 0.75;
    # p(+1) = 5/8, p(-1) = 3/8: P_e = 34/64; kappa = (0.75 - 34/64) / (30/64) = 14/30
    assert metrics["judges_kappa"] == pytest.approx(14 / 30)


def test_role_order_and_the_reports_jury_label() -> None:
    from inspect_culture.judging.jury import jury_label, jury_roles_in_order
    from inspect_culture.report.inputs import _judges_of

    def lm_eval_label(models: object) -> str | None:  # as the report labels lm-eval's judge
        return jury_label(_judges_of({"judge_models": models}))

    roles = ["grader_10", "baseline", "grader", "grader_2", "grader_1", "grader_x"]
    assert jury_roles_in_order(roles) == ["grader", "grader_2", "grader_10"]
    assert jury_label(["a"]) == "a" and jury_label([]) is None
    assert jury_label(["a", "b"]) == "jury of 2: a, b" == lm_eval_label("a, b")
    assert lm_eval_label(["a", "b"]) == "jury of 2: a, b"
    assert lm_eval_label(None) is None


def test_jury_metrics_leave_out_samples_the_jury_left_unscored() -> None:
    """As Inspect's metrics never see an unscored sample, lm-eval's figures leave it out too."""
    from inspect_culture.judging.jury_agreement import jury_metrics

    judging = CareJudging()
    scored = jury_outcome(judging, CARE_ITEM, "a", _care(4, 6), "mean").details[JURY_KEY]
    unscored = jury_outcome(judging, CARE_ITEM, "a", _care(None, None), "mean").details[JURY_KEY]
    assert jury_metrics([scored, unscored], "interval") == jury_metrics([scored], "interval")
    assert jury_metrics([scored, unscored], "interval")["judge1_n_failed"] == 0

"""Re-judging on hand-worked judgings: which answers a fraction chooses (by id, the same every
time), the seeds each judging sends, how judgings combine by the jury rule, failed judgings left
out and counted, and the options' checks in words."""

from __future__ import annotations

import pytest

from inspect_culture.benchmarks.care.judging import CareJudging
from inspect_culture.benchmarks.care.spec import CareOutcome
from inspect_culture.judging.jury import JURY_KEY, jury_outcome
from inspect_culture.judging.options import JudgeConfigError, metadata_options
from inspect_culture.judging.protocol import JudgeReply
from inspect_culture.judging.repeats import (
    JUDGMENTS_FIELD,
    REPEATS_KEY,
    Repeats,
    check_repeats,
    chosen,
    repeat_seed,
    repeated_outcome,
)
from tests.judging.test_jury import CARE_ITEM, FAILED, _care


def _judged(rating: int | None):
    reply = FAILED if rating is None else JudgeReply(f"Rating: [[{rating}]]")
    return CareJudging().outcome(CARE_ITEM, "an answer", [reply])


def test_a_fraction_chooses_by_id_alike_every_time() -> None:
    ids = [f"care-zh-{k:04d}" for k in range(2000)]
    half = [i for i in ids if chosen(i, 0.5)]
    assert half == [i for i in reversed(ids) if chosen(i, 0.5)][::-1]  # order does not matter
    assert 900 < len(half) < 1100
    assert all(chosen(i, 1.0) for i in ids[:50])
    tenth = {i for i in ids if chosen(i, 0.1)}
    assert tenth <= set(half)  # a smaller fraction re-judges a subset of a larger one
    repeats = Repeats(3, 0.5)
    assert repeats.calls(ids) == len(ids) + 2 * len(half)
    assert [repeats.of(i) for i in ids[:20]] == [3 if chosen(i, 0.5) else 1 for i in ids[:20]]
    assert Repeats().calls(ids) == len(ids) and Repeats().settings() == {}
    assert repeats.settings() == {"judge_repeats": 3, "rejudge_fraction": 0.5}


def test_judging_r_sends_the_seed_plus_r_minus_1() -> None:
    assert [repeat_seed(100, r) for r in (1, 2, 3)] == [100, 101, 102]
    assert repeat_seed(None, 2) is None


def test_judgings_combine_by_the_rule_failures_left_out_and_counted() -> None:
    judgings = [_judged(4), _judged(None), _judged(7)]
    mean = repeated_outcome(CareJudging(), CARE_ITEM, "an answer", judgings, "mean")
    assert mean.value == 5.5 and mean.reason is None  # (4 + 7) / 2
    assert mean.record[JUDGMENTS_FIELD] == [4, None, 7]
    assert mean.details[REPEATS_KEY]["n_failed"] == 1
    assert mean.details[REPEATS_KEY]["n_judgings"] == 3
    median = repeated_outcome(
        CareJudging(), CARE_ITEM, "x", [_judged(2), _judged(9), _judged(10)], "median"
    )
    assert median.value == 9
    assert CareOutcome.from_record(median.record).judgments == (2, 9, 10)


def test_no_judging_scoring_leaves_the_answer_unscored_with_each_reason() -> None:
    outcome = repeated_outcome(CareJudging(), CARE_ITEM, "x", [_judged(None)] * 2, "mean")
    assert outcome.value is None
    assert outcome.reason.startswith("none of its 2 judgings scored it (judging 1: ")
    assert "HTTP 400" in outcome.reason


def test_one_judging_is_the_outcome_as_it_is_and_records_nothing_new() -> None:
    once = _judged(6)
    assert repeated_outcome(CareJudging(), CARE_ITEM, "x", [once], "mean") is once
    assert JUDGMENTS_FIELD not in once.record  # a default field is not stored
    assert CareOutcome.from_record(once.record).judgments == ()


def test_a_jury_keeps_the_first_judgings_jury() -> None:
    judgings = [
        jury_outcome(CareJudging(), CARE_ITEM, "x", _care(4, 8), "mean"),
        jury_outcome(CareJudging(), CARE_ITEM, "x", _care(6, 10), "mean"),
    ]
    outcome = repeated_outcome(CareJudging(), CARE_ITEM, "x", judgings, "mean")
    assert outcome.value == 7.0  # judgings 6 and 8: their mean
    assert outcome.record[JUDGMENTS_FIELD] == [6.0, 8.0]
    assert outcome.details[JURY_KEY] == judgings[0].details[JURY_KEY]


@pytest.mark.parametrize(
    ("repeats", "fraction", "said"),
    [
        (0, 1.0, "judge_repeats=0: must be a whole number from 1"),
        (21, 1.0, "to 20"),
        (True, 1.0, "judge_repeats=True"),
        ("²", 1.0, "judge_repeats='²'"),
        (2, 0.0, "rejudge_fraction=0.0: must be a number above 0 and at most 1"),
        (2, 1.5, "at most 1"),
        (2, "x", "rejudge_fraction='x'"),
        (1, 0.3, "rejudge_fraction=0.3 re-judges nothing with judge_repeats=1"),
    ],
)
def test_options_are_checked_in_words(repeats: object, fraction: object, said: str) -> None:
    with pytest.raises(ValueError, match=said.replace("[", r"\[")):
        check_repeats(repeats, fraction)
    with pytest.raises(JudgeConfigError, match=said.replace("[", r"\[")):
        _repeats({"judge_repeats": repeats, "rejudge_fraction": fraction})


def _repeats(metadata: dict[str, object]) -> Repeats:
    """The re-judging of the `JudgeOptions` lm-eval's --metadata builds (no judge needed)."""
    return metadata_options(metadata, judges=False).repeats


def test_lm_eval_options() -> None:
    assert _repeats({}) == Repeats()
    assert _repeats({"judge_repeats": "3", "rejudge_fraction": "0.25"}) == Repeats(3, 0.25)
    with pytest.raises(JudgeConfigError, match="needs a judge seed"):
        _repeats({"judge_repeats": 2, "judge_seed": None})


def test_records_without_re_judging_are_as_before() -> None:
    """The fields a record held before re-judging existed, and nothing more; a default field
    that is not opted out (VS's `skipped`) is still stored."""
    from inspect_culture.benchmarks.cqbench.spec import VsOutcome
    from inspect_culture.benchmarks.culturesynth.spec import PairOutcome

    care = CareOutcome("zh-1", 6.0, "norms", "Mainland China").to_record()
    assert care == {
        "question_id": "zh-1",
        "rating": 6.0,
        "category": "norms",
        "geographic_scope": "Mainland China",
    }
    pair = PairOutcome("zh-0001", 1, "Chinese", "Food", True, None, 0).to_record()
    assert list(pair) == [
        "question_id", "outcome", "language", "topic", "consistent", "reason", "seed",
    ]  # fmt: skip
    vs = VsOutcome("s1", "social", 0.5, 1.0, False, False).to_record()
    assert vs["skipped"] is False


def test_care_metrics_with_a_category_nothing_re_judged_and_lone_judgings() -> None:
    """Known answer: norms questions re-judged ((4, 6) -> 5; (7, None, None) -> 7, one usable
    judging), opinion questions judged once (3, 9): the ratings are the combined values, and
    every interval, the opinion one included, has its judge level (measured on the run)."""
    from inspect_culture.benchmarks.care.metrics import care_metrics

    def outcome(qid: str, rating: float, category: str, judgments=()) -> CareOutcome:
        return CareOutcome(qid, rating, category, "Mainland China", tuple(judgments))

    outcomes = [
        outcome("n1", 5.0, "norms", (4.0, 6.0)),
        outcome("n2", 7.0, "norms", (7.0, None, None)),
        outcome("n3", 2.0, "norms", (1.0, 3.0)),
        outcome("o1", 3.0, "opinion"),
        outcome("o2", 9.0, "opinion"),
    ]
    metrics = care_metrics(outcomes, resamples=300)
    assert metrics["rating"] == pytest.approx((5 + 7 + 2 + 3 + 9) / 5)
    assert metrics["rating_norms"] == pytest.approx(14 / 3)
    assert metrics["rating_opinion"] == pytest.approx(6.0)
    for name in ("rating", "rating_norms", "rating_opinion"):
        assert metrics[f"{name}_ci_low"] <= metrics[f"{name}_ci_questions_only_low"]
        assert 0.0 < metrics[f"{name}_ci_judge_share"] < 1.0

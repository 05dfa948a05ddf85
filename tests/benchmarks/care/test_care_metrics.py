import pytest

from inspect_culture.benchmarks.care.metrics import care_metrics, judge_agreement
from inspect_culture.benchmarks.care.spec import (
    CATEGORY_SLUGS,
    HEADLINE_METRICS,
    AgreementOutcome,
    CareOutcome,
)

SCOPES = ("nationwide", "sub_nationwide", "continent_wide", "worldwide")


def metric_names() -> set[str]:
    """Every name `care_metrics` can return."""
    names = {*HEADLINE_METRICS, *(f"rating_scope_{s}" for s in SCOPES)}
    for c in CATEGORY_SLUGS:
        names |= {f"rating_{c}", f"rating_{c}_ci_low", f"rating_{c}_ci_high"}
    return names


OUTCOMES = [
    CareOutcome("q1", 8.0, "entities", "Nationwide"),
    CareOutcome("q2", 6.0, "entities", "Sub-nationwide"),
    CareOutcome("q3", None, "opinion", "Nationwide"),  # unscored
    CareOutcome("q4", 3.5, "literacy", "Nationwide"),
    CareOutcome("q5", 10.0, "literacy", "Continent-wide"),
]


def test_known_answer() -> None:
    m = care_metrics(OUTCOMES)
    assert m["rating"] == pytest.approx((8 + 6 + 3.5 + 10) / 4)  # unscored is not a 0
    assert (m["n_scored"], m["n_unscored"], m["unscored_rate"]) == (4.0, 1.0, 0.2)
    assert m["rating_entities"] == 7.0
    assert m["rating_literacy"] == 6.75
    assert "rating_opinion" not in m  # no scored sample in that category
    assert m["rating_scope_nationwide"] == pytest.approx((8 + 3.5) / 2)
    assert m["rating_scope_sub_nationwide"] == 6.0
    assert m["rating_scope_continent_wide"] == 10.0
    assert m["rating_ci_low"] <= m["rating"] <= m["rating_ci_high"]
    assert m["rating_ci_low"] >= 3.5 and m["rating_ci_high"] <= 10.0
    assert set(m) <= metric_names()


def test_all_unscored() -> None:
    m = care_metrics([CareOutcome("q1", None, "opinion", "Nationwide")])
    assert m == {"n_scored": 0.0, "n_unscored": 1.0, "unscored_rate": 1.0}


def test_epochs_average_each_question_first() -> None:
    # q1 judged 2 and 4 in two epochs (mean 3), q2 judged 9 once: (3 + 9) / 2, not (2+4+9) / 3
    outcomes = [
        CareOutcome("q1", 2.0, "norms", "Nationwide"),
        CareOutcome("q2", 9.0, "norms", "Worldwide"),
        CareOutcome("q1", 4.0, "norms", "Nationwide"),
        CareOutcome("q3", None, "opinion", "Nationwide"),
        CareOutcome("q3", None, "opinion", "Nationwide"),
        CareOutcome("q2", None, "norms", "Worldwide"),  # a failed epoch of a rated question
    ]
    m = care_metrics(outcomes)
    assert m["rating"] == 6.0 and m["rating_norms"] == 6.0
    assert m["rating_scope_nationwide"] == 3.0 and m["rating_scope_worldwide"] == 9.0
    assert (m["n_scored"], m["n_unscored"], m["unscored_rate"]) == (2.0, 1.0, pytest.approx(1 / 3))


def test_three_identical_epochs_equal_one_and_order_does_not_matter() -> None:
    once = care_metrics(OUTCOMES)
    thrice = care_metrics(list(reversed(OUTCOMES)) * 3)
    assert thrice == once  # same n, same interval: questions are resampled, not epochs


def test_outcome_record_round_trip() -> None:
    outcome = OUTCOMES[2]
    assert CareOutcome.from_record(outcome.to_record()) == outcome
    record = {"category": "opinion", "geographic_scope": "Nationwide", "question": "Q"}
    judged = CareOutcome.judged("care_zh_001", record, None)
    assert judged == CareOutcome("care_zh_001", None, "opinion", "Nationwide")
    with pytest.raises(ValueError, match="lacks geographic_scope"):
        CareOutcome.from_record({"question_id": "q", "rating": 1.0, "category": "opinion"})


def test_agreement_counts_each_response_once_across_epochs() -> None:
    once = [
        AgreementOutcome("r1", 1.0, 1.0, "opinion"),
        AgreementOutcome("r2", 3.0, 2.0, "opinion"),
        AgreementOutcome("r3", 2.0, 3.0, "literacy"),
        AgreementOutcome("r4", None, 5.0, "literacy"),
    ]
    assert judge_agreement(once * 3) == judge_agreement(once)
    m = judge_agreement(once + [AgreementOutcome("r1", 3.0, 1.0, "opinion")])  # r1: mean 2
    assert (m["n_scored"], m["n_unscored"]) == (3.0, 1.0)
    assert m["judge_hist_2"] == 2 and m["judge_hist_1"] == 0

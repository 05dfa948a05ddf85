import dataclasses

import pytest

from inspect_culture.benchmarks.normad.metrics import normad_metrics
from inspect_culture.benchmarks.normad.parse import score_answer
from inspect_culture.benchmarks.normad.spec import HEADLINE_METRICS, LABELS, NormadOutcome
from inspect_culture.benchmarks.normad.taxonomy import COUNTRY_TO_IW, IW_CLUSTERS, SUBCATEGORIES


def _outcome(qid: str, gold: str, pred: str | None, cluster: str, sub: str, country: str):
    return NormadOutcome(qid, gold, pred, "first_word", cluster, sub, country)


OUTCOMES = [
    _outcome("0", "yes", "yes", "confucian", "eating", "japan"),
    _outcome("1", "no", "yes", "confucian", "gifts", "japan"),
    _outcome("2", "neutral", None, "confucian", "gifts", "china"),
    _outcome("3", "no", "no", "latin_america", "eating", "brazil"),
]


def test_known_answer() -> None:
    m = normad_metrics(OUTCOMES)
    assert m["accuracy"] == 0.5
    assert m["unparsed_rate"] == 0.25
    # yes: P=1/2 R=1 F1=2/3; no: P=1 R=1/2 F1=2/3; neutral: P=0 R=0 F1=0
    assert m["precision_yes"] == 0.5 and m["recall_yes"] == 1.0
    assert m["precision_no"] == 1.0 and m["recall_no"] == 0.5
    assert m["f1_neutral"] == 0.0
    assert m["macro_f1"] == pytest.approx((2 / 3 + 2 / 3 + 0) / 3)
    assert m["accuracy_iw_confucian"] == pytest.approx(1 / 3)
    assert m["accuracy_iw_latin_america"] == 1.0
    assert m["accuracy_subcategory_eating"] == 1.0
    assert m["accuracy_subcategory_gifts"] == 0.0
    assert m["accuracy_country_japan"] == 0.5
    assert m["accuracy_country_china"] == 0.0
    assert m["accuracy_ci_low"] <= 0.5 <= m["accuracy_ci_high"]
    # groups absent from the data are absent, not 0
    assert "accuracy_iw_african_islamic" not in m
    assert "accuracy_country_egypt" not in m


def test_every_returned_name_is_known() -> None:
    per_label = [f"{kind}_{label}" for label in LABELS for kind in ("precision", "recall", "f1")]
    groups = {"iw": IW_CLUSTERS, "subcategory": SUBCATEGORIES, "country": sorted(COUNTRY_TO_IW)}
    breakdowns = [f"accuracy_{p}_{g}" for p, members in groups.items() for g in members]
    known = {*HEADLINE_METRICS, *per_label, *breakdowns}
    assert set(normad_metrics(OUTCOMES)) <= known
    # 5 headline + 9 per-label + 8 clusters + 4 subcategories + 75 countries
    assert len(known) == 5 + 9 + 8 + 4 + 75


def test_identical_epochs_change_nothing() -> None:
    """Three agreeing epochs are the same questions: every number, the interval included."""
    assert normad_metrics(OUTCOMES * 3) == normad_metrics(OUTCOMES)


def test_means_count_questions_and_counts_pool_judgments() -> None:
    # question 0 right in 1 of 2 epochs, question 1 wrong in its only epoch
    outcomes = [
        _outcome("0", "yes", "yes", "confucian", "eating", "japan"),
        _outcome("0", "yes", "no", "confucian", "eating", "japan"),
        _outcome("1", "no", None, "confucian", "eating", "china"),
    ]
    m = normad_metrics(outcomes)
    assert m["accuracy"] == pytest.approx((0.5 + 0.0) / 2)  # pooled would be 1/3
    assert m["unparsed_rate"] == pytest.approx(0.5)  # pooled would be 1/3
    assert m["accuracy_country_japan"] == pytest.approx(0.5)
    assert m["accuracy_iw_confucian"] == pytest.approx(0.25)
    # every judgment counts for precision/recall: "no" predicted once, wrongly
    assert m["recall_yes"] == pytest.approx(0.5) and m["precision_no"] == 0.0


def test_outcome_record_round_trip() -> None:
    record = {"id": "7", "gold_label": "no", "iw_cluster": "confucian", "subcategory": "gifts"}
    outcome = score_answer({**record, "country": "türkiye"}, "2) No", "strict")
    as_json = outcome.to_record()
    assert as_json == {
        "sample_id": "7", "gold": "no", "pred": "no", "rule": "option_number",
        "iw_cluster": "confucian", "subcategory": "gifts", "country": "türkiye",
    }  # fmt: skip
    assert NormadOutcome.from_record({**as_json, "extra": 1}) == outcome
    with pytest.raises(ValueError, match="lacks sample_id"):
        NormadOutcome.from_record({k: v for k, v in as_json.items() if k != "sample_id"})
    assert dataclasses.replace(outcome, pred=None).to_record()["pred"] is None

from dataclasses import astuple

import pytest

from inspect_culture.stats import classification as cls

LABELS = ("yes", "no", "neutral")
# Hand-worked example (8 items, one unparsed):
#   gold: y y y n n n u u      (u = neutral)
#   pred: y y n n y - u n      (- = unparsed)
GOLD = ["yes", "yes", "yes", "no", "no", "no", "neutral", "neutral"]
PRED = ["yes", "yes", "no", "no", "yes", None, "neutral", "no"]


def test_per_label_scores_by_hand() -> None:
    scores = cls.per_label_scores(GOLD, PRED, LABELS)
    # (precision, recall, f1, support)
    # yes: tp=2, predicted=3, support=3 -> P=2/3, R=2/3, F1=2/3
    assert astuple(scores["yes"]) == pytest.approx((2 / 3, 2 / 3, 2 / 3, 3))
    # no: tp=1, predicted=3 (idx 2,3,7), support=3 -> P=1/3, R=1/3, F1=1/3
    assert astuple(scores["no"]) == pytest.approx((1 / 3, 1 / 3, 1 / 3, 3))
    # neutral: tp=1, predicted=1, support=2 -> P=1, R=1/2, F1=2/3
    assert astuple(scores["neutral"]) == pytest.approx((1.0, 0.5, 2 / 3, 2))


def test_macro_f1_by_hand() -> None:
    assert cls.macro_f1(GOLD, PRED, LABELS) == pytest.approx((2 / 3 + 1 / 3 + 2 / 3) / 3)


def test_label_never_predicted_has_zero_precision_not_error() -> None:
    scores = cls.per_label_scores(["yes", "no"], ["yes", "yes"], LABELS)
    assert scores["no"].precision == 0.0 and scores["no"].f1 == 0.0
    assert scores["neutral"].support == 0


def test_length_mismatch_is_an_error() -> None:
    with pytest.raises(ValueError, match="length mismatch"):
        cls.per_label_scores(["yes"], [], LABELS)


def test_resampled_macro_f1_is_macro_f1_of_each_resample() -> None:
    import numpy as np

    golds = ["yes", "no", "neutral", "no", "yes", "neutral"]
    preds = ["yes", "yes", None, "no", "neutral", "neutral"]
    labels = ("yes", "no", "neutral")
    statistic = cls.resampled_macro_f1(golds, preds, labels)
    indices = np.array([[0, 1, 2, 3, 4, 5], [1, 1, 2, 2, 5, 0], [3, 3, 3, 3, 3, 3]])
    for row, value in zip(indices, statistic(indices), strict=True):
        expected = cls.macro_f1([golds[i] for i in row], [preds[i] for i in row], labels)
        assert value == pytest.approx(expected)


def test_resampled_macro_f1_is_exactly_the_per_label_counts() -> None:
    """The resampled statistic (one bincount of gold and prediction pairs) gives, to the last
    bit, the F1s of each label's counts: unparsed (None) and unknown predictions and golds
    count for no label."""
    import numpy as np

    labels = ("yes", "no", "neutral")
    pool = ["yes", "no", "neutral", "other", None]
    rng = np.random.default_rng(11)
    for n in (1, 7, 300):
        golds = [pool[i] for i in rng.integers(0, 4, n)]
        preds = [pool[i] for i in rng.integers(0, 5, n)]
        indices = rng.integers(0, n, size=(40, n))
        got = cls.resampled_macro_f1(golds, preds, labels)(indices)
        for row, value in zip(indices, got, strict=True):
            f1s = []
            for label in labels:
                gold = [golds[i] == label for i in row]
                pred = [preds[i] == label for i in row]
                tp = sum(g and p for g, p in zip(gold, pred))
                p = np.float64(tp) / sum(pred) if sum(pred) else 0.0
                r = np.float64(tp) / sum(gold) if sum(gold) else 0.0
                f1s.append(2 * p * r / (p + r) if p + r else 0.0)
            assert value == np.mean(f1s)

"""The two-level bootstrap: a seeded known-answer case worked by hand, and its limiting cases
(one judgment a question is today's one-level bootstrap draw for draw; judgments that never vary
give the one-level interval of the question means)."""

from __future__ import annotations

import numpy as np
import pytest

from inspect_culture.stats.bootstrap import bootstrap_means
from inspect_culture.stats.judge_noise import noise_interval, two_level_means


def test_one_judgment_a_question_is_the_one_level_bootstrap() -> None:
    values = [3.0, 7.0, 5.0, 9.0, 1.0, 6.0]
    two = two_level_means([[v] for v in values], resamples=400, seed=11)
    assert np.array_equal(two, bootstrap_means(values, resamples=400, seed=11))


def test_judgments_that_never_vary_give_the_one_level_interval() -> None:
    judged = [[3.0, 3.0, 3.0], [7.0, 7.0], [5.0, 5.0, 5.0, 5.0], [9.0, 9.0, 9.0]]
    two = two_level_means(judged, resamples=300, seed=4)
    one = bootstrap_means([3.0, 7.0, 5.0, 9.0], resamples=300, seed=4)
    assert np.allclose(two, one)
    interval = noise_interval(judged, resamples=300, seed=4)
    assert interval.low == pytest.approx(interval.questions_only_low)
    assert interval.high == pytest.approx(interval.questions_only_high)
    assert interval.judge_share == 0.0


def test_seeded_two_level_draws_worked_by_hand() -> None:
    """Redo the draws with numpy's generators as the docstring says they are made: outer
    question indices from `seed`, inner picks from (seed, 1), floor(u * size) among a question's
    own judgments, and compare each resample's mean."""
    judged = [[1.0, 3.0], [10.0], [4.0, 6.0, 8.0]]
    seed, k = 7, 5
    got = two_level_means(judged, resamples=k, seed=seed)
    outer = np.random.default_rng(seed).integers(0, 3, size=(k, 3))
    inner = np.random.default_rng([seed, 1]).random((k, 3, 3))
    expected = []
    for r in range(k):
        means = []
        for c, q in enumerate(outer[r]):
            size = len(judged[q])
            picks = [judged[q][int(inner[r, c, j] * size)] for j in range(size)]
            means.append(sum(picks) / size)
        expected.append(sum(means) / 3)
    assert got.tolist() == pytest.approx(expected)


def test_judge_noise_widens_the_interval_and_says_by_how_much() -> None:
    rng = np.random.default_rng(0)
    truth = rng.normal(6.0, 1.0, size=60)
    noisy = [list(t + rng.normal(0.0, 2.0, size=3)) for t in truth]
    interval = noise_interval(noisy, resamples=500, seed=0)
    one = interval.questions_only_high - interval.questions_only_low
    assert interval.high - interval.low > one
    assert 0.0 < interval.judge_share < 1.0


def test_a_question_without_judgments_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one judgment"):
        two_level_means([[1.0], []])
    assert two_level_means([]).size == 0

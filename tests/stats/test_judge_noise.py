"""The adjusted two-level bootstrap: its limiting cases (judgings that never vary give the
one-level interval draw for draw; epochs' different answers are not judge noise), a shrink
factor and a bootstrap variance worked by hand, the draws redone by hand, a group measured on a
run's noise, and its coverage in seeded simulations, all re-judged or a fifth (the naive
version over-covers)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from inspect_culture.judging.noise import (
    NoiseInterval,
    Separation,
    interval_metrics,
    judge_noise_text,
    noise_interval,
    pooled_within_variance,
    rejudged_needed,
    separation,
    shrink_factor,
    two_level_means,
)
from inspect_culture.stats.bootstrap import bootstrap_mean_interval, bootstrap_means

# one answer a question, judged twice ([1, 3], [5, 7]) or once ([4], [8]); values: the means
VALUES = [2.0, 4.0, 6.0, 8.0]
JUDGED = [[[1.0, 3.0]], [[4.0]], [[5.0, 7.0]], [[8.0]]]


def test_judgments_that_never_vary_give_the_one_level_interval_draw_for_draw() -> None:
    values = [3.0, 7.0, 5.0, 9.0, 1.0]
    judged = [[[3.0, 3.0, 3.0]], [[7.0, 7.0]], [[5.0]], [[9.0, 9.0, 9.0]], [[1.0]]]
    two = two_level_means(values, judged, resamples=300, seed=4)
    assert np.array_equal(two, bootstrap_means(values, resamples=300, seed=4))
    interval = noise_interval(values, judged, resamples=300, seed=4)
    assert (interval.low, interval.high) == bootstrap_mean_interval(values, resamples=300, seed=4)
    assert (interval.questions_only_low, interval.questions_only_high) == (
        interval.low,
        interval.high,
    )
    assert interval.judge_share == 0.0


def test_shrink_factor_worked_by_hand() -> None:
    # var(values, ddof=1) = (9 + 1 + 1 + 9) / 3 = 20/3; within: ((-1)^2 + 1^2) * 2 / (1 + 1) = 2;
    # the judge's part of a value's variance: 2 * mean(1/2, 1, 1/2, 1) = 1.5;
    # c^2 = (20/3 - 1.5) / (20/3) = 0.775
    assert shrink_factor(VALUES, JUDGED) == pytest.approx(math.sqrt(0.775))
    assert shrink_factor(VALUES, [[[v]] for v in VALUES]) == 1.0  # nothing re-judged
    assert shrink_factor([5.0, 5.0], [[[4.0, 6.0]], [[5.0]]]) == 1.0  # no spread to shrink


def test_epochs_answers_are_not_judge_noise() -> None:
    """Two epochs' answers of a question, each judged once and rated differently, hold no judge
    noise: the judge share is 0 and the interval is the one-level one."""
    values = [5.0, 3.0, 8.0, 6.0]  # each question's mean over its two answers
    judged = [[[4.0], [6.0]], [[2.0], [4.0]], [[7.0], [9.0]], [[5.0], [7.0]]]
    assert pooled_within_variance(judged) == 0.0
    interval = noise_interval(values, judged, resamples=300, seed=1)
    assert interval.judge_share == 0.0
    assert (interval.low, interval.high) == bootstrap_mean_interval(values, resamples=300, seed=1)
    # judged twice each, (3, 5) and (5, 7): deviations of 1 around each answer's own mean
    judged_twice = [[[3.0, 5.0], [5.0, 7.0]], [[2.0, 2.0], [4.0, 4.0]], [[7.0, 7.0], [9.0, 9.0]]]
    # squares 1 + 1 + 1 + 1 over 6 answers' 6 degrees of freedom: 4 / 6
    assert pooled_within_variance(judged_twice) == pytest.approx(4 / 6)


def test_a_group_without_re_judged_answers_uses_the_runs_noise() -> None:
    """A category none of whose answers was re-judged: no crash, and the judge's noise measured
    on the whole run widens its interval."""
    values, judged = [2.0, 6.0, 9.0], [[[2.0]], [[6.0]], [[9.0]]]
    alone = noise_interval(values, judged, resamples=300, seed=2)
    assert alone.judge_share == 0.0  # nothing to measure the judge on: one-level
    run = noise_interval(values, judged, resamples=300, seed=2, noise_from=JUDGED)
    assert run.high - run.low > run.questions_only_high - run.questions_only_low


def test_bootstrap_variance_matches_the_variance_worked_by_hand() -> None:
    """Var* of the mean of 4 draws = (c^2 * var0(values) + mean inner variance) / 4, where
    var0 = 5 (ddof 0), c^2 = 0.775; a question judged twice adds s^2 / 2 with its deviations
    scaled by sqrt(2): (+-sqrt(2))^2 = 2, so 1; a question judged once draws one pooled scaled
    deviation: variance 2. Inner mean = (1 + 2 + 1 + 2) / 4 = 1.5.
    Var* = (0.775 * 5 + 1.5) / 4 = 1.34375; the questions-only one: 0.775 * 5 / 4 = 0.96875."""
    two = two_level_means(VALUES, JUDGED, resamples=200_000, seed=3)
    outer = two_level_means(VALUES, JUDGED, resamples=200_000, seed=3, judge_level=False)
    assert two.mean() == pytest.approx(5.0, abs=0.01)
    assert two.var() == pytest.approx(1.34375, rel=0.02)
    assert outer.var() == pytest.approx(0.96875, rel=0.02)


def test_seeded_draws_redone_by_hand() -> None:
    """Outer indices from `seed`; inner uniforms from (seed, 1): the own deviations of an answer
    judged twice at floor(u * 2), then one pooled deviation per drawn answer judged once."""
    seed, k = 7, 3
    got = two_level_means(VALUES, JUDGED, resamples=k, seed=seed)
    c = math.sqrt(0.775)
    shrunk = [5.0 + c * (v - 5.0) for v in VALUES]
    s2 = math.sqrt(2.0)
    own = [[-s2, s2], [0.0, 0.0], [-s2, s2], [0.0, 0.0]]
    pooled = [-s2, s2, -s2, s2]
    outer = np.random.default_rng(seed).integers(0, 4, size=(k, 4))
    inner = np.random.default_rng([seed, 1])
    uniforms = inner.random((k, 4, 1, 2))
    lone = inner.integers(0, 4, size=(k, 4, 1))
    expected = []
    for r in range(k):
        total = 0.0
        for col, q in enumerate(outer[r]):
            size = len(JUDGED[q][0])
            if size > 1:
                picks = [int(uniforms[r, col, 0, j] * size) for j in range(size)]
                noise = sum(own[q][p] for p in picks) / size
            else:
                noise = pooled[lone[r, col, 0]]
            total += shrunk[q] + noise
        expected.append(total / 4)
    assert got.tolist() == pytest.approx(expected)


@pytest.mark.parametrize("fraction", [1.0, 0.2])
def test_coverage_is_near_nominal_in_a_seeded_simulation(fraction: float) -> None:
    """Questions with between-question sd 1, judge sd 1.5; every question judged 3 times, or a
    fifth of them (the rest once): the 95% interval covers the true mean in 0.92-0.98 of 300
    datasets (resampling both levels as they are gave 0.98 and more)."""
    rng = np.random.default_rng(2026)
    covered = 0
    for trial in range(300):
        truth = rng.normal(0.0, 1.0, size=40)
        times = [3 if rng.random() < fraction else 1 for _ in truth]
        judged = [[list(t + rng.normal(0.0, 1.5, size=n))] for t, n in zip(truth, times)]
        values = [float(np.mean(g[0])) for g in judged]
        interval = noise_interval(values, judged, resamples=400, seed=trial)
        covered += interval.low <= 0.0 <= interval.high
    assert 0.92 <= covered / 300 <= 0.98


def test_judge_noise_widens_the_interval_and_says_by_how_much() -> None:
    rng = np.random.default_rng(0)
    truth = rng.normal(6.0, 1.0, size=60)
    quiet = [[list(t + rng.normal(0.0, 0.2, size=3))] for t in truth]
    noisy = [[list(t + rng.normal(0.0, 2.0, size=3))] for t in truth]
    shares = []
    for judged in (quiet, noisy):
        values = [float(np.mean(g[0])) for g in judged]
        interval = noise_interval(values, judged, resamples=500, seed=0)
        assert interval.high - interval.low > (
            interval.questions_only_high - interval.questions_only_low
        )
        shares.append(interval.judge_share)
    assert 0.0 < shares[0] < shares[1] < 1.0


def test_interval_metrics_names() -> None:
    metrics = interval_metrics("rating", VALUES, JUDGED, resamples=200, seed=0)
    interval = noise_interval(VALUES, JUDGED, resamples=200, seed=0)
    assert metrics == {
        "rating_ci_low": interval.low,
        "rating_ci_high": interval.high,
        "rating_ci_questions_only_low": interval.questions_only_low,
        "rating_ci_questions_only_high": interval.questions_only_high,
        "rating_ci_judge_share": interval.judge_share,
        "rating_ci_judge_variance_share": interval.judge_variance_share,
        "rating_judge_noise_separable": 1.0,
    }


def test_the_share_of_the_variance_beside_the_share_of_the_width() -> None:
    """Widths go as standard deviations: a questions-only width of 0.82 against 1 is a judge
    share of 0.18 of the width and 1 - 0.82^2 = 0.3276 of the variance (about a third)."""
    interval = NoiseInterval(0.0, 1.0, 0.09, 0.91)
    assert interval.judge_share == pytest.approx(0.18)
    assert interval.judge_variance_share == pytest.approx(0.3276)
    assert NoiseInterval(0.0, 1.0, 0.0, 1.0).judge_variance_share == 0.0
    metrics = {"rating": 6.2, "rating_ci_low": 0.0, "rating_ci_high": 1.0}
    metrics |= {"rating_ci_questions_only_low": 0.09, "rating_ci_questions_only_high": 0.91}
    metrics |= {"rating_ci_judge_share": 0.18, "rating_ci_judge_variance_share": 0.3276}
    said = judge_noise_text("care_zh", "rating", metrics)
    assert said is not None and said.endswith(
        "judging makes 18% of its width (33% of its variance)"
    )


# four questions judged three times each, [x - 1.1, x, x + 1.1]: the values (the means) vary
# less than the judge, so the shrink factor is cut to 0
CUT_VALUES = [5.0, 6.0, 5.0, 6.0]
CUT_JUDGED = [[[v - 1.1, v, v + 1.1]] for v in CUT_VALUES]


def test_judge_noise_not_separable_says_so_with_the_answers_that_would_separate_it() -> None:
    """By hand: s2 = var(5, 6, 5, 6) = 1/3; w = (1.21 + 1.21) * 4 / 8 = 1.21 with d = 8 degrees
    of freedom (2 an answer); judge part J = 1.21 / 3, so J / s2 = 1.21 >= 1: c = 0. Planned
    share rho = 1.21 / (1 + sqrt(2 / 8)) = 0.80667; d' = 2 (1.96 rho / (1 - rho))^2 = 133.75
    degrees of freedom, at 2 an answer 66.9: 67 re-judged answers."""
    assert shrink_factor(CUT_VALUES, CUT_JUDGED) == 0.0
    assert rejudged_needed(1.21 / 3, 1 / 3, 8, 2.0) == 67
    split = separation(CUT_VALUES, CUT_JUDGED)
    assert (split.separable, split.rejudged_needed) == (False, 67)
    metrics = interval_metrics("rating", CUT_VALUES, CUT_JUDGED, resamples=200, seed=0)
    assert metrics["rating_judge_noise_separable"] == 0.0
    assert metrics["rating_judge_noise_rejudged_needed"] == 67.0
    assert "rating_ci_judge_share" not in metrics  # not 1.0: no share can be known
    assert "rating_ci_judge_variance_share" not in metrics
    said = judge_noise_text("care_zh", "rating", {"rating": 5.5, **metrics})
    assert said is not None and "% of its width" not in said
    assert said.endswith(
        "judge noise not separable from question spread at this size (about 67 re-judged "
        "answers would separate them)"
    )
    assert separation(VALUES, JUDGED).separable  # c^2 = 0.775: separable


def test_a_judge_far_noisier_than_the_values_asks_for_more_questions() -> None:
    """[x - 1.5, x, x + 1.5]: J / s2 = 2.25; one standard error high still leaves 2.25 / 1.5 =
    1.5 >= 1, so no number of re-judged answers would do: more questions are needed."""
    judged = [[[v - 1.5, v, v + 1.5]] for v in CUT_VALUES]
    assert separation(CUT_VALUES, judged) == Separation(False, None)
    metrics = interval_metrics("rating", CUT_VALUES, judged, resamples=200, seed=0)
    assert metrics["rating_judge_noise_separable"] == 0.0
    assert "rating_judge_noise_rejudged_needed" not in metrics
    said = judge_noise_text("care_zh", "rating", {"rating": 5.5, **metrics})
    assert said is not None and said.endswith("more questions needed)")


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one judgment"):
        two_level_means([1.0, 2.0], [[[1.0]], [[]]])
    with pytest.raises(ValueError, match="at least one answer"):
        two_level_means([1.0, 2.0], [[[1.0]], []])
    with pytest.raises(ValueError, match="2 question values for 1 lists"):
        two_level_means([1.0, 2.0], [[[1.0]]])
    assert two_level_means([], []).size == 0

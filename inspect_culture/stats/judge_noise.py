"""Judge noise in the interval: a two-level bootstrap that resamples questions, then the
judgments within each drawn question, so an interval covers both which questions were asked and
how the same answers would be judged again.

With one judgment per question it is the one-level bootstrap of `stats.bootstrap`, draw for draw;
with judgments that never vary within a question it gives the one-level interval of the question
means (the outer draws use the same seeded stream; the inner ones have their own).

Resampling both levels with replacement is conservative: the question means the outer level
draws already carry part of the judge noise, which the inner level adds again (Davison and
Hinkley 1997, section 3.8), so `judge_share` is an upper bound of the judge's part. Not yet used
by any option; the re-judging option will say so where it prints the interval."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from inspect_culture.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    percentile_interval,
    resampled,
)

_INNER_STREAM = 1  # the inner draws' seed is (seed, 1): independent of the outer stream


@dataclass(frozen=True)
class NoiseInterval:
    """The interval with the judge level, the one without it, and the share of the width the
    judge level adds (0 when judging never varies)."""

    low: float
    high: float
    questions_only_low: float
    questions_only_high: float

    @property
    def judge_share(self) -> float:
        """1 - (one-level width / two-level width): the part of the width judging adds."""
        width = self.high - self.low
        if not width > 0:
            return 0.0
        return max(0.0, 1.0 - (self.questions_only_high - self.questions_only_low) / width)


def two_level_means(
    judgments: Sequence[Sequence[float]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> np.ndarray:
    """Means over questions of each question's mean judgment, in `resamples` two-level resamples.

    `judgments`: per question, its judgments (at least one each; re-judgings, or a jury's
    repeated verdicts). Questions with one judgment are drawn as they are.
    """
    groups = [np.asarray(g, dtype=float) for g in judgments]
    if not groups:
        return np.empty(0)
    if any(g.size == 0 for g in groups):
        raise ValueError("every question needs at least one judgment")
    sizes = np.array([g.size for g in groups])
    width = int(sizes.max())
    # (questions, width) padded; a question's inner draw picks among its own judgments only
    table = np.zeros((len(groups), width))
    for row, g in enumerate(groups):
        table[row, : g.size] = g
    inner = np.random.default_rng([seed, _INNER_STREAM])

    def statistic(indices: np.ndarray) -> np.ndarray:
        if width == 1:
            return table[indices, 0].mean(axis=1)
        picks = (inner.random((*indices.shape, width)) * sizes[indices][..., None]).astype(int)
        drawn = np.take_along_axis(table[indices], picks, axis=2)  # (k, n, width)
        counts = sizes[indices]
        # each drawn question's mean of its own number of inner draws
        mask = np.arange(width)[None, None, :] < counts[..., None]
        question_means = (drawn * mask).sum(axis=2) / counts
        return question_means.mean(axis=1)

    return resampled(len(groups), statistic, resamples=resamples, seed=seed)


def noise_interval(
    judgments: Sequence[Sequence[float]],
    *,
    level: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> NoiseInterval:
    """The two-level interval of the mean, beside the one-level interval of the question means."""
    two = percentile_interval(two_level_means(judgments, resamples=resamples, seed=seed), level)
    means = [[float(np.mean(g))] for g in judgments]
    one = percentile_interval(two_level_means(means, resamples=resamples, seed=seed), level)
    return NoiseInterval(two[0], two[1], one[0], one[1])

"""Judge noise in the interval: a two-level bootstrap that resamples questions, then the
judgments within each drawn question, so the interval covers both which questions were asked and
how the same answers would be judged again (re-judging: `judging/repeats.py`).

Resampling both levels as they are counts the judge twice: a question's value already carries
its judge noise, which the inner level would add again (in a simulation that gave 98% coverage
for a nominal 95%). So the levels are adjusted as Davison and Hinkley (1997, section 3.8)
propose for two-stage data:
- the outer level draws the question values shrunk toward their mean, by the factor that leaves
  only the between-question variance (the values' variance less the judge part, estimated from
  the spread of the judgments within the re-judged questions);
- the inner level adds, to each drawn question, the mean of as many draws as it has judgings from
  its judgments' deviations from their mean, scaled by sqrt(n / (n - 1)) so that they vary as
  the judge does; a question judged once draws from every re-judged question's deviations (the
  judge's noise, estimated on the fraction that was re-judged).
The width "questions only" is the outer level alone: the interval if judging never varied. With
judgments that never vary both levels give the one-level interval of the values, draw for draw
(same seed, same outer draws)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
        """1 - (questions-only width / two-level width): the part of the width judging adds."""
        width = self.high - self.low
        if not width > 0:
            return 0.0
        return max(0.0, 1.0 - (self.questions_only_high - self.questions_only_low) / width)


@dataclass(frozen=True)
class _Levels:
    """The data of both levels: shrunk question values, and each question's deviations."""

    shrunk: np.ndarray  # (questions,)
    deviations: np.ndarray  # (questions, widest) scaled deviations, padded with 0
    sizes: np.ndarray  # (questions,) judgings of each question
    pooled: np.ndarray  # every re-judged question's scaled deviations (for those judged once)


def shrink_factor(values: Sequence[float], judgments: Sequence[Sequence[float]]) -> float:
    """c in [0, 1]: c^2 = (var(values) - judge part) / var(values), the judge part being the
    pooled within-question variance times the mean of 1 / judgings (1 when nothing varies)."""
    data = np.asarray(values, dtype=float)
    between = float(data.var(ddof=1)) if data.size > 1 else 0.0
    within = _pooled_within_variance(judgments)
    if not between > 0 or within == 0.0:
        return 1.0
    judge_part = within * float(np.mean([1.0 / len(g) for g in judgments]))
    return float(np.sqrt(max(0.0, between - judge_part) / between))


def _pooled_within_variance(judgments: Sequence[Sequence[float]]) -> float:
    squares = sum(float(((np.asarray(g) - np.mean(g)) ** 2).sum()) for g in judgments)
    freedom = sum(len(g) - 1 for g in judgments)
    return squares / freedom if freedom else 0.0


def _levels(values: Sequence[float], judgments: Sequence[Sequence[float]]) -> _Levels:
    data = np.asarray(values, dtype=float)
    groups = [np.asarray(g, dtype=float) for g in judgments]
    if len(groups) != data.size:
        raise ValueError(f"{data.size} question values for {len(groups)} lists of judgments")
    if any(g.size == 0 for g in groups):
        raise ValueError("every question needs at least one judgment")
    center = float(data.mean()) if data.size else 0.0
    shrunk = center + shrink_factor(values, judgments) * (data - center)
    sizes = np.array([g.size for g in groups], dtype=int)
    deviations = np.zeros((len(groups), int(sizes.max(initial=1))))
    for row, g in enumerate(groups):
        if g.size > 1:
            deviations[row, : g.size] = (g - g.mean()) * np.sqrt(g.size / (g.size - 1))
    pooled = np.concatenate([deviations[r, : sizes[r]] for r in range(len(groups)) if sizes[r] > 1])
    return _Levels(shrunk, deviations, sizes, pooled if pooled.size else np.zeros(1))


def two_level_means(
    values: Sequence[float],
    judgments: Sequence[Sequence[float]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    judge_level: bool = True,
) -> np.ndarray:
    """Means over questions in `resamples` two-level resamples (module docstring); without the
    judge level, the outer level alone (the same outer draws).

    `values`: each question's value (what the point estimate averages); `judgments`: its
    judgments (at least one each: every judging of every epoch of the question)."""
    if not len(values):
        return np.empty(0)
    levels = _levels(values, judgments)
    inner = np.random.default_rng([seed, _INNER_STREAM])
    width = levels.deviations.shape[1]

    def statistic(indices: np.ndarray) -> np.ndarray:
        outer = levels.shrunk[indices]
        if not judge_level or not levels.pooled.any():
            return outer.mean(axis=1)
        sizes = levels.sizes[indices]
        picks = (inner.random((*indices.shape, width)) * sizes[..., None]).astype(int)
        own = np.take_along_axis(levels.deviations[indices], picks, axis=2)
        mask = np.arange(width)[None, None, :] < sizes[..., None]
        noise = (own * mask).sum(axis=2) / sizes
        lone = levels.pooled[inner.integers(0, levels.pooled.size, size=indices.shape)]
        noise = np.where(sizes > 1, noise, lone)
        return (outer + noise).mean(axis=1)

    return resampled(len(values), statistic, resamples=resamples, seed=seed)


def noise_interval(
    values: Sequence[float],
    judgments: Sequence[Sequence[float]],
    *,
    level: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> NoiseInterval:
    """The two-level interval of the mean of `values`, beside its questions-only interval."""
    draws = {"resamples": resamples, "seed": seed}
    two = percentile_interval(two_level_means(values, judgments, **draws), level)
    one = percentile_interval(two_level_means(values, judgments, judge_level=False, **draws), level)
    return NoiseInterval(two[0], two[1], one[0], one[1])


def interval_metrics(
    name: str,
    values: Sequence[float],
    judgments: Sequence[Sequence[float]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, float]:
    """A metric's interval with the judge level, as both harnesses print it: `<name>_ci_low`,
    `<name>_ci_high`, the questions-only bounds and the judge's share of the width."""
    interval = noise_interval(values, judgments, resamples=resamples, seed=seed)
    return {
        f"{name}_ci_low": interval.low,
        f"{name}_ci_high": interval.high,
        f"{name}_ci_questions_only_low": interval.questions_only_low,
        f"{name}_ci_questions_only_high": interval.questions_only_high,
        f"{name}_ci_judge_share": interval.judge_share,
    }


def judge_noise_text(label: str, name: str, metrics: Mapping[str, float]) -> str | None:
    """What a re-judged run says of a metric's interval (None when it has no judge level)."""
    share = metrics.get(f"{name}_ci_judge_share")
    if share is None:
        return None
    low, high = metrics[f"{name}_ci_low"], metrics[f"{name}_ci_high"]
    q_low, q_high = (
        metrics[f"{name}_ci_questions_only_low"],
        metrics[f"{name}_ci_questions_only_high"],
    )
    return (
        f"{label}: {name} {metrics[name]:.4g}, 95% interval [{low:.4g}, {high:.4g}] with the "
        f"judge's noise, [{q_low:.4g}, {q_high:.4g}] from the questions alone: judging makes "
        f"{100 * share:.0f}% of its width"
    )

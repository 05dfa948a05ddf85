"""Judge noise in the interval: a two-level bootstrap that resamples questions, then the
judgings of each drawn question's answers, so the interval covers both which questions were
asked and how the same answers would be judged again (re-judging: `judging/repeats.py`).

Resampling both levels as they are counts the judge twice: a question's value already carries
its judge noise, which the inner level would add again (in a simulation that gave 98% coverage
for a nominal 95%). So the levels are adjusted as Davison and Hinkley (1997, section 3.8)
propose for two-stage data:
- the judge's variance is the judgings' spread around their own answer's mean, pooled over the
  answers judged more than once (an answer per question and epoch, so the variation between
  epochs' answers stays with the questions);
- the outer level draws the question values shrunk toward their mean, by the factor that leaves
  only the between-question variance (the values' variance less the judge's part of it, as for
  a mean of judgings);
- the inner level adds, to each drawn question, the mean over its answers of the mean of as many
  draws as the answer has judgings from its judgings' deviations from their mean, scaled by
  sqrt(n / (n - 1)) so that they vary as the judge does; an answer judged once draws from every
  re-judged answer's deviations (the judge's noise, measured on the share that was re-judged).
The bootstrap variance is then approximately the values' own (slightly above it for few
questions). The width "questions only" is the outer level alone: the interval if judging never
varied. With judgings that never vary both levels give the one-level interval of the values,
draw for draw (same seed, same outer draws).

Where the judge's estimated part reaches the values' whole variance, the shrink factor is cut
to 0: the interval stays right, but the questions-only one is a point and a share of the width
would read 100%. That is reported as not separable, with about how many re-judged answers
would separate them (`rejudged_needed`), and no share. The share of the width w sits beside the
share of the variance 1 - (1 - w)^2 (0.18 of the width is 0.33 of the variance)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from inspect_culture.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    percentile_interval,
    resampled,
)

_INNER_STREAM = 1  # the inner draws' seed is (seed, 1): independent of the outer stream
_Z = NormalDist().inv_cdf(0.975)  # 1.96: the judge part held 1.96 standard errors below
NOT_SEPARABLE = "judge noise not separable from question spread at this size"


@dataclass(frozen=True)
class NoiseInterval:
    """The interval with the judge level, the one without it, and the share of the width the
    judge level adds (0 when judging never varies). `separable` is False when the judge's part
    of the values' variance reached their whole variance (the shrink factor cut to 0): the
    questions-only interval is then a point and no share can be known; `rejudged_needed` is
    about how many re-judged answers would separate them (the function of that name)."""

    low: float
    high: float
    questions_only_low: float
    questions_only_high: float
    separable: bool = True
    rejudged_needed: int | None = None

    @property
    def judge_share(self) -> float:
        """1 - (questions-only width / two-level width): the part of the width judging adds."""
        width = self.high - self.low
        if not width > 0:
            return 0.0
        return max(0.0, 1.0 - (self.questions_only_high - self.questions_only_low) / width)

    @property
    def judge_variance_share(self) -> float:
        """The judge's share of the variance: 1 - (questions-only width / width)^2, that is
        1 - (1 - judge_share)^2, widths going as standard deviations (0.18 of the width is
        0.33 of the variance)."""
        return 1.0 - (1.0 - self.judge_share) ** 2


# per question, its scored answers (one per epoch), each with its judgings' values
Judgings = Sequence[Sequence[Sequence[float]]]


@dataclass(frozen=True)
class _Levels:
    """The data of both levels: shrunk question values, and each answer's deviations."""

    shrunk: np.ndarray  # (questions,)
    answers: np.ndarray  # (questions, most answers) answer rows, -1 where a question has fewer
    counts: np.ndarray  # (questions,) answers of each question
    deviations: np.ndarray  # (answers, most judgings) scaled deviations, padded with 0
    sizes: np.ndarray  # (answers,) judgings of each answer
    pooled: np.ndarray  # every re-judged answer's scaled deviations (for those judged once)


def _answers(judgments: Judgings) -> list[np.ndarray]:
    return [np.asarray(a, dtype=float) for question in judgments for a in question]


def pooled_within_variance(judgments: Judgings) -> float:
    """The judge's variance: the judgings' spread around their own answer's mean, pooled over
    every answer judged more than once (0 when none was)."""
    answers = _answers(judgments)
    squares = sum(float(((a - a.mean()) ** 2).sum()) for a in answers if a.size > 1)
    freedom = sum(a.size - 1 for a in answers)
    return squares / freedom if freedom else 0.0


def judge_variance(question: Sequence[Sequence[float]], within: float) -> float:
    """The judge's part of a question's value (the mean over its answers of each answer's mean
    judging): within x sum(1 / judgings of an answer) / answers^2."""
    return within * sum(1.0 / len(a) for a in question) / len(question) ** 2


def shrink_factor(
    values: Sequence[float], judgments: Judgings, noise_from: Judgings | None = None
) -> float:
    """c in [0, 1]: c^2 = (var(values) - mean judge part) / var(values), the judge's variance
    measured on `noise_from` (all of a run's judgings; default `judgments`)."""
    data = np.asarray(values, dtype=float)
    between = float(data.var(ddof=1)) if data.size > 1 else 0.0
    within = pooled_within_variance(judgments if noise_from is None else noise_from)
    if not between > 0 or within == 0.0:
        return 1.0
    judge_part = float(np.mean([judge_variance(q, within) for q in judgments]))
    return float(np.sqrt(max(0.0, between - judge_part) / between))


@dataclass(frozen=True)
class Separation:
    """Whether the judge's part of the values' variance is told apart from their whole
    variance; if not, about how many re-judged answers would tell them apart (None: re-judging
    alone cannot, at this size)."""

    separable: bool
    rejudged_needed: int | None = None


def separation(
    values: Sequence[float], judgments: Judgings, noise_from: Judgings | None = None
) -> Separation:
    """Not separable where `shrink_factor` cuts c to 0: the judge's part of the values'
    variance (measured as there) reaches the values' variance, or the values do not vary while
    the judge does. Then the questions-only interval is a point, and a judge share of 100% would
    say only that the estimate overshot."""
    source = judgments if noise_from is None else noise_from
    within = pooled_within_variance(source)
    if within == 0.0 or not len(values):
        return Separation(True)
    data = np.asarray(values, dtype=float)
    total = float(data.var(ddof=1)) if data.size > 1 else 0.0
    judge_part = float(np.mean([judge_variance(q, within) for q in judgments]))
    if judge_part < total:
        return Separation(True)
    freedoms = [a.size - 1 for a in _answers(source) if a.size > 1]
    per_answer = sum(freedoms) / len(freedoms)
    return Separation(False, rejudged_needed(judge_part, total, sum(freedoms), per_answer))


def rejudged_needed(judge_part: float, total: float, freedom: int, per_answer: float) -> int | None:
    """About how many re-judged answers would separate the judge's part J of the values'
    variance from their variance s2, where a run's `freedom` degrees of freedom did not (None
    where re-judging alone cannot).

    The judge's variance w (J = m w) is estimated with d = `freedom` degrees of freedom (an
    answer judged n times gives n - 1), so its relative standard error, and J's, is sqrt(2 / d)
    (normal judgings). The split holds when J lies 1.96 standard errors below s2:
    1.96 rho sqrt(2 / d') <= 1 - rho, with rho = J / s2 the judge's share of the variance, so
    d' >= 2 (1.96 rho / (1 - rho))^2. The run's estimate says rho >= 1, which cannot be planned
    on; we plan on the share of which it is one standard error high, rho = (J / s2) /
    (1 + sqrt(2 / d)), so d' is always at least 1.96^2 d. If even that rho is >= 1 the values
    vary no more than the judge does: more questions are needed, not more judgings (None).
    d' becomes answers at the run's `per_answer` degrees of freedom (mean n - 1 of its re-judged
    answers). s2 and m are held as they are: the questions' own sampling error is a limit
    re-judging cannot lift, and more judgings per answer only lower m, so the figure errs high."""
    if not total > 0 or freedom < 1:
        return None
    share = judge_part / total / (1.0 + math.sqrt(2.0 / freedom))
    if share >= 1.0:
        return None
    return math.ceil(2.0 * (_Z * share / (1.0 - share)) ** 2 / per_answer)


def _scaled(answer: np.ndarray) -> np.ndarray:
    """An answer's deviations from its mean, scaled by sqrt(n / (n - 1)) to vary as the judge."""
    if answer.size < 2:
        return np.zeros(answer.size)
    return (answer - answer.mean()) * np.sqrt(answer.size / (answer.size - 1))


def _levels(values: Sequence[float], judgments: Judgings, noise_from: Judgings | None) -> _Levels:
    data = np.asarray(values, dtype=float)
    if len(judgments) != data.size:
        raise ValueError(f"{data.size} question values for {len(judgments)} lists of judgments")
    if any(not q or any(len(a) == 0 for a in q) for q in judgments):
        raise ValueError("every question needs at least one answer with at least one judgment")
    center = float(data.mean()) if data.size else 0.0
    shrunk = center + shrink_factor(values, judgments, noise_from) * (data - center)
    answers = _answers(judgments)
    sizes = np.array([a.size for a in answers], dtype=int)
    deviations = np.zeros((len(answers), int(sizes.max(initial=1))))
    for row, a in enumerate(answers):
        deviations[row, : a.size] = _scaled(a)
    counts = np.array([len(q) for q in judgments], dtype=int)
    table = np.full((len(judgments), int(counts.max(initial=1))), -1, dtype=int)
    row = 0
    for i, q in enumerate(judgments):
        table[i, : len(q)] = np.arange(row, row + len(q))
        row += len(q)
    source = _answers(judgments if noise_from is None else noise_from)
    pooled = [_scaled(a) for a in source if a.size > 1]
    return _Levels(
        shrunk,
        table,
        counts,
        deviations,
        sizes,
        np.concatenate(pooled) if pooled else np.zeros(1),
    )


def two_level_means(
    values: Sequence[float],
    judgments: Judgings,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    judge_level: bool = True,
    noise_from: Judgings | None = None,
) -> np.ndarray:
    """Means over questions in `resamples` two-level resamples (module docstring); without the
    judge level, the outer level alone (the same outer draws).

    `values`: each question's value (what the point estimate averages); `judgments`: per
    question, each of its scored answers' judgings (one answer per epoch; at least one judging
    each); `noise_from`: the judgings the judge's noise is measured on (a category's interval
    measures it on the whole run's; default `judgments`)."""
    if not len(values):
        return np.empty(0)
    levels = _levels(values, judgments, noise_from)
    inner = np.random.default_rng([seed, _INNER_STREAM])
    width = levels.deviations.shape[1]
    silent = not (levels.deviations.any() or levels.pooled.any())

    def statistic(indices: np.ndarray) -> np.ndarray:
        outer = levels.shrunk[indices]
        if not judge_level or silent:
            return outer.mean(axis=1)
        answers = levels.answers[indices]  # (k, n, most answers)
        present = answers >= 0
        rows = np.where(present, answers, 0)
        sizes = levels.sizes[rows]
        picks = (inner.random((*rows.shape, width)) * sizes[..., None]).astype(int)
        own = np.take_along_axis(levels.deviations[rows], picks, axis=-1)
        mask = np.arange(width) < sizes[..., None]
        noise = (own * mask).sum(axis=-1) / sizes
        lone = levels.pooled[inner.integers(0, levels.pooled.size, size=rows.shape)]
        noise = np.where(sizes > 1, noise, lone) * present
        return (outer + noise.sum(axis=-1) / levels.counts[indices]).mean(axis=1)

    return resampled(len(values), statistic, resamples=resamples, seed=seed)


def noise_interval(
    values: Sequence[float],
    judgments: Judgings,
    *,
    level: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    noise_from: Judgings | None = None,
) -> NoiseInterval:
    """The two-level interval of the mean of `values`, beside its questions-only interval."""
    draws = {"resamples": resamples, "seed": seed, "noise_from": noise_from}
    two = percentile_interval(two_level_means(values, judgments, **draws), level)
    one = percentile_interval(two_level_means(values, judgments, judge_level=False, **draws), level)
    split = separation(values, judgments, noise_from)
    return NoiseInterval(two[0], two[1], one[0], one[1], split.separable, split.rejudged_needed)


def interval_metrics(
    name: str,
    values: Sequence[float],
    judgments: Judgings,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    noise_from: Judgings | None = None,
) -> dict[str, float]:
    """A metric's interval with the judge level, as both harnesses print it: `<name>_ci_low`,
    `<name>_ci_high`, the questions-only bounds, `<name>_judge_noise_separable` (1 / 0) and,
    where separable, the judge's share of the width and of the variance; where not, no share
    (none can be known) but `<name>_judge_noise_rejudged_needed` when re-judging would do."""
    interval = noise_interval(
        values, judgments, resamples=resamples, seed=seed, noise_from=noise_from
    )
    metrics = {
        f"{name}_ci_low": interval.low,
        f"{name}_ci_high": interval.high,
        f"{name}_ci_questions_only_low": interval.questions_only_low,
        f"{name}_ci_questions_only_high": interval.questions_only_high,
    }
    if interval.separable:
        return metrics | {
            f"{name}_ci_judge_share": interval.judge_share,
            f"{name}_ci_judge_variance_share": interval.judge_variance_share,
            f"{name}_judge_noise_separable": 1.0,
        }
    needed = interval.rejudged_needed
    return metrics | {
        f"{name}_judge_noise_separable": 0.0,
        **({} if needed is None else {f"{name}_judge_noise_rejudged_needed": float(needed)}),
    }


def not_separable_text(needed: float | None) -> str:
    """The words for a metric whose judge noise is not separable, with what would separate it."""
    if needed is None:
        return f"{NOT_SEPARABLE} (the values vary no more than the judge: more questions needed)"
    return f"{NOT_SEPARABLE} (about {int(needed)} re-judged answers would separate them)"


def judge_noise_text(label: str, name: str, metrics: Mapping[str, float]) -> str | None:
    """What a re-judged run says of a metric's interval (None when it has no judge level)."""
    separable = metrics.get(f"{name}_judge_noise_separable", 1.0)
    share = metrics.get(f"{name}_ci_judge_share")
    if share is None and separable:
        return None
    low, high = metrics[f"{name}_ci_low"], metrics[f"{name}_ci_high"]
    head = f"{label}: {name} {metrics[name]:.4g}, 95% interval [{low:.4g}, {high:.4g}] with the "
    if share is None:
        needed = metrics.get(f"{name}_judge_noise_rejudged_needed")
        return f"{head}judge's noise: {not_separable_text(needed)}"
    q_low, q_high = (
        metrics[f"{name}_ci_questions_only_low"],
        metrics[f"{name}_ci_questions_only_high"],
    )
    variance = metrics.get(f"{name}_ci_judge_variance_share", 1.0 - (1.0 - share) ** 2)
    return (
        f"{head}judge's noise, [{q_low:.4g}, {q_high:.4g}] from the questions alone: judging "
        f"makes {100 * share:.0f}% of its width ({100 * variance:.0f}% of its variance)"
    )

"""Cells from a run: the value and interval the harness reported where its header has them,
and what the header lacks (a breakdown's interval, its count) from the run's outcome records,
with the same per-question means and seeded percentile bootstrap as the metrics
(`stats`), so a breakdown's value equals the harness's own number."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np

from inspect_culture.report.model import Cell, RunInfo
from inspect_culture.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    bootstrap_mean_interval,
    percentile_interval,
)
from inspect_culture.stats.epochs import mean, per_question_means


def header_cell(run: RunInfo, name: str, scale: float = 1.0, n: int | None = None) -> Cell:
    """`name` and, when reported, `name_ci_low`/`name_ci_high` from the run's own metrics."""
    value = run.metrics.get(name)
    if value is None:
        return Cell(None, n=n)
    low, high = run.metrics.get(f"{name}_ci_low"), run.metrics.get(f"{name}_ci_high")
    return Cell(
        value * scale,
        None if low is None else low * scale,
        None if high is None else high * scale,
        n,
    )


def mean_cell(values: Sequence[float], question_ids: Sequence[Hashable], scale: float) -> Cell:
    """Mean over questions (each question's epochs averaged first), its bootstrap interval
    resampling questions, and the number of questions."""
    if not values:
        return Cell(None, n=0)
    per_question = per_question_means(values, question_ids)
    low, high = bootstrap_mean_interval(per_question)
    return Cell(mean(per_question) * scale, low * scale, high * scale, len(per_question))


def resampled_cell(
    units: Sequence[object],
    statistic: Callable[[np.ndarray], np.ndarray],
    scale: float,
    value: float | None = None,
) -> Cell:
    """A statistic that is not a mean of per-question values (macro-F1, VS F1): `statistic`
    maps an (resamples, n) array of unit indices to one value per resample; the interval
    resamples units (questions) with replacement, seeded as the metrics' bootstrap."""
    if not units:
        return Cell(None, n=0)
    size = len(units)
    point = statistic(np.arange(size)[None, :])[0] if value is None else value
    indices = np.random.default_rng(DEFAULT_SEED).integers(0, size, size=(DEFAULT_RESAMPLES, size))
    low, high = percentile_interval(statistic(indices))
    return Cell(float(point) * scale, low * scale, high * scale, size)

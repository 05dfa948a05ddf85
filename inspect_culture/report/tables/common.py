"""Rows and cells shared by the table builders; cells from records use the metrics' own
per-question means and seeded bootstrap (`stats`), so they equal the harness's numbers."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from inspect_culture.report.model import Cell, Column, Row, RunInfo, Table
from inspect_culture.report.records import RecordsUnavailable, outcome_records
from inspect_culture.report.section import all_layouts
from inspect_culture.stats.bootstrap import (
    bootstrap_mean_interval,
    percentile_interval,
    resampled,
)
from inspect_culture.stats.epochs import mean, per_question_means

HARNESS_ORDER = {"inspect": 0, "lm-eval": 1}


@dataclass
class RowBuilder:
    """The cells of one (model, harness, group, setting) row, filled run by run."""

    model: str
    harness: str
    group: str | None
    setting: str
    cells: dict[str, Cell] = field(default_factory=dict)
    runs: dict[str, None] = field(default_factory=dict)  # an ordered set

    def put(self, column: str, cell: Cell, run: RunInfo) -> None:
        if cell.value is not None or column not in self.cells:
            self.cells[column] = cell
            self.runs[str(run.path)] = None


@dataclass
class Rows:
    """Row builders by (model, harness, group, setting), in first-seen order."""

    _rows: dict[tuple[object, ...], RowBuilder] = field(default_factory=dict)

    def get(self, run: RunInfo, group: str | None, setting: str) -> RowBuilder:
        key = (run.model, run.harness, group, setting)
        return self._rows.setdefault(key, RowBuilder(*key))

    def rows(self, key: str) -> list[Row]:
        """The rows with a number, by group (in the layout's order), model, setting, harness."""
        order = {group: i for i, group in enumerate(all_layouts()[key].groups)}
        builders = sorted(
            self._rows.values(),
            key=lambda b: (
                order.get(b.group, len(order)) if b.group is not None else -1,
                b.model.lower(),
                b.setting,
                HARNESS_ORDER.get(b.harness, 9),
            ),
        )
        return [
            Row(
                b.model,
                dict(b.cells),
                harness=b.harness,
                group=b.group,
                setting=b.setting,
                runs=tuple(b.runs),
            )
            for b in builders
            if any(c.value is not None or c.note for c in b.cells.values())
        ]


def describe(run: RunInfo, defaults: Mapping[str, object]) -> str:
    """The non-default settings, subset and limit as words: "parser=upstream; limit=50"."""
    parts = [
        f"{name}={run.setting[name]}"
        for name in defaults
        if name in run.setting and run.setting[name] != defaults[name]
    ]
    if run.subset:
        parts.append(run.subset)
    if run.limit is not None:
        parts.append(f"limit={run.limit}")
    return "; ".join(parts)


def table(
    key: str, rows: Rows, caption: str, columns: tuple[Column, ...] | None = None
) -> list[Table]:
    """The layout's table, or none when no row has a number; `columns` replaces the layout's."""
    if not (printed := rows.rows(key)):
        return []
    layout = all_layouts()[key]
    shared = ("key", "benchmark", "title", "metric", "group_label", "secondary", "decimals")
    columns = layout.columns if columns is None else columns
    fields = {name: getattr(layout, name) for name in shared}
    return [Table(columns=columns, rows=tuple(printed), caption=caption, **fields)]


def of_benchmark(runs: Iterable[RunInfo], benchmark: str) -> list[RunInfo]:
    """The benchmark's runs, but lm-eval's group results (averages over its tasks)."""
    return [run for run in runs if run.benchmark == benchmark and not run.setting.get("aggregate")]


def records_or_warn(run: RunInfo, warnings: list[str]) -> list[dict[str, Any]] | None:
    """The run's outcome records, or None with a warning (the header's numbers still show)."""
    try:
        return outcome_records(run)
    except RecordsUnavailable as exc:
        warnings.append(
            f"{run.benchmark} breakdowns of {run.model} ({run.harness}) left out: {exc}"
        )
        return None


def header_cell(run: RunInfo, name: str, scale: float = 1.0, n: int | None = None) -> Cell:
    """`name` and, when reported, `name_ci_low`/`name_ci_high` from the run's own metrics."""
    if (value := run.metrics.get(name)) is None:
        return Cell(None, n=n)
    bounds = (run.metrics.get(f"{name}_ci_{end}") for end in ("low", "high"))
    return Cell(value * scale, *(None if b is None else b * scale for b in bounds), n)


def mean_cell(
    values: Sequence[float], ids: Sequence[Hashable], scale: float, value: float | None = None
) -> Cell:
    """Mean over questions (epochs averaged first) or the harness's `value`, interval and n."""
    if not values:
        return Cell(None, n=0)
    per_question = per_question_means(values, ids)
    low, high = bootstrap_mean_interval(per_question)
    point = mean(per_question) if value is None else value
    return Cell(point * scale, low * scale, high * scale, len(per_question))


def resampled_cell(
    units: Sequence[object],
    statistic: Callable[[np.ndarray], np.ndarray],
    scale: float,
    value: float | None = None,
) -> Cell:
    """A non-mean statistic (macro-F1, VS F1) of (resamples, n) unit indices, seeded as metrics'."""
    if not units:
        return Cell(None, n=0)
    size = len(units)
    point = statistic(np.arange(size)[None, :])[0] if value is None else value
    low, high = percentile_interval(resampled(size, statistic))
    return Cell(float(point) * scale, low * scale, high * scale, size)

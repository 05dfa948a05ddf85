"""Row assembly shared by the benchmark table builders: which runs make one row, how a row's
settings read, and how a layout becomes a `Table`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from inspect_culture.report.model import Cell, Column, Row, RunInfo, Table
from inspect_culture.report.records import RecordsUnavailable, outcome_records
from inspect_culture.report.section import all_layouts

HARNESS_ORDER = {"inspect": 0, "lm-eval": 1}


@dataclass
class RowBuilder:
    """The cells of one (model, harness, group, setting) row, filled run by run."""

    model: str
    harness: str
    group: str | None
    setting: str
    cells: dict[str, Cell] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)

    def put(self, column: str, cell: Cell, run: RunInfo) -> None:
        if cell.value is None and column in self.cells:
            return
        self.cells[column] = cell
        if str(run.path) not in self.runs:
            self.runs.append(str(run.path))


class Rows:
    """Row builders by (model, harness, group, setting), in first-seen order."""

    def __init__(self) -> None:
        self._rows: dict[tuple[object, ...], RowBuilder] = {}

    def get(self, run: RunInfo, group: str | None, setting: str) -> RowBuilder:
        key = (run.model, run.harness, group, setting)
        if key not in self._rows:
            self._rows[key] = RowBuilder(run.model, run.harness, group, setting)
        return self._rows[key]

    def rows(self, key: str) -> list[Row]:
        """The rows with a number, by group (the layout of table `key` orders them), model,
        setting, then harness, so a model's two harnesses sit side by side."""
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
            if any(c.value is not None for c in b.cells.values())
        ]


def describe(run: RunInfo, defaults: Mapping[str, object]) -> str:
    """The settings named in `defaults` that differ from them, plus limit and subset, as
    words: "parser=upstream; limit=50". Empty for a default, full run."""
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
    """The layout's table, or none when no row has a number; `columns` replaces the layout's
    where they depend on the runs (the generic table)."""
    printed = rows.rows(key)
    if not printed:
        return []
    layout = all_layouts()[key]
    return [
        Table(
            key=layout.key,
            benchmark=layout.benchmark,
            title=layout.title,
            metric=layout.metric,
            columns=layout.columns if columns is None else columns,
            rows=tuple(printed),
            group_label=layout.group_label,
            caption=caption,
            secondary=layout.secondary,
            decimals=layout.decimals,
        )
    ]


def of_benchmark(runs: Iterable[RunInfo], benchmark: str) -> list[RunInfo]:
    """The benchmark's runs, but lm-eval's group results (averages over its tasks)."""
    return [run for run in runs if run.benchmark == benchmark and not run.setting.get("aggregate")]


def records_or_warn(run: RunInfo, warnings: list[str]) -> list[dict[str, Any]] | None:
    """The run's outcome records, or None with a warning: the breakdowns that need them are
    left out for this run, the header's numbers still show."""
    try:
        return outcome_records(run)
    except RecordsUnavailable as exc:
        warnings.append(
            f"{run.benchmark} breakdowns of {run.model} ({run.harness}) left out: {exc}"
        )
        return None

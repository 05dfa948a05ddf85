"""Tables in the papers' layouts with the published rows beside them; a benchmark without a report
section gets its runs' headline metrics, so a newly registered one shows up at once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial

from inspect_culture.judging.usage import Price
from inspect_culture.report.model import Cell, Column, RunInfo, Table
from inspect_culture.report.published import published_rows
from inspect_culture.report.section import Layout, judge_cost_key, sections
from inspect_culture.report.tables.common import Rows, describe, header_cell, of_benchmark, table
from inspect_culture.report.tables.judge_cost import judge_cost_tables
from inspect_culture.report.tables.judges import (
    judge_noise_tables,
    judge_pairs_tables,
    judges_tables,
)

_NOT_COLUMNS = ("_ci_low", "_ci_high", "stderr")  # intervals, and Inspect's `stderr` too


def build_tables(
    runs: Sequence[RunInfo], warnings: list[str], judge_price: Price | None = None
) -> list[Table]:
    """Every table some run fills, in registry order, main before secondary, with published rows;
    a judged benchmark's "Judge cost" last, its cost at `judge_price` (else each run's own)."""
    tables: list[Table] = []
    for benchmark, section in sections():
        build = section.tables or partial(generic_tables, section.layouts[0])
        built = sorted(build(runs, warnings), key=lambda t: t.secondary)
        tables.extend(replace(t, rows=(*t.rows, *published_rows(t.key))) for t in built)
        if section.jury is not None:
            for jury_tables in (judges_tables, judge_noise_tables, judge_pairs_tables):
                tables.extend(jury_tables(benchmark.title, section.jury, runs, warnings))
        if section.judged:
            key = judge_cost_key(benchmark)
            tables.extend(judge_cost_tables(key, benchmark.title, runs, warnings, judge_price))
    return tables


def generic_tables(layout: Layout, all_runs: Sequence[RunInfo], warnings: list[str]) -> list[Table]:
    runs = of_benchmark(all_runs, layout.benchmark)
    names = dict.fromkeys(
        name
        for run in runs
        for name in run.metrics
        if not name.endswith(_NOT_COLUMNS) and name != "n_unscored"
    )
    columns = tuple(Column(name, name) for name in names)
    if any(run.unscored is not None for run in runs):
        columns += (Column("unscored", "Unscored", count=True),)
    rows = Rows()
    for run in runs:
        builder = rows.get(run, None, describe(run, dict.fromkeys(sorted(run.setting))))
        for name in names:
            builder.put(name, header_cell(run, name), run)
        if run.unscored is not None:
            builder.put("unscored", Cell(float(run.unscored)), run)
    caption = "Each run's own metrics (95% interval where the harness reports one)."
    return table(layout.key, rows, caption, columns=columns)

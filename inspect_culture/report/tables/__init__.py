"""Tables in the papers' layouts from finished runs, with the published rows beside them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from inspect_culture.report.model import RunInfo, Table
from inspect_culture.report.published import published_rows
from inspect_culture.report.tables.care import care_tables
from inspect_culture.report.tables.cqbench import cqbench_tables
from inspect_culture.report.tables.culturesynth import culturesynth_tables
from inspect_culture.report.tables.normad import normad_tables

BUILDERS = (normad_tables, care_tables, culturesynth_tables, cqbench_tables)


def build_tables(runs: Sequence[RunInfo], warnings: list[str]) -> list[Table]:
    """Every table some run fills, main tables of a benchmark before its secondary ones, each
    with the papers' published rows for it appended."""
    tables: list[Table] = []
    for build in BUILDERS:
        built = build(runs, warnings)
        built.sort(key=lambda t: t.secondary)
        tables.extend(replace(t, rows=(*t.rows, *published_rows(t.key))) for t in built)
    return tables

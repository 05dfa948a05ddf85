"""Tables in the papers' layouts from finished runs, with the published rows beside them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial

from inspect_culture.report.model import RunInfo, Table
from inspect_culture.report.published import published_rows
from inspect_culture.report.section import sections
from inspect_culture.report.tables.generic import generic_tables


def build_tables(runs: Sequence[RunInfo], warnings: list[str]) -> list[Table]:
    """Every table some run fills, in registry order, main before secondary, with published rows."""
    tables: list[Table] = []
    for _, section in sections():
        build = section.tables or partial(generic_tables, section.layouts[0])
        built = sorted(build(runs, warnings), key=lambda t: t.secondary)
        tables.extend(replace(t, rows=(*t.rows, *published_rows(t.key))) for t in built)
    return tables

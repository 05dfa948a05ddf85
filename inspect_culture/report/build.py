"""`culture-evals report`: read the runs, build the tables, warn where numbers are not
comparable, draw the figures and write the outputs."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

from inspect_culture.report.comparability import comparability_warnings
from inspect_culture.report.errors import ReportDependencyError
from inspect_culture.report.inputs import read_runs
from inspect_culture.report.model import Report
from inspect_culture.report.render import write_outputs
from inspect_culture.report.tables import build_tables

INSTALL = "pip install 'inspect-culture[report]'"
# what each output needs beyond the core dependencies
_NEEDS = {"figures": ("matplotlib",), "html": ("jinja2", "matplotlib"), "md": ("matplotlib",)}


def check_dependencies(formats: Sequence[str]) -> None:
    """Before reading anything: one line naming the missing extra."""
    missing = sorted(
        {m for f in formats for m in _NEEDS.get(f, ()) if importlib.util.find_spec(m) is None}
    )
    if missing:
        raise ReportDependencyError(
            f"the report's {', '.join(f for f in formats if f in _NEEDS)} output needs "
            f"{' and '.join(missing)}: {INSTALL}"
        )


def build_report(inputs: Sequence[str | Path]) -> Report:
    runs, skipped = read_runs(inputs)
    notes: list[str] = []
    tables = build_tables(runs, notes)
    return Report(runs, tables, comparability_warnings(runs, tables) + notes, skipped)


def write_report(report: Report, out_dir: Path, formats: Sequence[str]) -> dict[str, Path]:
    """The outputs asked for; HTML and Markdown show the figures, so they draw them too."""
    out_dir.mkdir(parents=True, exist_ok=True)
    if {"figures", "html", "md"} & set(formats):
        from inspect_culture.report.figures import draw_figures

        report.figures = draw_figures(report.tables, out_dir / "figures")
    written = write_outputs(report, out_dir, formats)
    if report.figures:
        written["figures"] = out_dir / "figures"
    return written

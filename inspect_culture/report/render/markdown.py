"""`report.md`: the report as GitHub-flavoured Markdown; figures are linked, not embedded."""

from __future__ import annotations

import os
import re
from pathlib import Path

from inspect_culture import __version__
from inspect_culture.report.model import Figure, Report, Table
from inspect_culture.report.render import common

PUBLISHED_LEGEND = (
    "Rows marked published are a paper's numbers, shown for comparison; their sources are"
    " listed under each table."
)
# Only the characters that can start markup are escaped, to keep the source legible.
_SPECIAL = set("\\`*_[]<>|~")
_ENTITY = re.compile(r"&(?=#|[A-Za-z0-9]+;)")  # "&lt;" would print "<"
_LEADING = re.compile(r"^([#+=]|[-+*] )")  # a heading, rule or list at line start
_NUMBERED = re.compile(r"^(\d+)([.)] )")  # "1. " would start an ordered list


def escape(text: str) -> str:
    """`text` as literal Markdown inline content, on one line (a newline would end a row)."""
    flat = " ".join(str(text).split())
    out = _ENTITY.sub(r"\\&", "".join("\\" + ch if ch in _SPECIAL else ch for ch in flat))
    out = _LEADING.sub(lambda m: "\\" + m.group(0), out)
    return _NUMBERED.sub(lambda m: m.group(1) + "\\" + m.group(2), out)


def table_lines(header: list[str], align: list[str], rows: list[list[str]]) -> list[str]:
    """A GFM table; `align` holds "l" or "r" per column. Cells must be escaped already."""
    rule = "|" + "|".join("---:" if a == "r" else ":---" for a in align) + "|"
    lines = ["| " + " | ".join(cells) + " |" for cells in [header, *rows]]
    return [lines[0], rule, *lines[1:]]


def results_table(table: Table) -> list[str]:
    """One report table, its caption and the notes naming the sources of published rows."""
    view = common.table_view(table)
    header = common.header_labels(table, escape, view.groups, view.settings)
    align = ["l"] * (len(header) - len(table.columns)) + ["r"] * len(table.columns)
    rows: list[list[str]] = []
    for row in view.rows:
        em = "*" if row.published else ""  # a paper's row in italics
        origin = f"*published* \\[{row.note}\\]" if row.published else escape(row.origin)
        line = [f"{em}{escape(row.model)}{em}", origin]
        if view.groups:
            line.append(escape(row.group))
        if view.settings:
            line.append(escape(row.setting))
        rows.append(line + [f"{em}{escape(cell.text)}{em}" for cell in row.cells])

    title = escape(table.title) + (" (supporting)" if table.secondary else "")
    out = [f"### {title}", "", f"Metric: {escape(table.metric)}", ""]
    out.extend(table_lines(header, align, rows))
    if table.caption:
        out += ["", escape(table.caption)]
    notes = [
        f"\\[{note.number}\\] Published ({escape(', '.join(note.models))}): {escape(note.source)}"
        for note in view.notes
    ]
    if notes:
        out += ["", "  \n".join(notes)]  # two trailing spaces: a line break
    return out + [""]


def figure_link(figure: Figure, base: Path) -> str:
    """`figures/<key>.png`, relative to the Markdown file when the PNG lies below it."""
    fallback = f"figures/{figure.key}.png"
    try:
        rel = Path(os.path.relpath(Path(figure.png).resolve(), base.resolve()))
    except ValueError:  # another drive on Windows
        return fallback
    return fallback if rel.parts[:1] == ("..",) else rel.as_posix()


def write_markdown(report: Report, path: Path) -> Path:
    out = [
        f"# {common.TITLE}",
        "",
        f"Generated {common.generated()} by inspect-culture {__version__}. "
        f"{escape(common.summary(report))}",
        "",
        f"{escape(common.CELL_LEGEND)} {escape(PUBLISHED_LEGEND)}",
        "",
    ]
    if report.warnings:
        out += ["## Warnings", "", "> [!WARNING]", *(f"> - {escape(w)}" for w in report.warnings)]
        out.append("")
    if report.skipped:
        skipped = [f"- {escape(str(item.path))}: {escape(item.reason)}" for item in report.skipped]
        out += ["## Skipped inputs", "", *skipped, ""]
    for section in common.tables_by_benchmark(report):
        out += [f"## {escape(section.benchmark)}", ""]
        for table in section.tables:
            out += results_table(table)
    if report.figures:
        out += ["## Figures", ""]
        for figure in report.figures:
            alt = escape(figure.title)
            out.append(f"![{alt}]({figure_link(figure, Path(path).parent)})")
            out += ["", f"*{alt}.* {escape(figure.caption)}".rstrip(), ""]
    out += ["## Runs", ""]
    if report.runs:
        if (base := common.runs_folder(report.runs)) is not None:
            out += [f"Paths are relative to {escape(str(base))}.", ""]
        header = [label for _, label in common.PROVENANCE_COLUMNS]
        rows = [
            [escape(common.provenance(run, base)[key]) for key, _ in common.PROVENANCE_COLUMNS]
            for run in report.runs
        ]
        out += table_lines(header, ["l"] * len(header), rows)
    else:
        out.append("No runs.")
    return common.save(path, "\n".join(out).rstrip() + "\n")

"""`tables.tex`: every report table as a booktabs `table` float, ready to `\\input` into a paper."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from inspect_culture import __version__
from inspect_culture.report.model import Report, Row, Table
from inspect_culture.report.render import common

# LaTeX cells leave n out (paper tables are narrow); the CSV holds it.
CELL_LEGEND = "Cells read: value [95% interval]; n per cell in results.csv."
REQUIRED_PACKAGES = (
    ("booktabs", r"\toprule, \midrule, \bottomrule, \addlinespace"),
    ("graphicx", r"\resizebox, for tables wider than the text"),
)
# Wider tables (printed characters at \normalsize) are scaled to \textwidth; narrower ones are not
WIDE_CHARS = 80
# Settings wrap in a paragraph column of this width, so that long ones do not shrink the table
SETTING_WIDTH = "3.6cm"
SETTING_CHARS = 22  # about what SETTING_WIDTH holds at \footnotesize, for `is_wide`
MAX_ROWS = 35  # rows in one float; a longer table continues in the next (see `parts`)

_ESCAPES = {
    **{ch: "\\" + ch for ch in "&%$#_{}"},
    "\\": r"\textbackslash{}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",  # OT1 fonts print "<" and ">" as inverted marks
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "[": "{[}",  # never read as an optional argument (after \\ or \item)
    "]": "{]}",
}


def escape(text: str) -> str:
    """`text` as literal LaTeX text on one line; non-ASCII characters are kept as UTF-8."""
    flat = " ".join(str(text).split())
    out = "".join(_ESCAPES.get(ch, ch) for ch in flat)
    return re.sub(r"-(?=-)", "-{}", out)  # "--" would print an en dash


def with_minus_signs(text: str) -> str:
    """A formatted number with a real minus sign (a hyphen reads as a dash in text mode)."""
    return text.replace("-", r"\ensuremath{-}")


def cell_latex(parts: common.CellParts) -> str:
    """``72.4 {\\scriptsize[68.1, 76.5]}``; "--" (an en dash) where there is no value."""
    if parts.missing:
        return "--"
    if parts.note:
        return rf"\textit{{{escape(parts.value)}}}"
    text = with_minus_signs(parts.value)
    if parts.interval:
        text += rf" {{\scriptsize{with_minus_signs(parts.interval)}}}"
    return text


def _marker(note: int | None, notes: int) -> str:
    """The dagger of a published row (which always has a note) and of its note."""
    return r"\textsuperscript{\dag}" if notes == 1 else rf"\textsuperscript{{\dag{note}}}"


def _row_cells(row: common.RowView, notes: int, groups: bool, settings: bool) -> list[str]:
    model = escape(row.model)
    cells = [rf"\textit{{{model}}}{_marker(row.note, notes)}" if row.published else model]
    cells.append(r"\textit{published}" if row.published else escape(row.origin))
    if groups:
        cells.append(escape(row.group) if row.group_start else "")
    if settings:  # a paper's is in its note; never the last column, so \raggedright stays inside
        small = rf"\raggedright\footnotesize {escape(row.setting)}" if row.setting else ""
        cells.append("" if row.published else small)
    return cells + [cell_latex(parts) for parts in row.cells]


def _printed_length(cell: str) -> float:
    """A rough printed width in characters: commands drop out, \\scriptsize counts 0.7."""
    small = re.findall(r"\{\\scriptsize([^}]*)\}", cell)
    rest = re.sub(r"\{\\scriptsize[^}]*\}", "", cell)
    rest = re.sub(r"\\[A-Za-z]+|[{}]", "", rest)
    return len(rest) + 0.7 * sum(len(s) for s in small)


def is_wide(lines: list[list[str]], fixed: dict[int, float]) -> bool:
    """Whether the columns' longest cells (`fixed`: paragraph widths) exceed `WIDE_CHARS`."""
    columns = enumerate(zip(*lines))
    widths = [fixed.get(i, max(map(_printed_length, cells))) + 2 for i, cells in columns]
    return sum(widths) > WIDE_CHARS


def parts(table: Table, limit: int = MAX_ROWS) -> list[Table]:
    """`table` in pieces of at most `limit` rows (a float runs off a page), cut at group ends."""
    if len(table.rows) <= limit:
        return [table]
    blocks: list[list[Row]] = []
    for row, start in zip(table.rows, common.group_starts(table)):
        if start or not blocks:
            blocks.append([])
        blocks[-1].append(row)
    chunks: list[list[Row]] = [[]]
    for block in blocks:
        if len(chunks[-1]) + len(block) > limit and len(block) <= limit:
            chunks.append([])  # a group that fits on its own is not split
        for row in block:  # a group longer than a float fills the current one first
            if len(chunks[-1]) == limit:
                chunks.append([])
            chunks[-1].append(row)
    return [replace(table, rows=tuple(chunk)) for chunk in chunks]


def table_latex(table: Table) -> str:
    """A report table as one `table` float, or as several ("continued") when it is long."""
    groups = common.shows_groups(table)
    # a paper's settings are long and shared by its rows: they go to its note, not the column
    settings = any(row.setting for row in table.rows if row.kind != common.PUBLISHED)
    pieces = parts(table)
    return "\n\n".join(
        _float(piece, i, len(pieces), groups, settings) for i, piece in enumerate(pieces, 1)
    )


def _float(table: Table, part: int, count: int, groups: bool, settings: bool) -> str:
    """One `table` float: caption, label, the tabular and the notes on its published rows."""
    header = common.header_labels(table, escape, groups, settings)
    text_columns = len(header) - len(table.columns)
    spec = "l" * text_columns + "r" * len(table.columns)
    fixed: dict[int, float] = {}
    if settings and table.columns:  # a p column may not be last (see `_row_cells`)
        spec = "l" * (text_columns - 1) + f"p{{{SETTING_WIDTH}}}" + "r" * len(table.columns)
        fixed[text_columns - 1] = SETTING_CHARS

    view = common.table_view(table, by_setting=True)
    notes = view.notes
    body = [_row_cells(row, len(notes), groups, settings) for row in view.rows]
    wide = is_wide([header, *body], fixed)

    caption = f"{table.title}. Metric: {table.metric}. {CELL_LEGEND}"
    if table.caption:
        caption += f" {table.caption}"
    label = f"tab:{table.key}"
    if part > 1:
        caption = f"{table.title} (continued, part {part} of {count})."
        label += f":{part}"
    out = [
        f"% {escape(table.key)}: {escape(table.title)}"
        + (f" ({part}/{count})" if count > 1 else ""),
        r"\begin{table}[htbp]",
        r"\centering",
        rf"\caption{{{escape(caption)}}}",
        rf"\label{{{label}}}",
    ]
    if wide:
        out.append(r"\resizebox{\textwidth}{!}{%")
    out += [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(header) + r" \\", r"\midrule"]
    for i, (line, row) in enumerate(zip(body, view.rows)):
        if groups and row.group_start and i > 0:
            out.append(r"\addlinespace")
        out.append(" & ".join(line) + r" \\")
    out += [r"\bottomrule", *([r"\end{tabular}%", "}"] if wide else [r"\end{tabular}"])]
    if notes:
        out += [r"\par\smallskip", r"{\footnotesize\raggedright"]
        for note in notes:
            setting = f". Setting: {note.setting}" if note.setting else ""
            text = f"Published ({', '.join(note.models)}): {note.source}{setting}"
            out.append(rf"{_marker(note.number, len(notes))}{escape(text)}\par")
        out.append("}")
    out.append(r"\end{table}")
    return "\n".join(out)


def render_latex(report: Report) -> str:
    """The whole `tables.tex`: a comment naming the packages, then one float per table."""
    head = [
        f"% tables.tex: written by inspect-culture {__version__} on {common.generated()}.",
        r"% Use: \input{tables.tex} in a document that loads",
        *(f"%   \\usepackage{{{name}}}  % {why}" for name, why in REQUIRED_PACKAGES),
        "% Text is UTF-8 (pdflatex reads UTF-8 by default since 2018; names in non-Latin scripts",
        "% need lualatex or xelatex with a font that has them).",
        "% Published rows: model in italics with a dagger; their sources are noted under each table.",
        "",
    ]
    tables = [table for section in common.tables_by_benchmark(report) for table in section.tables]
    if not tables:
        head.append("% No tables: none of the inputs held results.")
    return "\n".join(head + [table_latex(table) + "\n" for table in tables]).rstrip() + "\n"


def write_latex(report: Report, path: Path) -> Path:
    return common.save(path, render_latex(report))

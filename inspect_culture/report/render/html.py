"""`report.html`: one self-contained page that opens offline and can be mailed or archived as a
single file. CSS is inlined, figures are embedded as base64 `data:` PNGs, nothing is fetched
(a Content-Security-Policy forbids it), and every text from runs or papers is escaped by Jinja's
autoescape, since model names and paths are user input.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from inspect_culture.report.model import Figure, Report, Table
from inspect_culture.report.render import common
from inspect_culture.report.render.cells import CellParts, cell_parts

if TYPE_CHECKING:
    import jinja2


@dataclass(frozen=True)
class RowView:
    model: str
    origin: str
    published: bool
    note: int | None
    source: str
    group: str | None  # printed only where a group starts
    group_start: bool
    setting: str
    cells: tuple[CellParts, ...]


@dataclass(frozen=True)
class TableView:
    table: Table
    anchor: str
    groups: bool
    settings: bool
    rows: tuple[RowView, ...]
    notes: tuple[common.Note, ...]


@dataclass(frozen=True)
class FigureView:
    figure: Figure
    anchor: str
    src: str | None  # data URI; None when the PNG is missing
    problem: str = ""


@cache
def environment() -> jinja2.Environment:
    """Templates from the package (so they ship in the wheel); autoescape on for HTML, off only
    for the stylesheet that is inlined verbatim. jinja2 is imported here, not at module load, so
    the other writers (and `parse_formats`) work where the report extra is not installed."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("inspect_culture.report", "templates"),
        autoescape=jinja2.select_autoescape(
            enabled_extensions=("html", "htm", "xml", "html.j2"),
            disabled_extensions=("css",),
            default=True,
            default_for_string=True,
        ),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def table_view(table: Table) -> TableView:
    notes = common.published_notes(table)
    number = {note.key(): note.number for note in notes}
    rows = []
    for row, start in zip(table.rows, common.group_starts(table)):
        published = common.is_published(row)
        source = common.source_of(row)
        rows.append(
            RowView(
                model=row.model,
                origin=common.origin(row),
                published=published,
                note=number[common.note_key(row)] if published else None,
                source=source if published else "",
                group=common.group_text(table, row.group) if start else None,
                group_start=start,
                setting=row.setting,
                cells=tuple(
                    cell_parts(row.cells.get(col.key), col, table.decimals) for col in table.columns
                ),
            )
        )
    return TableView(
        table=table,
        anchor=f"tab-{common.anchor(table.key)}",
        groups=common.shows_groups(table),
        settings=common.shows_settings(table),
        rows=tuple(rows),
        notes=tuple(notes),
    )


def figure_view(figure: Figure) -> FigureView:
    """The figure's PNG inlined as a data URI; a missing file is said, never a broken image."""
    anchor = f"fig-{common.anchor(figure.key)}"
    try:
        data = Path(figure.png).read_bytes()
    except OSError as err:
        return FigureView(figure, anchor, None, f"figure file unreadable: {err.strerror or err}")
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return FigureView(figure, anchor, None, f"not a PNG file: {figure.png}")
    return FigureView(figure, anchor, "data:image/png;base64," + base64.b64encode(data).decode())


def render_html(report: Report) -> str:
    """The page as a string (the writer below only saves it)."""
    template = environment().get_template("report.html.j2")
    base = common.runs_folder(report.runs)
    sections = [
        (section, [table_view(table) for table in section.tables])
        for section in common.sections(report)
    ]
    return template.render(
        title=common.TITLE,
        generated=common.format_time(common.generated_at()),
        version=common.version(),
        summary=common.summary(report),
        legend=common.CELL_LEGEND,
        warnings=report.warnings,
        skipped=report.skipped,
        sections=sections,
        figures=[figure_view(figure) for figure in report.figures],
        runs_folder=base,
        runs=[
            {
                **common.provenance(run, base),
                "setting_items": common.mapping_items(run.setting),
                "version_items": common.mapping_items(run.versions),
            }
            for run in report.runs
        ],
    )


def write_html(report: Report, path: Path) -> Path:
    """Write `report.html` at `path` (parents created); returns `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(report), encoding="utf-8")
    return path

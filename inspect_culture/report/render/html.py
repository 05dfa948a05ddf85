"""`report.html`: one self-contained page; autoescaped, as model names and paths are user input."""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from inspect_culture import __version__
from inspect_culture.report.model import Figure, Report
from inspect_culture.report.render import common

if TYPE_CHECKING:
    import jinja2


@dataclass(frozen=True)
class FigureView:
    figure: Figure
    anchor: str
    src: str | None  # data URI; None when the PNG is missing
    problem: str = ""
    href: str = ""  # the PNG beside the page, opened at full size by a click


@cache
def environment() -> jinja2.Environment:
    """Templates from the package; jinja2 imported here, so the other writers work without it."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("inspect_culture.report", "templates"),
        autoescape=jinja2.select_autoescape(disabled_extensions=("css",), default=True),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
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


def write_html(report: Report, path: Path) -> Path:
    template = environment().get_template("report.html.j2")
    base = common.runs_folder(report.runs)
    page = template.render(
        title=common.TITLE,
        generated=common.generated(),
        version=__version__,
        summary=common.summary(report),
        legend=common.CELL_LEGEND,
        warnings=report.warnings,
        skipped=report.skipped,
        sections=[
            (s, [common.table_view(t) for t in s.tables])
            for s in common.tables_by_benchmark(report)
        ],
        figures=[
            replace(view, href=os.path.relpath(view.figure.png, path.parent))
            for view in map(figure_view, report.figures)
        ],
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
    return common.save(path, page)

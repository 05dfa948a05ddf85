"""The figures of `culture-evals report` (PNG and PDF), drawn in the command's own process.

matplotlib is imported only to draw. Each figure is a `matplotlib.figure.Figure` with its own Agg
canvas, outside pyplot: no backend is chosen with `matplotlib.use`, no figure is left in pyplot's
registry, and the report's settings (`RC`) hold only while the figures are drawn.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspect_culture.report.model import Cell, Column, Figure, ReportDependencyError, Row, Table
from inspect_culture.report.render.common import group_text
from inspect_culture.report.section import all_layouts, sections

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure as MplFigure

# Okabe & Ito (2008), colour-blind safe; black last, so that it is the rarest bar colour.
OKABE_ITO = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
)
# Beyond eight models the palette repeats; the repeat is told apart by hatch and marker.
CYCLE_HATCHES = ("", "..", "xx", "oo")
CYCLE_MARKERS = ("D", "s", "^", "v")
HARNESS_HATCH = {"lm-eval": "////"}
# Win / tie / loss are outcomes, not models: greys, so no outcome looks like a model's colour.
OUTCOME_COLOURS = {"win_rate": "#3b3b3b", "tie_rate": "#9e9e9e", "loss_rate": "#dcdcdc"}
SUMMARY_COLUMNS = frozenset({"overall", "weighted_average"})
PNG_DPI = 150
RC = {
    "pdf.fonttype": 42,  # TrueType (Type 42): text stays text, selectable in LaTeX output
    "ps.fonttype": 42,
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "hatch.linewidth": 0.8,
    "figure.autolayout": False,  # each figure is laid out once, by `_save`
    "figure.constrained_layout.use": False,
}


@dataclass(frozen=True)
class ModelStyle:
    """How one model is drawn in every figure of a report."""

    colour: str
    hatch: str  # "" for the first eight models; marks the repeats of the palette
    marker: str  # the published-value marker


@dataclass(frozen=True)
class _Context:
    """What every figure of one report shares."""

    styles: Mapping[str, ModelStyle]
    show_harness: bool  # the report holds runs from both harnesses
    out_dir: Path

    def label(self, model: str, harness: str | None) -> str:
        return f"{model} ({harness})" if self.show_harness and harness else model

    def hatch(self, model: str, harness: str | None) -> str:
        return self.styles[model].hatch + HARNESS_HATCH.get(harness or "", "")

    def fill(self, one: _Series) -> dict[str, Any]:
        """A bar in the model's colour; white hatching marks palette repeats and lm-eval runs."""
        colour, hatch = self.styles[one.model].colour, self.hatch(one.model, one.harness)
        if not hatch:
            return {"color": colour, "edgecolor": colour, "linewidth": 0, "hatch": None}
        return {"color": colour, "edgecolor": "white", "linewidth": 0.6, "hatch": hatch}


@dataclass(frozen=True)
class _Series:
    """A model's runs in one harness and setting, or a published-only model (markers only)."""

    model: str
    harness: str | None
    setting: str
    label: str
    published_only: bool = False


def model_styles(tables: Sequence[Table]) -> dict[str, ModelStyle]:
    """Each model's style; the user's models come first, so they get the first colours."""
    rows = sorted((row for table in tables for row in table.rows), key=lambda r: r.kind != "run")
    models = list(dict.fromkeys(row.model for row in rows))
    n = len(OKABE_ITO)
    return {
        model: ModelStyle(
            OKABE_ITO[i % n],
            CYCLE_HATCHES[(i // n) % len(CYCLE_HATCHES)],
            CYCLE_MARKERS[(i // n) % len(CYCLE_MARKERS)],
        )
        for i, model in enumerate(models)
    }


def draw_figures(tables: Sequence[Table], out_dir: Path) -> list[Figure]:
    """Write `<key>.png` and `<key>.pdf` for each section figure whose table holds a run row."""
    by_key = {table.key: table for table in reversed(tables)}  # the first table of a key
    plans = [
        (draw, by_key[key])
        for _, section in sections()
        for key, draw in section.figures
        if key in by_key and _run_rows(by_key[key])
    ]
    if not plans:
        return []
    try:
        import matplotlib  # here, so its absence is one clear line
    except ImportError:
        raise ReportDependencyError(
            "figures need matplotlib: pip install 'inspect-culture[report]'"
        ) from None
    harnesses = {row.harness for table in tables for row in _run_rows(table) if row.harness}
    context = _Context(model_styles(tables), len(harnesses) > 1, out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with matplotlib.rc_context(RC):
        return [draw(table, context) for draw, table in plans]


def _run_rows(table: Table) -> list[Row]:
    return [row for row in table.rows if row.kind == "run"]


def _value_columns(table: Table) -> list[Column]:
    """The columns that hold metric values (counts such as `unscored` are not drawn)."""
    return [column for column in table.columns if not column.count]


def _wrap(text: str, width: int = 32) -> str:
    """Wrap at spaces and after the `/` of "org/name", so a name splits between its parts."""
    lines: list[str] = []
    line = ""
    for part in re.split(r"(?<=[/\s])", text):
        if line and len(line + part.rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += part
    lines.append(line.rstrip())
    return "\n".join(textwrap.fill(one, width) or one for one in lines)


def _series(table: Table, context: _Context) -> list[_Series]:
    """One series per (model, harness, setting) of the run rows, then published-only models."""
    keys = list(dict.fromkeys((r.model, r.harness, r.setting) for r in _run_rows(table)))
    settings = Counter((model, harness) for model, harness, _ in keys)
    series = []
    for m, h, s in keys:
        label = context.label(m, h)
        series.append(_Series(m, h, s, f"{label}, {s}" if settings[m, h] > 1 and s else label))
    run_models = {s.model for s in series}
    published = [row.model for row in table.rows if row.kind != "run"]
    for model in dict.fromkeys(m for m in published if m not in run_models):
        series.append(_Series(model, None, "", f"{model} (published)", published_only=True))
    return series


def _series_rows(table: Table, series: _Series) -> list[Row]:
    key = (series.model, series.harness, series.setting)
    return [r for r in _run_rows(table) if (r.model, r.harness, r.setting) == key]


def _run_row(table: Table, series: _Series, group: str | None) -> Row | None:
    return next((row for row in _series_rows(table, series) if row.group == group), None)


def _published_rows(table: Table, group: str | None) -> dict[str, Row]:
    """The first published row of each model in `group`."""
    rows: dict[str, Row] = {}
    for row in table.rows:
        if row.kind != "run" and row.group == group:
            rows.setdefault(row.model, row)
    return rows


def _groups(table: Table, rows: Sequence[Row]) -> list[str | None]:
    """The groups of `rows`, in the layout's order, then any others in order of appearance."""
    present = list(dict.fromkeys(row.group for row in rows))
    layout = all_layouts().get(table.key)
    order = list(layout.groups) if layout else []
    return [g for g in order if g in present] + [g for g in present if g not in order]


def _group_label(table: Table, group: str | None) -> str:
    return group_text(table, group) if group else "all"


def _value(row: Row | None, key: str) -> float | None:
    cell = row.cells.get(key) if row else None
    return cell.value if cell else None


def _error(cell: Cell) -> tuple[float, float]:
    """The asymmetric error bar of a cell: distances down to ci_low and up to ci_high."""
    assert cell.value is not None and cell.ci_low is not None and cell.ci_high is not None
    return max(cell.value - cell.ci_low, 0.0), max(cell.ci_high - cell.value, 0.0)


def _present(row: Row | None, columns: Sequence[Column], offset: float) -> list[tuple[float, Cell]]:
    """(x, cell) of each column's cell with a value, column i at x = i + offset."""
    cells = [row.cells.get(column.key) for column in columns] if row else []
    return [(i + offset, c) for i, c in enumerate(cells) if c is not None and c.value is not None]


def _new_figure(width: float, height: float) -> MplFigure:
    """A figure outside pyplot, so no global figure registry holds it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    figure = MplFigure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _save(figure: MplFigure, context: _Context, key: str, title: str, caption: str) -> Figure:
    """Write PNG and PDF without timestamps or version strings, so reruns give equal files.

    The constrained layout is solved once, at the PNG's resolution, before either file; both
    files are then drawn with no layout engine, so `savefig` draws each once (with an engine,
    it first draws the whole figure once more to lay it out). `RC` keeps matplotlibrc's
    automatic layouts off, so no engine means none."""
    png, pdf = context.out_dir / f"{key}.png", context.out_dir / f"{key}.pdf"
    try:
        figure.set_dpi(PNG_DPI)  # text measured as the PNG draws it
        if (engine := figure.get_layout_engine()) is not None:
            engine.execute(figure)
        figure.set_layout_engine(None)
        figure.savefig(png, dpi=PNG_DPI, metadata={"Software": None})
        figure.savefig(pdf, metadata={"CreationDate": None, "Producer": None})
    finally:
        figure.clear()
    return Figure(key, title, png, pdf, caption)


def _draw_error_bars(ax: Axes, present: Sequence[tuple[float, Cell]]) -> None:
    if not (points := [(x, c) for x, c in present if c.has_interval]):
        return
    ax.errorbar(
        [x for x, _ in points],
        [cell.value for _, cell in points],
        yerr=list(zip(*(_error(cell) for _, cell in points))),  # (lows, highs)
        fmt="none",
        ecolor="#333333",
        elinewidth=0.9,
        capsize=2.5,
        zorder=3,
    )


def _marker_kwargs(style: ModelStyle) -> dict[str, Any]:
    return {
        "marker": style.marker,
        "markersize": 7,
        "markerfacecolor": style.colour,
        "markeredgecolor": "black",
        "markeredgewidth": 1.1,
    }


def _legend(
    figure: MplFigure, series: Sequence[_Series], context: _Context, published: bool
) -> None:
    """A legend under the axes, in as many columns (at most 3) as fit; the figure grows for it."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Any] = []
    for one in series:
        style, label = context.styles[one.model], _wrap(one.label)
        if one.published_only:
            handles.append(Line2D([], [], linestyle="none", **_marker_kwargs(style), label=label))
            continue
        fill = context.fill(one)  # as the bars, but a Patch's `color` would also set the edge
        face, edge, hatch = fill["color"], fill["edgecolor"], fill["hatch"]
        handles.append(Patch(facecolor=face, edgecolor=edge, hatch=hatch, label=label))
    if published:
        plain = _marker_kwargs(ModelStyle("white", "", "D"))
        handles.append(Line2D([], [], linestyle="none", **plain, label="published value"))
    labels = [handle.get_label() for handle in handles]
    longest = max((len(line) for label in labels for line in label.splitlines()), default=1)
    entry = 0.6 + longest * 0.075  # inches at font size 9: handle, padding, text
    ncols = max(1, min(len(labels), 3, int(figure.get_figwidth() // entry)))
    figure.legend(
        handles=handles, loc="outside lower center", ncols=ncols, handlelength=1.6, handleheight=1.2
    )
    # entries fill columns top to bottom; the tallest sets the height (0.15 in a line of size 9)
    rows = math.ceil(len(labels) / ncols)
    columns = [labels[i : i + rows] for i in range(0, len(labels), rows)]
    lines = max(sum(label.count("\n") + 1.4 for label in column) for column in columns)
    figure.set_figheight(figure.get_figheight() + (0.25 + lines * 0.15))


Limits = tuple[float | None, float | None]


def _bar_panels(
    table: Table,
    context: _Context,
    series: Sequence[_Series],
    panels: Sequence[tuple[str, Sequence[Row | None], Mapping[str, Row]]],
    height: float,
    limits: Limits,
) -> tuple[MplFigure, Axes, bool]:
    """Stacked panels (title, a row per series, published rows by model) of bars per column."""
    columns = _value_columns(table)
    figure = _new_figure(
        min(max(6.0, 1.2 + len(columns) * (0.28 * len(series) + 0.45)), 14.0), height
    )
    axes = figure.subplots(len(panels), 1, squeeze=False, sharex=True, sharey=True).ravel()
    width = min(0.8 / max(len(series), 1), 0.3)
    offsets = [(j - (len(series) - 1) / 2) * width for j in range(len(series))]
    drawn = False
    for ax, (name, rows, published) in zip(axes, panels):
        for offset, one, row in zip(offsets, series, rows):
            if present := _present(row, columns, offset):
                points = ([x for x, _ in present], [c.value for _, c in present])
                ax.bar(*points, width * 0.92, **context.fill(one), zorder=2)
                _draw_error_bars(ax, present)
        for model, row in published.items():
            mine = [offset for offset, one in zip(offsets, series) if one.model == model]
            if not mine or model not in context.styles:
                continue
            present = _present(row, columns, sum(mine) / len(mine))
            _draw_error_bars(ax, present)
            if present:  # a white halo under each marker, so it stands out on a bar
                style, drawn = context.styles[model], True
                points = ([x for x, _ in present], [c.value for _, c in present])
                halo = {"marker": style.marker, "markersize": 10, "color": "white"}
                ax.plot(*points, linestyle="none", **halo, zorder=4)
                ax.plot(*points, linestyle="none", **_marker_kwargs(style), zorder=4.1)
        ax.set_xticks(range(len(columns)), [_wrap(c.label, 14) for c in columns])
        ax.set_xlim(-0.5, len(columns) - 0.5)
        for i, column in enumerate(columns):
            if column.key in SUMMARY_COLUMNS and i > 0:
                ax.axvline(i - 0.5, color="#888888", linestyle=":", linewidth=0.9)
        ax.grid(axis="y", color="#e5e5e5", linewidth=0.7, zorder=0)
        ax.set_axisbelow(True)
        ax.tick_params(axis="x", length=0)
        if name:
            ax.set_title(name, loc="left")
        ax.set_ylabel(table.metric)
        bottom, top = ax.get_ylim()
        if limits[0] is not None:  # fixed ends for bounded scales
            bottom = limits[0]
        elif bottom > 0 or math.isclose(bottom, 0.0, abs_tol=1e-9):
            bottom = 0.0  # bars start at zero when nothing is negative
        ax.set_ylim(bottom, top if limits[1] is None else limits[1])
    _legend(figure, series, context, drawn)
    return figure, axes[0], drawn


def _caption(
    table: Table,
    what: str,
    series: Sequence[_Series],
    published: bool,
    error_bars: bool = True,
) -> str:
    """What the figure shows, what error bars and markers mean, where published numbers are from."""
    parts = [what]
    if error_bars and any(c.has_interval for row in table.rows for c in row.cells.values()):
        parts.append(f"Error bars: the 95% intervals of table `{table.key}`.")
    if any(s.harness == "lm-eval" for s in series):
        parts.append("Hatched bars: runs in lm-evaluation-harness; plain bars: Inspect AI.")
    if published:
        sources = list(dict.fromkeys(r.source for r in table.rows if r.kind != "run" and r.source))
        where = f" ({'; '.join(sources)})" if sources else ""
        parts.append(f"Black-edged markers: published values{where}.")
    parts.append("Cells without a value are left out.")
    return " ".join(parts)


# --- the kinds of figure a report section draws (partial(kind, key=..., title=..., what=...))


def heatmap(table: Table, context: _Context, *, key: str, title: str, what: str) -> Figure:
    """Columns by row groups, a panel per run series, on one colour scale rounded out to tens."""
    import numpy as np
    from matplotlib.colors import Normalize

    series = [s for s in _series(table, context) if not s.published_only]
    groups = _groups(table, _run_rows(table))
    columns = _value_columns(table)
    ncols = 1 if len(series) == 1 else 2
    nrows = math.ceil(len(series) / ncols)
    figure = _new_figure(5.6 * ncols + 0.8, (0.45 * len(groups) + 2.0) * nrows)
    axes = figure.subplots(nrows, ncols, squeeze=False).ravel()
    grids = [
        [[_value(_run_row(table, one, group), c.key) for c in columns] for group in groups]
        for one in series
    ]
    present = [v for grid in grids for line in grid for v in line if v is not None]
    norm = Normalize(0.0, 100.0)
    if present:
        low, high = math.floor(min(present) / 10) * 10, math.ceil(max(present) / 10) * 10
        norm = Normalize(low, high) if high > low else Normalize(low - 5, high + 5)
    row_labels = [_group_label(table, g) for g in groups]
    edges_x, edges_y = np.arange(len(columns) + 1) - 0.5, np.arange(len(row_labels) + 1) - 0.5
    image = None
    for ax, one, grid in zip(axes, series, grids):
        data = np.ma.masked_invalid(np.array(grid, dtype=float))  # None reads as nan
        # a mesh, not an image: the PDF stays vector; masked (missing) cells show the background
        image = ax.pcolormesh(edges_x, edges_y, data, cmap="cividis", norm=norm, edgecolors="white")
        ax.set_facecolor("#f0f0f0")
        ax.invert_yaxis()
        for (i, j), value in np.ndenumerate(data.filled(math.nan)):
            if not math.isnan(value):
                colour = "white" if norm(value) < 0.5 else "black"
                ax.text(j, i, f"{value:.1f}", ha="center", va="center", color=colour, fontsize=8)
        ax.set_xticks(range(len(columns)), [c.label for c in columns], rotation=35, ha="right")
        ax.set_yticks(range(len(row_labels)), row_labels)
        ax.tick_params(length=0)
        ax.spines[:].set_visible(False)
        ax.set_title(_wrap(one.label, 60))
    for ax in axes[len(series) :]:
        figure.delaxes(ax)
    figure.colorbar(image, ax=list(axes[: len(series)]), label=table.metric, shrink=0.9)
    return _save(figure, context, key, title, _caption(table, what, [], False, error_bars=False))


def bars(
    table: Table,
    context: _Context,
    *,
    key: str,
    title: str,
    what: str,
    by_group: bool = False,
    zero_line: bool = False,
    limits: Limits = (None, None),
) -> Figure:
    """Grouped bars per column: one panel, or `by_group` one panel per row group."""
    series = _series(table, context)
    groups = _groups(table, _run_rows(table)) if by_group else [None]
    panels = [
        (
            _group_label(table, group) if by_group else "",
            [_run_row(table, one, group) for one in series],
            _published_rows(table, group),
        )
        for group in groups
    ]
    height = 2.5 * len(groups) + 0.3 if by_group else 3.4
    figure, ax, published = _bar_panels(table, context, series, panels, height, limits)
    if zero_line:
        ax.axhline(0, color="black", linewidth=0.8, zorder=2.5)
    return _save(figure, context, key, title, _caption(table, what, series, published))


def summary_bars(
    table: Table,
    context: _Context,
    *,
    key: str,
    title: str,
    what: str,
    summary_group: str,
    one_group_note: str,
    limits: Limits = (None, None),
) -> Figure:
    """Bars of each series' `summary_group` row, else its first group's (`one_group_note`)."""
    series: list[_Series] = []
    rows: list[Row | None] = []
    notes = [what]
    for one in _series(table, context):
        row = _summary_pick(table, _series_rows(table, one), summary_group)  # None: no runs
        if row is not None and row.group != summary_group:
            group = _group_label(table, row.group)
            label = context.label(one.model, one.harness)  # without the setting
            notes.append(one_group_note.format(series=label, group=group))
            one = replace(one, label=f"{one.label} [{group}]")
        series.append(one)
        rows.append(row)
    published_rows = [row for row in table.rows if row.kind != "run"]
    marks = {
        model: _summary_pick(table, [r for r in published_rows if r.model == model], summary_group)
        for model in dict.fromkeys(row.model for row in published_rows)
    }
    figure, _, published = _bar_panels(table, context, series, [("", rows, marks)], 3.4, limits)
    return _save(figure, context, key, title, _caption(table, " ".join(notes), series, published))


def _summary_pick(table: Table, rows: Sequence[Row], summary_group: str) -> Row | None:
    """The summary row, else the row of the first group in the layout's order."""
    if not (groups := _groups(table, rows)):
        return None
    group = summary_group if summary_group in groups else groups[0]
    return next(row for row in rows if row.group == group)


def outcome_bars(table: Table, context: _Context, *, key: str, title: str, what: str) -> Figure:
    """Wins, ties and losses of each run as one 100% bar, by a swatch in the model's style."""
    from matplotlib.patches import Patch

    series = [s for s in _series(table, context) if not s.published_only]
    figure = _new_figure(7.0, 0.45 * len(series) + 1.6)
    ax = figure.add_subplot()
    for y, one in enumerate(series):
        ax.barh(y, 4.0, left=-6.0, **context.fill(one))
        for column, left, width in _outcome_spans(_run_row(table, one, None)):
            colour = OUTCOME_COLOURS[column]
            ax.barh(y, width, left=left, color=colour, edgecolor="white", linewidth=0.8, zorder=2)
            if width >= 7:
                text = {"color": "white" if column == "win_rate" else "black", "fontsize": 8}
                ax.text(left + width / 2, y, f"{width:.0f}", ha="center", va="center", **text)
    ax.set_yticks(range(len(series)), [_wrap(s.label) for s in series])
    ax.invert_yaxis()
    ax.set(xlim=(-7.0, 100.0), xticks=range(0, 101, 20), xlabel="share of comparisons (%)")
    ax.tick_params(axis="y", length=0)
    ax.spines["left"].set_visible(False)
    labels = {c.key: c.label.replace(" (%)", "") for c in table.columns}
    handles = [
        Patch(facecolor=colour, edgecolor="#888888", linewidth=0.5, label=labels.get(k, k))
        for k, colour in OUTCOME_COLOURS.items()
    ]
    figure.legend(handles=handles, loc="outside lower center", ncols=3)
    caption = _caption(table, what, series, False, error_bars=False)
    return _save(figure, context, key, title, caption)


def _outcome_spans(row: Row | None) -> list[tuple[str, float, float]]:
    """(column, left, width) per outcome; a missing value leaves a gap, not a shift."""
    win, tie, loss = (_value(row, k) for k in OUTCOME_COLOURS)
    spans = []
    if win is not None:
        spans.append(("win_rate", 0.0, win))
    if tie is not None and (win is not None or loss is not None):
        left = win if win is not None else 100.0 - (loss or 0.0) - tie
        spans.append(("tie_rate", left, tie))
    if loss is not None:
        spans.append(("loss_rate", 100.0 - loss, loss))
    return spans

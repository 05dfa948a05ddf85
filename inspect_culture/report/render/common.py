"""What every writer decides alike, so the outputs cannot read one report differently."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from inspect_culture.report.model import Cell, Column, Report, Row, RunInfo, Table
from inspect_culture.report.section import all_layouts

TITLE = "Cultural-awareness evaluation report"
CELL_LEGEND = "Cells read: value [95% interval] (n = questions behind the value)."
PUBLISHED = "published"
MISSING = "–"  # en dash: the run or the paper has no number here


@dataclass(frozen=True)
class CellParts:
    """A cell cut into the pieces a writer may style apart (value, interval, n)."""

    value: str  # "72.4", "-3.0", "12" (counts) or MISSING
    interval: str | None = None  # "[68.1, 76.5]"
    n: str | None = None  # "n=120"
    note: bool = False  # `value` is words in place of a number ("not recorded")

    @property
    def missing(self) -> bool:
        return self.value == MISSING

    @property
    def text(self) -> str:
        """``72.4 [68.1, 76.5] (n=120)``, where styling is not available."""
        n = f"({self.n})" if self.n else None
        return " ".join(p for p in (self.value, self.interval, n) if p)


def format_number(value: float, decimals: int) -> str:
    """`value` with `decimals` digits; never "-0.0", which reads as a sign the data lacks."""
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def cell_parts(cell: Cell | None, column: Column, decimals: int) -> CellParts:
    """The pieces of one cell; `None` (the row has no cell for the column) reads as missing."""
    if cell is not None and cell.value is None and cell.note:
        return CellParts(cell.note, note=True)
    if cell is None or cell.value is None:
        return CellParts(MISSING)
    if column.count:
        return CellParts(str(int(round(cell.value))))  # whole, even when stored as a float
    interval = None
    if cell.has_interval:
        low = format_number(cell.ci_low, decimals)  # type: ignore[arg-type]
        high = format_number(cell.ci_high, decimals)  # type: ignore[arg-type]
        interval = f"[{low}, {high}]"
    n = f"n={cell.n}" if cell.n is not None else None
    return CellParts(format_number(cell.value, decimals), interval, n)


def generated() -> str:
    """Now, or `SOURCE_DATE_EPOCH` when set, so that a rebuilt report can be byte-identical."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    moment = datetime.fromtimestamp(int(epoch), tz=timezone.utc) if epoch.isdigit() else None
    return (moment or datetime.now(tz=timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")


def save(path: Path, text: str) -> Path:
    """Write `text` at `path` (UTF-8, parents created); returns `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@dataclass(frozen=True)
class BenchmarkTables:
    """One benchmark's tables: main tables first, supporting (secondary) tables after."""

    benchmark: str
    anchor: str
    tables: tuple[Table, ...]


def tables_by_benchmark(report: Report) -> list[BenchmarkTables]:
    """Benchmarks in the order their first table appears; within one, main before secondary."""
    order: dict[str, list[Table]] = {}
    for table in report.tables:
        order.setdefault(table.benchmark, []).append(table)
    return [
        BenchmarkTables(name, anchor(name), tuple(sorted(tables, key=lambda t: t.secondary)))
        for name, tables in order.items()
    ]


def anchor(text: str) -> str:
    """A lower-case id from `text` for HTML anchors and LaTeX labels (letters, digits, '-')."""
    slug = "".join(ch.lower() if ch.isascii() and ch.isalnum() else "-" for ch in text)
    return "-".join(part for part in slug.split("-") if part) or "section"


def summary(report: Report) -> str:
    """One sentence: runs, models (published rows excluded) and benchmarks."""
    runs = len(report.runs)
    rows = [row for table in report.tables for row in table.rows if row.kind != PUBLISHED]
    models = len(dict.fromkeys([*(run.model for run in report.runs), *(r.model for r in rows)]))
    text = f"{runs} run{'s' if runs != 1 else ''} of {models} model{'s' if models != 1 else ''}"
    if marks := [section.benchmark for section in tables_by_benchmark(report)]:
        text += f"; benchmarks: {', '.join(marks)}"
    return text + "."


def shows_groups(table: Table) -> bool:
    return table.group_label is not None or any(row.group for row in table.rows)


def group_text(table: Table, group: str | None) -> str:
    """The layout's label for a group key ("zh" -> "Chinese"); the CSV keeps the stable key."""
    if group is None:
        return ""
    layout = all_layouts().get(table.key)
    return ((layout.group_labels if layout else None) or {}).get(group, group)


def group_starts(table: Table) -> list[bool]:
    """For each row, whether it opens a new group (the writers print a group label once)."""
    return [i == 0 or row.group != table.rows[i - 1].group for i, row in enumerate(table.rows)]


@dataclass(frozen=True)
class Note:
    """One source of published rows in a table, numbered in order of first use."""

    number: int
    source: str
    models: tuple[str, ...]
    setting: str = ""  # only when notes are split by setting (LaTeX moves settings here)


@dataclass(frozen=True)
class RowView:
    model: str
    origin: str  # the "Harness" column: a run's harness, "published" for a paper's row
    published: bool
    note: int | None  # the number of a published row's note
    source: str  # a published row's source
    group: str  # the group's label
    group_start: bool
    setting: str
    cells: tuple[CellParts, ...]


@dataclass(frozen=True)
class TableView:
    table: Table
    anchor: str
    groups: bool  # whether the group column is shown
    settings: bool  # whether the setting column is shown
    rows: tuple[RowView, ...]
    notes: tuple[Note, ...]


def table_view(table: Table, by_setting: bool = False) -> TableView:
    """A table as printed; published rows point to a numbered note per source (and setting)."""

    def note_key(row: Row) -> tuple[str, str]:
        return (row.source or "source not given", row.setting if by_setting else "")

    notes: dict[tuple[str, str], dict[str, None]] = {}  # models in order of first use
    for row in table.rows:
        if row.kind == PUBLISHED:
            notes.setdefault(note_key(row), {})[row.model] = None
    numbers = {key: number for number, key in enumerate(notes, 1)}
    rows = []
    for row, start in zip(table.rows, group_starts(table)):
        published = row.kind == PUBLISHED
        rows.append(
            RowView(
                model=row.model,
                origin=PUBLISHED if published else row.harness or "",
                published=published,
                note=numbers[note_key(row)] if published else None,
                source=(row.source or "source not given") if published else "",
                group=group_text(table, row.group),
                group_start=start,
                setting=row.setting,
                cells=tuple(
                    cell_parts(row.cells.get(col.key), col, table.decimals) for col in table.columns
                ),
            )
        )
    return TableView(
        table=table,
        anchor=f"tab-{anchor(table.key)}",
        groups=shows_groups(table),
        settings=any(row.setting for row in table.rows),
        rows=tuple(rows),
        notes=tuple(
            Note(numbers[key], key[0], tuple(names), key[1]) for key, names in notes.items()
        ),
    )


def header_labels(
    table: Table, escape: Callable[[str], str], groups: bool, settings: bool
) -> list[str]:
    """The header cells; `groups`, `settings` are decided once, also for a table LaTeX splits."""
    header = ["Model", "Harness"]
    if groups:
        header.append(escape(table.group_label or "Group"))
    if settings:
        header.append("Setting")
    header.extend(escape(col.label) for col in table.columns)
    return header


def mapping_items(values: Mapping[str, Any]) -> list[str]:
    """`{"context": "rot", "k": 1}` as ["context=rot", "k=1"]: one line each in the HTML."""
    return [f"{key}={value}" for key, value in values.items()]


PROVENANCE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("path", "Path"),
    ("harness", "Harness"),
    ("benchmark", "Benchmark"),
    ("task", "Task"),
    ("setting", "Setting"),
    ("model", "Model"),
    ("dataset", "Dataset@revision"),
    ("sha256", "SHA-256"),
    ("rows", "Rows"),
    ("samples", "Samples"),
    ("scope", "Limit/subset"),
    ("judge", "Judge"),
    ("versions", "Versions"),
)


def runs_folder(runs: Sequence[RunInfo]) -> Path | None:
    """The folder all (two or more) runs lie under, printed once so each line shows less."""
    if len(runs) < 2:
        return None
    try:
        base = Path(os.path.commonpath([str(Path(run.path).parent) for run in runs]))
    except ValueError:  # relative and absolute paths mixed, or different drives
        return None
    return base if str(base) not in ("", ".", os.sep) else None


def provenance(run: RunInfo, base: Path | None = None) -> dict[str, str]:
    """One run's line of the runs table, keyed like `PROVENANCE_COLUMNS`."""
    samples = "" if run.samples is None else str(run.samples)
    if run.unscored:
        samples += f" ({run.unscored} unscored)"
    scope = [f"limit={run.limit}"] if run.limit is not None else []
    if run.subset:
        scope.append(run.subset)
    return {
        "path": str(Path(run.path).relative_to(base)) if base else str(run.path),
        "harness": run.harness,
        "benchmark": run.benchmark,
        "task": run.task,
        "setting": ", ".join(mapping_items(run.setting)),
        "model": run.model,
        "dataset": run.dataset or "",
        "sha256": (run.dataset_sha256 or "")[:12],
        "rows": "" if run.dataset_rows is None else str(run.dataset_rows),
        "samples": samples,
        "scope": "; ".join(scope) or "full",
        "judge": run.judge or "",
        "versions": ", ".join(mapping_items(run.versions)),
    }

"""The numbers the benchmark papers published, as rows for the report's tables.

They ship as JSON (`published/<benchmark>.json`), one file per paper, transcribed by hand from the
paper text: each row carries its source (table or section), the paper's own settings (judge,
prompting, subset) and the verbatim `quote` its numbers come from, so that a reader, and the
tests, can check every number against the paper. `printed` keeps each number as the paper prints
it (`"8.50"`, `"0.1"`), since a float cannot.

Validation is strict and runs on load: a report must never show a published number under the
wrong column, group or table, so a bad file stops with a `ValueError` naming the file, the row
and the field.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from inspect_culture.report.model import Cell, Row
from inspect_culture.report.section import LAYOUTS

PUBLISHED_DIR = Path(__file__).with_name("published")

_FILE_KEYS = {"benchmark", "paper", "cite", "paper_file", "rows", "human_baselines", "notes"}
_REQUIRED_ENTRY_KEYS = (
    "table",
    "model",
    "group",
    "values",
    "printed",
    "source",
    "settings",
    "quote",
)
_ENTRY_KEYS = {*_REQUIRED_ENTRY_KEYS, "note", "human", "metric"}


@dataclass(frozen=True)
class PublishedEntry:
    """One published row with what the report needs to say how it was obtained."""

    table: str  # a key of LAYOUTS (a table of a registered benchmark)
    row: Row
    settings: Mapping[str, str]  # the paper's judge, prompting, subset ... as the paper states them
    printed: Mapping[str, str]  # column key -> the number exactly as the paper prints it
    quote: tuple[str, ...]  # verbatim line(s) of the paper text holding every number
    where: str  # "Table 6, §5.1"
    page: int | None
    human: bool = False  # a human baseline rather than a model
    metric: str | None = None  # human_baselines only: what the numbers measure
    note: str = ""


@dataclass(frozen=True)
class PublishedFile:
    """One paper's published numbers: `rows` go into the tables; `human_baselines` are measured
    in another unit (a paper's human awareness rate, say) and are kept apart from the table
    rows."""

    path: Path
    benchmark: str
    paper: str
    cite: str  # short citation used in `Row.source`: "<Benchmark> (Author et al., year)"
    paper_file: str  # the paper text the quotes come from (shared/papers/<file>)
    rows: tuple[PublishedEntry, ...]
    human_baselines: tuple[PublishedEntry, ...]
    notes: tuple[str, ...]


def load_published(benchmark_file: str | Path | None = None) -> tuple[PublishedFile, ...]:
    """Read and validate the published files: all of them, or the one named ("<name>.json",
    "<name>" or a path). Raises `ValueError` naming the file, row and field of any error."""
    if benchmark_file is None:
        return _load_all()
    return (_load_file(_resolve(benchmark_file)),)


def published_files() -> tuple[str, ...]:
    """The file of each registered benchmark that has one, in report order."""
    from inspect_culture.report.section import sections

    return tuple(s.published for _, s in sections() if s.published)


def _load_all() -> tuple[PublishedFile, ...]:
    return _load_files(published_files())


@lru_cache(maxsize=4)
def _load_files(names: tuple[str, ...]) -> tuple[PublishedFile, ...]:
    return tuple(_load_file(PUBLISHED_DIR / name) for name in names)


def published_entries(table_key: str) -> list[PublishedEntry]:
    """The published rows of one table, in file order, with their settings and sources."""
    _check_table_key(table_key)
    return [e for f in _load_all() for e in f.rows if e.table == table_key]


def published_rows(table_key: str) -> list[Row]:
    """The published rows of one table, ready to print next to the user's rows."""
    return [e.row for e in published_entries(table_key)]


def published_human_baselines(table_key: str) -> list[PublishedEntry]:
    """Human figures for a table that are not in its unit (kept out of `published_rows`)."""
    _check_table_key(table_key)
    return [e for f in _load_all() for e in f.human_baselines if e.table == table_key]


def published_settings(table_key: str) -> dict[str, tuple[str, ...]]:
    """Every value each setting takes among a table's published model rows, in first-seen order
    ({"judge": ("ChatGPT-4o-Latest", "Qwen3-32B-Think"), ...}), so the report can say when a
    run's judge, prompting or subset is not one the paper used. Human rows are left out."""
    seen: dict[str, dict[str, None]] = {}
    for entry in published_entries(table_key):
        if entry.human:
            continue
        for key, value in entry.settings.items():
            seen.setdefault(key, {})[value] = None
    return {key: tuple(values) for key, values in seen.items()}


def _check_table_key(table_key: str) -> None:
    if table_key not in LAYOUTS:
        raise KeyError(f"unknown table {table_key!r}; tables: {', '.join(LAYOUTS)}")


def _resolve(benchmark_file: str | Path) -> Path:
    path = Path(benchmark_file)
    if path.exists():
        return path
    name = path.name if path.suffix == ".json" else f"{path.name}.json"
    return PUBLISHED_DIR / name


# -- validation ---------------------------------------------------------------------------------


class _Where:
    """Prefix of error messages: `<file>: rows[3].values.rot`."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, field: str, message: str) -> ValueError:
        return ValueError(f"{self.file}: {field}: {message}")


def _load_file(path: Path) -> PublishedFile:
    where = _Where(path.name)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path.name}: cannot read published JSON ({exc})") from None
    if not isinstance(data, dict):
        raise where.fail("(top level)", "must be a JSON object")
    unknown = set(data) - _FILE_KEYS
    if unknown:
        raise where.fail(", ".join(sorted(unknown)), "unknown top-level field")
    header = {k: _text(data.get(k), where, k) for k in ("benchmark", "paper", "cite", "paper_file")}
    rows = data.get("rows")
    if not isinstance(rows, list) or not rows:
        raise where.fail("rows", "must be a non-empty list")
    humans = data.get("human_baselines", [])
    if not isinstance(humans, list):
        raise where.fail("human_baselines", "must be a list")
    notes = data.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise where.fail("notes", "must be a list of strings")
    return PublishedFile(
        path=path,
        benchmark=header["benchmark"],
        paper=header["paper"],
        cite=header["cite"],
        paper_file=header["paper_file"],
        rows=tuple(
            _entry(r, where, f"rows[{i}]", header["cite"], baseline=False)
            for i, r in enumerate(rows)
        ),
        human_baselines=tuple(
            _entry(r, where, f"human_baselines[{i}]", header["cite"], baseline=True)
            for i, r in enumerate(humans)
        ),
        notes=tuple(notes),
    )


def _entry(raw: Any, where: _Where, at: str, cite: str, *, baseline: bool) -> PublishedEntry:
    if not isinstance(raw, dict):
        raise where.fail(at, "must be a JSON object")
    for key in _REQUIRED_ENTRY_KEYS:
        if key not in raw:
            raise where.fail(f"{at}.{key}", "missing")
    unknown = set(raw) - _ENTRY_KEYS
    if unknown:
        raise where.fail(f"{at}.{sorted(unknown)[0]}", "unknown field")

    table = raw["table"]
    if table not in LAYOUTS:
        raise where.fail(f"{at}.table", f"unknown table {table!r} (tables: {', '.join(LAYOUTS)})")
    layout = LAYOUTS[table]
    model = _text(raw["model"], where, f"{at}.model")

    group = raw["group"]
    if layout.groups:
        if group not in layout.groups:
            raise where.fail(
                f"{at}.group",
                f"{group!r} is not a group of table {table!r} (groups: {', '.join(layout.groups)})",
            )
    elif group is not None:
        raise where.fail(f"{at}.group", f"table {table!r} has no groups; must be null")

    columns = [c.key for c in layout.columns]
    values = raw["values"]
    if not isinstance(values, dict) or not values:
        raise where.fail(f"{at}.values", "must be a non-empty object")
    for key, value in values.items():
        if key not in columns:
            raise where.fail(
                f"{at}.values.{key}",
                f"{key!r} is not a column of table {table!r} (columns: {', '.join(columns)})",
            )
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise where.fail(f"{at}.values.{key}", f"must be a finite number, got {value!r}")

    printed = raw["printed"]
    if not isinstance(printed, dict) or set(printed) != set(values):
        raise where.fail(f"{at}.printed", "must give a string for exactly the keys of values")
    quote = _quote(raw["quote"], where, f"{at}.quote")
    joined = " ".join(quote)
    for key, text in printed.items():
        if not isinstance(text, str) or not _NUMBER.fullmatch(text):
            raise where.fail(f"{at}.printed.{key}", f"must be a number as printed, got {text!r}")
        if float(text) != values[key]:
            raise where.fail(f"{at}.printed.{key}", f"{text!r} is not the value {values[key]!r}")
        if not number_in_text(text, joined):
            raise where.fail(f"{at}.printed.{key}", f"{text!r} does not occur in the quote")

    source = raw["source"]
    if not isinstance(source, dict) or set(source) != {"where", "page"}:
        raise where.fail(f"{at}.source", 'must be {"where": ..., "page": ...}')
    where_text = _text(source["where"], where, f"{at}.source.where")
    page = source["page"]
    if page is not None and (isinstance(page, bool) or not isinstance(page, int) or page < 1):
        raise where.fail(f"{at}.source.page", f"must be a page number or null, got {page!r}")

    settings = raw["settings"]
    if not isinstance(settings, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v for k, v in settings.items()
    ):
        raise where.fail(f"{at}.settings", "must map names to non-empty strings")

    human = raw.get("human", False)
    if not isinstance(human, bool):
        raise where.fail(f"{at}.human", "must be true or false")
    metric = raw.get("metric")
    if baseline:
        metric = _text(metric, where, f"{at}.metric")
    elif metric is not None:
        raise where.fail(f"{at}.metric", "only human_baselines name their own metric")
    note = raw.get("note", "")
    if not isinstance(note, str):
        raise where.fail(f"{at}.note", "must be a string")

    row = Row(
        model=model,
        cells={c: Cell(float(values[c]) if c in values else None) for c in columns},
        kind="published",
        group=group,
        setting="; ".join(f"{k}: {v}" for k, v in settings.items()),
        source=f"{cite}, {where_text}" + (f", p. {page}" if page is not None else ""),
    )
    return PublishedEntry(
        table=table,
        row=row,
        settings=dict(settings),
        printed=dict(printed),
        quote=quote,
        where=where_text,
        page=page,
        human=human or baseline,
        metric=metric,
        note=note,
    )


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def number_in_text(printed: str, text: str) -> bool:
    """Whether `printed` occurs in `text` as a whole number: "0.1" is not found in "0.10",
    "5.11" not in "-5.11" or "15.11"."""
    return re.search(rf"(?<![\d.\-]){re.escape(printed)}(?![\d])", text) is not None


def _quote(raw: Any, where: _Where, at: str) -> tuple[str, ...]:
    parts = [raw] if isinstance(raw, str) else raw
    if not isinstance(parts, list) or not parts or not all(isinstance(p, str) and p for p in parts):
        raise where.fail(at, "must be a non-empty string or list of strings")
    return tuple(parts)


def _text(raw: Any, where: _Where, at: str) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise where.fail(at, "must be a non-empty string")
    return raw

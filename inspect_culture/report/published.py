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
from inspect_culture.report.section import all_layouts, sections

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

    table: str  # a key of `all_layouts()` (a table of a registered benchmark)
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
        return _load_files(published_files())
    return (_load_file(_resolve(benchmark_file)),)


def published_files() -> tuple[str, ...]:
    """The file of each registered benchmark that has one, in report order."""
    return tuple(s.published for _, s in sections() if s.published)


@lru_cache(maxsize=4)
def _load_files(names: tuple[str, ...]) -> tuple[PublishedFile, ...]:
    return tuple(_load_file(PUBLISHED_DIR / name) for name in names)


def published_entries(table_key: str) -> list[PublishedEntry]:
    """The published rows of one table, in file order, with their settings and sources."""
    _check_table_key(table_key)
    return [e for f in load_published() for e in f.rows if e.table == table_key]


def published_rows(table_key: str) -> list[Row]:
    """The published rows of one table, ready to print next to the user's rows."""
    return [e.row for e in published_entries(table_key)]


def published_human_baselines(table_key: str) -> list[PublishedEntry]:
    """Human figures for a table that are not in its unit (kept out of `published_rows`)."""
    _check_table_key(table_key)
    return [e for f in load_published() for e in f.human_baselines if e.table == table_key]


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
    if table_key not in (layouts := all_layouts()):
        raise KeyError(f"unknown table {table_key!r}; tables: {', '.join(layouts)}")


def _resolve(benchmark_file: str | Path) -> Path:
    path = Path(benchmark_file)
    if path.exists():
        return path
    name = path.name if path.suffix == ".json" else f"{path.name}.json"
    return PUBLISHED_DIR / name


# -- validation: a failed check is a ValueError "<file>: <field>: <message>" ------------------


def _check(ok: object, file: str, field: str, message: str) -> None:
    if not ok:
        raise ValueError(f"{file}: {field}: {message}")


def _load_file(path: Path) -> PublishedFile:
    file = path.name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{file}: cannot read published JSON ({exc})") from None
    _check(isinstance(data, dict), file, "(top level)", "must be a JSON object")
    unknown = set(data) - _FILE_KEYS
    _check(not unknown, file, ", ".join(sorted(unknown)), "unknown top-level field")
    header = {k: _text(data.get(k), file, k) for k in ("benchmark", "paper", "cite", "paper_file")}
    rows, humans = data.get("rows"), data.get("human_baselines", [])
    _check(isinstance(rows, list) and rows, file, "rows", "must be a non-empty list")
    _check(isinstance(humans, list), file, "human_baselines", "must be a list")
    notes = data.get("notes", [])
    ok = isinstance(notes, list) and all(isinstance(n, str) for n in notes)
    _check(ok, file, "notes", "must be a list of strings")
    cite = header["cite"]
    return PublishedFile(
        path=path,
        benchmark=header["benchmark"],
        paper=header["paper"],
        cite=cite,
        paper_file=header["paper_file"],
        rows=tuple(_entry(r, file, f"rows[{i}]", cite, False) for i, r in enumerate(rows)),
        human_baselines=tuple(
            _entry(r, file, f"human_baselines[{i}]", cite, True) for i, r in enumerate(humans)
        ),
        notes=tuple(notes),
    )


def _entry(raw: Any, file: str, at: str, cite: str, baseline: bool) -> PublishedEntry:
    _check(isinstance(raw, dict), file, at, "must be a JSON object")
    for key in _REQUIRED_ENTRY_KEYS:
        _check(key in raw, file, f"{at}.{key}", "missing")
    unknown = sorted(set(raw) - _ENTRY_KEYS)
    _check(not unknown, file, f"{at}.{unknown[0] if unknown else ''}", "unknown field")

    table, layouts = raw["table"], all_layouts()
    known = ", ".join(layouts)
    _check(table in layouts, file, f"{at}.table", f"unknown table {table!r} (tables: {known})")
    layout = layouts[table]
    model = _text(raw["model"], file, f"{at}.model")
    group = raw["group"]
    if layout.groups:
        why = f"{group!r} is not a group of table {table!r} (groups: {', '.join(layout.groups)})"
        _check(group in layout.groups, file, f"{at}.group", why)
    else:
        _check(group is None, file, f"{at}.group", f"table {table!r} has no groups; must be null")

    columns = [c.key for c in layout.columns]
    values = raw["values"]
    _check(isinstance(values, dict) and values, file, f"{at}.values", "must be a non-empty object")
    for key, value in values.items():
        where = f"{at}.values.{key}"
        why = f"{key!r} is not a column of table {table!r} (columns: {', '.join(columns)})"
        _check(key in columns, file, where, why)
        ok = (
            not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
        )
        _check(ok, file, where, f"must be a finite number, got {value!r}")

    printed = raw["printed"]
    ok = isinstance(printed, dict) and set(printed) == set(values)
    _check(ok, file, f"{at}.printed", "must give a string for exactly the keys of values")
    quote = _quote(raw["quote"], file, f"{at}.quote")
    joined = " ".join(quote)
    for key, text in printed.items():
        where = f"{at}.printed.{key}"
        ok = isinstance(text, str) and _NUMBER.fullmatch(text)
        _check(ok, file, where, f"must be a number as printed, got {text!r}")
        _check(
            float(text) == values[key], file, where, f"{text!r} is not the value {values[key]!r}"
        )
        _check(number_in_text(text, joined), file, where, f"{text!r} does not occur in the quote")

    source = raw["source"]
    ok = isinstance(source, dict) and set(source) == {"where", "page"}
    _check(ok, file, f"{at}.source", 'must be {"where": ..., "page": ...}')
    where_text = _text(source["where"], file, f"{at}.source.where")
    page = source["page"]
    ok = page is None or (not isinstance(page, bool) and isinstance(page, int) and page >= 1)
    _check(ok, file, f"{at}.source.page", f"must be a page number or null, got {page!r}")

    settings = raw["settings"]
    ok = isinstance(settings, dict) and all(
        isinstance(k, str) and isinstance(v, str) and v for k, v in settings.items()
    )
    _check(ok, file, f"{at}.settings", "must map names to non-empty strings")

    human = raw.get("human", False)
    _check(isinstance(human, bool), file, f"{at}.human", "must be true or false")
    metric = raw.get("metric")
    if baseline:
        metric = _text(metric, file, f"{at}.metric")
    else:
        _check(metric is None, file, f"{at}.metric", "only human_baselines name their own metric")
    note = raw.get("note", "")
    _check(isinstance(note, str), file, f"{at}.note", "must be a string")

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


def _quote(raw: Any, file: str, at: str) -> tuple[str, ...]:
    parts = [raw] if isinstance(raw, str) else raw
    ok = isinstance(parts, list) and parts and all(isinstance(p, str) and p for p in parts)
    _check(ok, file, at, "must be a non-empty string or list of strings")
    return tuple(parts)


def _text(raw: Any, file: str, at: str) -> str:
    _check(isinstance(raw, str) and raw.strip(), file, at, "must be a non-empty string")
    return raw

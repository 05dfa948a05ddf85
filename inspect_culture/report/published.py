"""The papers' published numbers (`published/*.json`, each with its source and verbatim quote) as
table rows; strict validation names the file, row and field of any error in a `ValueError`."""

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
    """One paper's published numbers; `human_baselines`, in another unit, stay out of the tables."""

    path: Path
    benchmark: str
    paper: str
    cite: str  # short citation used in `Row.source`: "<Benchmark> (Author et al., year)"
    paper_file: str  # the paper text the quotes come from (shared/papers/<file>)
    rows: tuple[PublishedEntry, ...]
    human_baselines: tuple[PublishedEntry, ...]
    notes: tuple[str, ...]


def load_published(benchmark_file: str | Path | None = None) -> tuple[PublishedFile, ...]:
    """Read and validate all published files, or the one named ("<name>.json", "<name>", path)."""
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
    """Each setting's values among a table's published model rows, to compare runs' settings."""
    seen: dict[str, dict[str, None]] = {}
    for entry in [e for e in published_entries(table_key) if not e.human]:
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
        **header,
        rows=tuple(_entry(r, file, f"rows[{i}]", cite, False) for i, r in enumerate(rows)),
        human_baselines=tuple(
            _entry(r, file, f"human_baselines[{i}]", cite, True) for i, r in enumerate(humans)
        ),
        notes=tuple(notes),
    )


def _entry(raw: Any, file: str, at: str, cite: str, baseline: bool) -> PublishedEntry:
    _check(isinstance(raw, dict), file, at, "must be a JSON object")

    def check(ok: object, field: str, message: str) -> None:
        _check(ok, file, f"{at}.{field}", message)

    for key in _REQUIRED_ENTRY_KEYS:
        check(key in raw, key, "missing")
    unknown = sorted(set(raw) - _ENTRY_KEYS)
    check(not unknown, unknown[0] if unknown else "", "unknown field")

    table, layouts = raw["table"], all_layouts()
    check(table in layouts, "table", f"unknown table {table!r} (tables: {', '.join(layouts)})")
    layout = layouts[table]
    model = _text(raw["model"], file, f"{at}.model")
    group = raw["group"]
    if layout.groups:
        why = f"{group!r} is not a group of table {table!r} (groups: {', '.join(layout.groups)})"
        check(group in layout.groups, "group", why)
    else:
        check(group is None, "group", f"table {table!r} has no groups; must be null")

    columns = [c.key for c in layout.columns]
    values = raw["values"]
    check(isinstance(values, dict) and values, "values", "must be a non-empty object")
    for key, value in values.items():
        why = f"{key!r} is not a column of table {table!r} (columns: {', '.join(columns)})"
        check(key in columns, f"values.{key}", why)
        ok = not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)
        check(ok, f"values.{key}", f"must be a finite number, got {value!r}")

    printed = raw["printed"]
    ok = isinstance(printed, dict) and set(printed) == set(values)
    check(ok, "printed", "must give a string for exactly the keys of values")
    parts = [raw["quote"]] if isinstance(raw["quote"], str) else raw["quote"]
    ok = isinstance(parts, list) and parts and all(isinstance(p, str) and p for p in parts)
    check(ok, "quote", "must be a non-empty string or list of strings")
    for key, text in printed.items():
        ok = isinstance(text, str) and _NUMBER.fullmatch(text)
        check(ok, f"printed.{key}", f"must be a number as printed, got {text!r}")
        why = f"{text!r} is not the value {values[key]!r}"
        check(float(text) == values[key], f"printed.{key}", why)
        # as a whole number: "0.1" is not in "0.10" or "-0.1"
        in_quote = re.search(rf"(?<![\d.\-]){re.escape(text)}(?![\d])", " ".join(parts))
        check(in_quote, f"printed.{key}", f"{text!r} does not occur in the quote")

    source = raw["source"]
    ok = isinstance(source, dict) and set(source) == {"where", "page"}
    check(ok, "source", 'must be {"where": ..., "page": ...}')
    where_text = _text(source["where"], file, f"{at}.source.where")
    page = source["page"]
    ok = page is None or (not isinstance(page, bool) and isinstance(page, int) and page >= 1)
    check(ok, "source.page", f"must be a page number or null, got {page!r}")

    settings = raw["settings"]
    ok = isinstance(settings, dict) and all(
        isinstance(k, str) and isinstance(v, str) and v for k, v in settings.items()
    )
    check(ok, "settings", "must map names to non-empty strings")

    human = raw.get("human", False)
    check(isinstance(human, bool), "human", "must be true or false")
    metric = raw.get("metric")
    if baseline:
        metric = _text(metric, file, f"{at}.metric")
    else:
        check(metric is None, "metric", "only human_baselines name their own metric")
    note = raw.get("note", "")
    check(isinstance(note, str), "note", "must be a string")

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
        quote=tuple(parts),
        where=where_text,
        page=page,
        human=human or baseline,
        metric=metric,
        note=note,
    )


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _text(raw: Any, file: str, at: str) -> str:
    _check(isinstance(raw, str) and raw.strip(), file, at, "must be a non-empty string")
    return raw

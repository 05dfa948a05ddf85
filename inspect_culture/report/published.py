"""The papers' published numbers (`published/*.json`, each with its source and verbatim quote) as
table rows; validation (a JSON Schema, then each row against its table) names the file, row and
field of any error in a `ValueError`."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import jsonschema

from inspect_culture.datasets_hub.validation import load_schema
from inspect_culture.report.model import Cell, Row
from inspect_culture.report.section import all_layouts, sections

PUBLISHED_DIR = Path(__file__).with_name("published")


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


def load_published(path: str | Path | None = None) -> tuple[PublishedFile, ...]:
    """Read and validate all published files, or the one at `path`."""
    if path is None:
        return _load_files(published_files())
    return (_load_file(Path(path)),)


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


# -- validation: the schema (schemas/published.schema.json) checks each file's shape, then each
# row is checked against its table; a failure is a ValueError "<file>: <field>: <message>" -------


def _check(ok: object, file: str, field: str, message: str) -> None:
    if not ok:
        raise ValueError(f"{file}: {field}: {message}")


def _load_file(path: Path) -> PublishedFile:
    file = path.name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{file}: cannot read published JSON ({exc})") from None
    _check_shape(data, file)
    cite, humans = data["cite"], data.get("human_baselines", [])
    return PublishedFile(
        path=path,
        **{key: data[key] for key in ("benchmark", "paper", "cite", "paper_file")},
        rows=tuple(_entry(r, file, f"rows[{i}]", cite, False) for i, r in enumerate(data["rows"])),
        human_baselines=tuple(
            _entry(r, file, f"human_baselines[{i}]", cite, True) for i, r in enumerate(humans)
        ),
        notes=tuple(data.get("notes", [])),
    )


@cache
def _validator() -> jsonschema.protocols.Validator:
    """Draft 2020-12, except that a whole number written as a float (`12.0`) is no page number."""
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    )
    strict = jsonschema.validators.extend(base, type_checker=checker)
    return strict(load_schema("inspect_culture.report", "published"))


def _check_shape(data: Any, file: str) -> None:
    """The first schema violation (by its place in the file), worded by the schema."""
    errors = _validator().iter_errors(data)
    first = min(
        errors, key=lambda e: [(isinstance(p, str), p) for p in e.absolute_path], default=None
    )
    if first is not None:
        field, message = _worded(first)
        raise ValueError(f"{file}: {field}: {message}")


def _worded(error: jsonschema.ValidationError) -> tuple[str, str]:
    """The field an error names and its message. The schema's `errorMessage`, a string, words
    any failure of its value; an object words the keywords it names."""
    path = list(error.absolute_path)
    worded = error.schema.get("errorMessage") if isinstance(error.schema, dict) else None
    if isinstance(worded, str):
        return _field(path), worded.replace("{value!r}", repr(error.instance))
    worded = (worded or {}).get(error.validator)
    if error.validator == "required":
        missing = next(key for key in error.validator_value if key not in error.instance)
        return _field([*path, missing]), worded or "missing"
    if error.validator == "additionalProperties":
        unknown = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return _field([*path, unknown[0]]), worded or "unknown field"
    return _field(path), worded or error.message


def _field(path: list[str | int]) -> str:
    """["rows", 2, "values", "overall"] -> "rows[2].values.overall"."""
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    return text.removeprefix(".") or "(top level)"


def _entry(raw: dict[str, Any], file: str, at: str, cite: str, baseline: bool) -> PublishedEntry:
    """One row, its shape already checked, against its table's groups and columns."""

    def check(ok: object, field: str, message: str) -> None:
        _check(ok, file, f"{at}.{field}", message)

    table, layouts = raw["table"], all_layouts()
    check(table in layouts, "table", f"unknown table {table!r} (tables: {', '.join(layouts)})")
    layout, group = layouts[table], raw["group"]
    if layout.groups:
        why = f"{group!r} is not a group of table {table!r} (groups: {', '.join(layout.groups)})"
        check(group in layout.groups, "group", why)
    else:
        check(group is None, "group", f"table {table!r} has no groups; must be null")
    columns = [c.key for c in layout.columns]
    values, printed = raw["values"], raw["printed"]
    for key, value in values.items():
        why = f"{key!r} is not a column of table {table!r} (columns: {', '.join(columns)})"
        check(key in columns, f"values.{key}", why)
        check(math.isfinite(value), f"values.{key}", f"must be a finite number, got {value!r}")
    check(
        set(printed) == set(values), "printed", "must give a string for exactly the keys of values"
    )
    parts = [raw["quote"]] if isinstance(raw["quote"], str) else raw["quote"]
    for key, text in printed.items():
        error = _printed_error(text, values[key], " ".join(parts))
        check(error is None, f"printed.{key}", str(error))

    source, settings = raw["source"], raw["settings"]
    page = source["page"]
    row = Row(
        model=raw["model"],
        cells={c: Cell(float(values[c]) if c in values else None) for c in columns},
        kind="published",
        group=group,
        setting="; ".join(f"{k}: {v}" for k, v in settings.items()),
        source=f"{cite}, {source['where']}" + (f", p. {page}" if page is not None else ""),
    )
    return PublishedEntry(
        table=table,
        row=row,
        settings=dict(settings),
        printed=dict(printed),
        quote=tuple(parts),
        where=source["where"],
        page=page,
        human=raw.get("human", False) or baseline,
        metric=raw.get("metric"),
        note=raw.get("note", ""),
    )


def _printed_error(text: str, value: float, quote: str) -> str | None:
    """What is wrong with a number as the paper prints it (the schema has checked that it is
    one): not the value, or not in the quote as a whole number ("0.1" is not in "0.10" or
    "-0.1")."""
    if float(text) != value:
        return f"{text!r} is not the value {value!r}"
    if not re.search(rf"(?<![\d.\-]){re.escape(text)}(?![\d])", quote):
        return f"{text!r} does not occur in the quote"
    return None

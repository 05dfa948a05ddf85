"""CultureSynth-7 data (Eyr3/CultureSynth `QA_7lang_annotated.xlsx`): never bundled (no license),
unpinned (each load warns and records the sha256); lookup, columns, ids: docs/culturesynth.md."""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import os
import re
import unicodedata
import zipfile
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_culture.benchmarks.culturesynth.source import CULTURESYNTH
from inspect_culture.benchmarks.spec_types import LoadedDataset
from inspect_culture.datasets_hub.csv_text import NulSafeDictReader
from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError
from inspect_culture.datasets_hub.hashing import sha256_file
from inspect_culture.datasets_hub.languages import LANGUAGES as LANGUAGE_MAP
from inspect_culture.datasets_hub.paths import DATA_DIR_ENV, mirror_dir
from inspect_culture.datasets_hub.resolve import ResolvedFile, resolve_dataset_file
from inspect_culture.datasets_hub.validation import validate_record

logger = logging.getLogger(__name__)

COLUMNS_ENV = "INSPECT_CULTURE_CULTURESYNTH_COLUMNS"

LANGUAGES: tuple[str, ...] = tuple(LANGUAGE_MAP)  # ar, es, fr, ja, ko, pt, zh

# Paper Table 10 / Figure 4, in the paper's order: primary topic -> abbreviation.
TOPICS: dict[str, str] = {
    "Social Sciences": "SS",
    "Philosophy and Psychology": "PP",
    "Religion and Theology": "RT",
    "Political Science": "PS",
    "Law": "LAW",
    "Education": "EDU",
    "Language": "LAN",
    "Literature": "LIT",
    "Medicine": "MED",
    "Applied Sciences and Technology": "AST",
    "Arts": "ART",
    "Recreation, Sports, and Entertainment": "RSE",
}

# Our field -> upstream header spellings tried in order (the first one present wins).
DEFAULT_COLUMNS: dict[str, tuple[str, ...]] = {
    "id": ("id", "qid", "question_id", "uid"),
    "question": ("question", "query", "问题"),
    "answer": ("answer", "reference_answer", "ref_answer", "gold_answer", "reference", "答案"),
    "language": ("language", "lang", "language_code", "语言"),
    "primary_topic": ("primary_topic", "primary", "topic_1", "一级主题", "topic"),
    "secondary_topic": ("secondary_topic", "secondary", "subtopic", "topic_2", "二级主题"),
}
OPTIONAL_FIELDS = ("id", "secondary_topic")

MIRROR_NAMES: tuple[str, ...] = (CULTURESYNTH.filename, *CULTURESYNTH.also_mirrored_as)

# Spellings accepted for each language (case-insensitive); "zh-CN", "pt_BR" etc. also match.
_LANGUAGE_LOOKUP = {a.casefold(): code for code in LANGUAGES for a in LANGUAGE_MAP[code].aliases}


def _topic_key(value: str) -> str:
    # "Recreation, Sports & Entertainment" and "recreation  sports and entertainment" are one topic.
    return " ".join(value.casefold().replace("&", " and ").replace(",", " ").split())


_TOPIC_LOOKUP = {_topic_key(key): name for name, abbr in TOPICS.items() for key in (name, abbr)}


def normalize_language(value: str) -> str | None:
    """The language code for a code or name, or None when it is not one of `LANGUAGES`."""
    text = unicodedata.normalize("NFC", value).strip().casefold()
    if text in _LANGUAGE_LOOKUP:
        return _LANGUAGE_LOOKUP[text]
    head = re.split(r"[-_\s]", text, maxsplit=1)[0]  # "zh-CN", "pt_BR"
    return head if head in LANGUAGES else None


def normalize_topic(value: str) -> str | None:
    """The Table 10 primary-topic name for a name or abbreviation, or None."""
    return _TOPIC_LOOKUP.get(_topic_key(unicodedata.normalize("NFC", value)))


@dataclass(frozen=True)
class _Table:  # one header + rows unit of a file: a sheet, or the whole CSV/JSONL
    where: str  # "file.xlsx, sheet 'zh'" or "file.csv"
    headers: list[str]
    rows: list[tuple[str, dict[str, Any]]]  # (location of the row, header -> cell)
    language: str | None = None  # set by a sheet named after a language


def load_culturesynth(
    languages: Sequence[str] | None = None,
    *,
    path: str | Path | None = None,
    column_map: Mapping[str, str] | None = None,
) -> LoadedDataset:
    """`languages` filters; every row is validated first, so a bad file fails for every subset."""
    wanted = check_languages(languages)
    columns = _column_overrides(column_map)
    resolved = _resolve(path)
    records, resolved_columns = read_culturesynth(resolved.path, columns)
    present = sorted({r["language"] for r in records})
    if wanted is not None:
        records = [r for r in records if r["language"] in wanted]
        if not records:
            raise DataValidationError(
                f"{resolved.path}: no rows for language(s) {', '.join(sorted(wanted))}; "
                f"languages in the file: {', '.join(present)}"
            )
    sha256 = sha256_file(resolved.path)
    logger.warning(
        "CultureSynth-7 data is not pinned to an upstream commit (%s); using %s, sha256 %s "
        "(recorded in the provenance)",
        CULTURESYNTH.describe(),
        resolved.path,
        sha256,
    )
    # Only a file we fetched ourselves is known to come from the branch; a mirror may be any copy.
    fetched = resolved.origin in {"download", "cache"}
    provenance = {
        "dataset": CULTURESYNTH.repo,
        "revision": CULTURESYNTH.revision if fetched else "unknown",
        "pinned": False,
        "file": resolved.path.name,
        "origin": resolved.origin,
        "path": str(resolved.path),
        "sha256": sha256,
        "rows": len(records),
        "languages": sorted({r["language"] for r in records}),
        "columns": resolved_columns,
        "license": CULTURESYNTH.license,
    }
    return LoadedDataset(records, provenance)


def _first_in(folder: Path) -> Path | None:
    return next((folder / n for n in MIRROR_NAMES if (folder / n).is_file()), None)


def _resolve(path: str | Path | None) -> ResolvedFile:
    if path is not None:
        explicit = Path(path).expanduser()
        found = _first_in(explicit) if explicit.is_dir() else explicit
        if found is None:
            raise DatasetUnavailableError(
                f"{explicit}: none of {', '.join(MIRROR_NAMES)} in this folder"
            )
        if not found.is_file():
            raise DatasetUnavailableError(f"{explicit}: no such file")
        return ResolvedFile(found, "explicit")
    try:
        return resolve_dataset_file(CULTURESYNTH)
    except DatasetUnavailableError as exc:
        root = mirror_dir()
        folder = root / CULTURESYNTH.benchmark if root else f"${DATA_DIR_ENV}/culturesynth"
        raise DatasetUnavailableError(
            f"{exc} Instead of the xlsx, {folder}/culturesynth.jsonl or culturesynth.csv with "
            "the fields question, answer, language, primary_topic (optional: id, "
            "secondary_topic) also works."
        ) from None


def check_languages(
    languages: Sequence[str] | None, parameter: str = "languages"
) -> set[str] | None:
    """The codes of `languages` (codes or names, or one comma-separated string); None = all."""
    if languages is None:
        return None
    if isinstance(languages, str):  # "zh" or "zh,ja", as `-T languages=zh,ja` passes it
        languages = [part for part in languages.split(",") if part.strip()]
    pairs = [(value, normalize_language(str(value))) for value in languages]
    bad = [repr(value) for value, code in pairs if code is None]
    codes = {code for _, code in pairs if code is not None}
    if bad or not codes:
        raise ValueError(
            f"{parameter}={', '.join(bad) or '(empty)'} is not supported; allowed values: "
            f"{', '.join(LANGUAGES)} (or their English names)"
        )
    return codes


def _column_overrides(column_map: Mapping[str, str] | None) -> dict[str, str]:
    """$INSPECT_CULTURE_CULTURESYNTH_COLUMNS, then `column_map` over it, each checked."""
    given: list[tuple[str, Any]] = [] if column_map is None else [("column_map", column_map)]
    if raw_env := os.environ.get(COLUMNS_ENV, "").strip():
        try:
            given.insert(0, (COLUMNS_ENV, json.loads(raw_env)))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{COLUMNS_ENV} is not valid JSON ({exc})") from None
    merged: dict[str, str] = {}
    for name, value in given:
        if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            raise ValueError(
                f'{name} must map our field names to column names, e.g. {{"question": "Q"}}'
            )
        if unknown := [key for key in value if key not in DEFAULT_COLUMNS]:
            raise ValueError(
                f"{name}: unknown field(s) {', '.join(unknown)}; allowed: "
                f"{', '.join(DEFAULT_COLUMNS)}"
            )
        merged.update(value)
    return merged


def read_culturesynth(
    path: Path, overrides: Mapping[str, str] | None = None
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The file's validated records with stable ids, and the columns used ("" = absent)."""
    suffix = path.suffix.lower()
    if suffix in {".xlsx", ".xlsm"}:
        tables = _xlsx_tables(path)
    elif suffix in {".jsonl", ".csv"}:
        tables = [_text_table(path)]
    else:
        raise DataValidationError(f"{path}: unsupported file type; expected .xlsx, .jsonl or .csv")
    records: list[dict[str, Any]] = []
    used: dict[str, str] = {}
    for table in tables:
        mapping = _map_columns(table, dict(overrides or {}))
        used = used or {field: header or "" for field, header in mapping.items()}  # first table's
        records += [
            record
            for where, row in table.rows
            if (record := _normalize(row, mapping, where, table.language)) is not None
        ]
    if not records:
        raise DataValidationError(f"{path}: no data rows under the header")
    _assign_ids(records, path)
    for record in records:
        del record["_where"]
    return records, used


def _map_columns(table: _Table, overrides: dict[str, str]) -> dict[str, str | None]:
    # reversed, so that of two headers with one key the first one wins
    by_key = {_header_key(header): header for header in reversed(table.headers)}
    mapping: dict[str, str | None] = {}
    missing: list[str] = []
    for field, spellings in DEFAULT_COLUMNS.items():
        if field in overrides:
            wanted = overrides[field]  # "" drops an optional column
            found = by_key.get(_header_key(wanted)) if wanted else None
            if found is None and (wanted or field not in OPTIONAL_FIELDS):
                raise DataValidationError(
                    f"{table.where}: column {wanted!r} given for '{field}' (column_map or "
                    f"{COLUMNS_ENV}) is not in the header; found columns: {_listing(table.headers)}"
                )
        else:
            found = next((by_key[k] for k in map(_header_key, spellings) if k in by_key), None)
            optional = field in OPTIONAL_FIELDS or (field == "language" and table.language)
            if found is None and not optional:
                missing.append(field)
        mapping[field] = found
    if missing:
        tried = "; ".join(f"{f}: {', '.join(DEFAULT_COLUMNS[f])}" for f in missing)
        example = json.dumps(dict.fromkeys(missing, "<column>"), ensure_ascii=False)
        raise DataValidationError(
            f"{table.where}: no column for {', '.join(missing)} (tried {tried}); found columns: "
            f"{_listing(table.headers)}. Name the columns with column_map={example} or "
            f"{COLUMNS_ENV}='{example}'"
        )
    return mapping


def _header_key(header: str) -> str:
    return re.sub(r"[\s_\-]+", "", unicodedata.normalize("NFC", header).casefold())


def _listing(headers: Sequence[str]) -> str:
    return ", ".join(h for h in headers if h) or "(none)"


def _normalize(
    row: dict[str, Any], mapping: dict[str, str | None], where: str, sheet_language: str | None
) -> dict[str, Any] | None:
    raw = {field: _text(row.get(header)) if header else "" for field, header in mapping.items()}
    if not any(raw.values()):
        return None  # blank line / trailing empty spreadsheet row
    names = {field: header or field for field, header in mapping.items()}
    language = _language(raw["language"], sheet_language, where, names["language"])
    topic = raw["primary_topic"].strip()
    primary = normalize_topic(topic) if topic else ""
    if primary is None:
        allowed = "; ".join(f"{name} ({abbr})" for name, abbr in TOPICS.items())
        raise DataValidationError(
            f"{where}, field '{names['primary_topic']}': value {topic!r} is not a primary topic "
            f"of the paper (Table 10); allowed values: {allowed}"
        )
    record = {
        **{field: raw[field].strip() for field in ("id", "question", "answer")},
        "language": language,
        "primary_topic": primary,
        "topic_abbr": TOPICS.get(primary, ""),
        "secondary_topic": raw["secondary_topic"].strip(),
    }
    # without an id column, the id is derived once the whole file is read
    schema_record = {**record, "id": "derived"} if mapping["id"] is None else record
    validate_record(__package__, "culturesynth", schema_record, where=where, field_names=names)
    record["_where"] = where
    return record


def _language(value: str, sheet_language: str | None, where: str, column: str) -> str:
    value = value.strip()
    if not value:
        if sheet_language:
            return sheet_language
        raise DataValidationError(f"{where}, field '{column}': must not be empty")
    if (code := normalize_language(value)) is None:
        raise DataValidationError(
            f"{where}, field '{column}': value {value!r} is not a known language; allowed "
            f"values: {', '.join(LANGUAGES)} (or their English names)"
        )
    if sheet_language and code != sheet_language:
        raise DataValidationError(
            f"{where}, field '{column}': value {value!r} contradicts the sheet's language "
            f"{sheet_language!r}"
        )
    return code


def _assign_ids(records: list[dict[str, Any]], path: Path) -> None:
    first: dict[str, str] = {}
    groups: dict[str, list[dict[str, Any]]] = {}  # records without an id, by derived id
    for record in records:
        if not record["id"]:
            groups.setdefault(derived_id(record["language"], record["question"]), []).append(record)
            continue
        if (previous := first.setdefault(record["id"], record["_where"])) != record["_where"]:
            raise DataValidationError(
                f"{record['_where']}, field 'id': value {record['id']!r} repeats {previous}; "
                f'ids must be unique (map "id" to "" in column_map or {COLUMNS_ENV} to derive '
                "ids from the question text instead)"
            )
    for base, group in groups.items():
        group.sort(key=lambda r: (r["answer"], r["primary_topic"], r["secondary_topic"]))
        for number, record in enumerate(group, start=1):
            record["id"] = base if number == 1 else f"{base}-{number}"
            if record["id"] in first:
                raise DataValidationError(
                    f"{record['_where']}: derived id {record['id']!r} equals the id of "
                    f"{first[record['id']]}"
                )
    if repeated := sum(len(group) - 1 for group in groups.values()):
        logger.warning("%s: %d repeated question(s) got a -2, -3, ... id suffix", path, repeated)


def derived_id(language: str, question: str) -> str:
    """The id of a row without an id column: language + sha1 of the question text."""
    text = unicodedata.normalize("NFC", question).strip()
    return f"{language}-{hashlib.sha1(text.encode('utf-8')).hexdigest()[:12]}"


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # spreadsheet ids such as 12.0
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def _xlsx_tables(path: Path) -> list[_Table]:
    try:
        import openpyxl
    except ImportError:  # pragma: no cover - a declared dependency
        raise DataValidationError(
            f"{path}: reading xlsx needs openpyxl (pip install openpyxl)"
        ) from None
    if not zipfile.is_zipfile(path):
        hint = ""
        if path.read_bytes()[:200].startswith(b"version https://git-lfs"):
            hint = " (a Git LFS pointer: download the real file from the repository page)"
        raise DataValidationError(f"{path}: not an xlsx workbook{hint}")
    try:
        workbook = openpyxl.load_workbook(path, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a damaged workbook
        raise DataValidationError(f"{path}: cannot read the workbook ({exc})") from None
    sheets = [(ws, normalize_language(ws.title)) for ws in workbook.worksheets]
    by_language = [(ws, lang) for ws, lang in sheets if lang]
    tables = [_sheet_table(path, ws, lang) for ws, lang in (by_language or sheets)]
    tables = [t for t in tables if any(t.headers)]
    if by_language or len(tables) <= 1:
        return tables
    # Several sheets, none named after a language: read those that look like the data.
    usable = []
    for table in tables:
        with suppress(DataValidationError):
            _map_columns(table, {})
            usable.append(table)
    return usable or tables[:1]  # none fit: report the first sheet's columns


def _sheet_table(path: Path, ws: Any, language: str | None) -> _Table:
    merged: dict[tuple[int, int], Any] = {}
    for cells in ws.merged_cells.ranges:  # a topic cell spanning its rows applies to each
        merged |= dict.fromkeys(cells.cells, ws.cell(cells.min_row, cells.min_col).value)
    where = f"{path}, sheet {ws.title!r}"
    headers: list[str] = []
    rows: list[tuple[str, dict[str, Any]]] = []
    for number, values in enumerate(ws.iter_rows(min_row=1, values_only=True), start=1):
        cells = [merged.get((number, c), v) for c, v in enumerate(values, start=1)]
        if not any(headers):  # blank rows above the header
            headers = [_text(v).strip() for v in cells]
            continue
        # reversed, so that of two equal headers the first one's cell wins
        row = dict(reversed([(h, v) for h, v in zip(headers, cells) if h]))
        rows.append((f"{where}, row {number}", row))
    return _Table(where, headers, rows, language)


def _text_table(path: Path) -> _Table:
    """A CSV or JSONL file as one table; a JSONL header is every key, in first-seen order."""
    rows: list[tuple[str, dict[str, Any]]] = []
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            if path.suffix.lower() == ".csv":
                reader = NulSafeDictReader(handle)
                headers = reader.fieldnames or []
                rows = [(f"{path}, data row {i}", dict(row)) for i, row in enumerate(reader, 1)]
                return _Table(str(path), headers, rows)
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataValidationError(f"{path}, line {number}: not JSON ({exc})") from None
                if not isinstance(item, dict):
                    raise DataValidationError(f"{path}, line {number}: expected a JSON object")
                rows.append((f"{path}, line {number}", {str(k): v for k, v in item.items()}))
    except UnicodeDecodeError as exc:
        raise DataValidationError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except (OSError, csv.Error) as exc:
        detail = f"CSV ({exc})" if path.suffix.lower() == ".csv" else f"({exc.strerror})"
        raise DataValidationError(f"{path}: cannot read {detail}") from None
    return _Table(str(path), list(dict.fromkeys(key for _, row in rows for key in row)), rows)

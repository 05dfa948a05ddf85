"""NormAd-ETI loader: upstream CSV -> validated, normalized records shared by both harnesses."""

from __future__ import annotations

import csv
import logging
import unicodedata
from pathlib import Path
from typing import Any

from inspect_culture.benchmarks.normad.release import identify_release
from inspect_culture.benchmarks.normad.source import NORMAD
from inspect_culture.benchmarks.normad.taxonomy import COUNTRY_TO_IW, SUBAXIS_TO_SUBCATEGORY
from inspect_culture.benchmarks.spec_types import LoadedDataset
from inspect_culture.datasets_hub.csv_text import NulSafeDictReader
from inspect_culture.datasets_hub.errors import DataValidationError
from inspect_culture.datasets_hub.file_memo import once_per_content
from inspect_culture.datasets_hub.hashing import sha256_file, verified_revision
from inspect_culture.datasets_hub.resolve import ResolvedFile, resolve_dataset_file
from inspect_culture.datasets_hub.validation import refuse_nul_bytes, validate_record

log = logging.getLogger(__name__)
# normalized field -> upstream CSV column
COLUMNS: dict[str, str] = {
    "id": "ID",
    "country": "Country",
    "background": "Background",
    "axis": "Axis",
    "subaxis": "Subaxis",
    "value": "Value",
    "rule_of_thumb": "Rule-of-Thumb",
    "story": "Story",
    "explanation": "Explanation",
    "gold_label": "Gold Label",
}


def load_normad(path: str | Path | None = None) -> LoadedDataset:
    """From `path`, else the mirror, the cache or the pinned Hugging Face revision."""
    resolved = ResolvedFile(Path(path), "explicit") if path else resolve_dataset_file(NORMAD)
    try:
        digest = sha256_file(resolved.path)
    except OSError:
        read_normad_csv(resolved.path)  # raises the message that names the file
        raise
    records = _parsed_normad_csv(resolved.path, digest)
    release = identify_release(records)  # a file of neither release is `unknown`, not refused
    provenance: dict[str, Any] = {
        "dataset": NORMAD.repo_id,
        "revision": verified_revision(NORMAD.revision, NORMAD.sha256, digest),
        "release": release.name,
        "release_evidence": release.evidence,
        "file": NORMAD.filename,
        "origin": resolved.origin,
        "path": str(resolved.path),
        "sha256": digest,
        "rows": len(records),
        "license": NORMAD.license,
    }
    bare = [f"data row {i} (ID {r['id']})" for i, r in enumerate(records, start=1) if _bare(r)]
    if bare:
        more = f"; and {len(bare) - 5} more" if len(bare) > 5 else ""
        provenance["malformed_rows"] = len(bare)
        provenance["warning"] = (
            f"{resolved.path}: {len(bare)} row(s) whose Background is a bare phrase, not the "
            f"markdown section the prompts show (kept, as upstream scores them): "
            f"{'; '.join(bare[:5])}{more}"
        )
        log.warning("NormAd-ETI: %s", provenance["warning"])
    return LoadedDataset(records, provenance)


def _bare(record: dict[str, Any]) -> bool:
    """Upstream's Background is `### Heading` and bullets; one upstream row has `eating` alone."""
    text = record["background"].strip()
    return not text.startswith("#") and "\n" not in text


def read_normad_csv(path: Path) -> list[dict[str, Any]]:
    try:
        handle = path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise DataValidationError(f"{path}: cannot open ({exc.strerror})") from None
    with handle:
        try:
            reader = NulSafeDictReader(handle)
            found = reader.fieldnames or []
            if nul := next((name for name in found if "\x00" in name), None):
                raise DataValidationError(
                    f"{path}, header: column {nul!r} contains a NUL byte (a corrupt file; "
                    "upstream text has none)"
                )
            if missing := [column for column in COLUMNS.values() if column not in found]:
                raise DataValidationError(
                    f"{path}: missing column(s) {', '.join(missing)}; found columns: "
                    f"{', '.join(found) or '(none)'}"
                )
            records = [_normalize(row, path, index) for index, row in enumerate(reader, start=1)]
        except UnicodeDecodeError as exc:
            raise DataValidationError(
                f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason}); the upstream file is UTF-8"
            ) from None
        except csv.Error as exc:
            raise DataValidationError(f"{path}, line {reader.line_num}: {exc}") from None
    if not records:
        raise DataValidationError(f"{path}: no data rows under the header")
    first_row: dict[str, int] = {}
    for index, record in enumerate(records, start=1):
        if (previous := first_row.setdefault(record["id"], index)) != index:
            raise DataValidationError(
                f"{path}, data row {index}, field 'ID': value {record['id']!r} repeats data row "
                f"{previous}"
            )
    return records


_parsed_normad_csv = once_per_content(read_normad_csv)


def _normalize(row: dict[str | None, Any], path: Path, index: int) -> dict[str, Any]:
    raw = {name: (row.get(column) or "") for name, column in COLUMNS.items()}
    shown_id = raw["id"].strip().replace("\x00", "\\x00") or "?"
    where = f"{path}, data row {index} (ID {shown_id})"
    # Python's csv module reads NUL bytes as text; in this file they only mean corruption; every
    # column counts, and the cells beyond the header (a list under None)
    refuse_nul_bytes(row, where=where, field_names={None: "(cell beyond the header)"})
    # NFC: "türkiye" and "māori_etiquette" must match however the file encodes the accents.
    country = unicodedata.normalize("NFC", raw["country"].strip())
    subaxis = unicodedata.normalize("NFC", raw["subaxis"].strip())
    record = {
        **raw,
        "id": raw["id"].strip(),
        "country": country,
        "subaxis": subaxis,
        "gold_label": raw["gold_label"].strip().lower(),
        "iw_cluster": _derive(COUNTRY_TO_IW, country, where, "Country", "Inglehart-Welzel cluster"),
        "subcategory": _derive(SUBAXIS_TO_SUBCATEGORY, subaxis, where, "Subaxis", "subcategory"),
    }
    validate_record(__package__, "normad", record, where=where, field_names=COLUMNS)
    return record


def _derive(table: dict[str, str], key: str, where: str, column: str, what: str) -> str:
    if not key:
        raise DataValidationError(f"{where}, field '{column}': must not be empty")
    if key in table:
        return table[key]
    raise DataValidationError(
        f"{where}, field '{column}': value {key!r} has no known {what} "
        f"(known values: {', '.join(sorted(table))})"
    )

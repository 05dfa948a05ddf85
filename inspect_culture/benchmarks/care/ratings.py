"""CARE's human-rated responses (`geyang627/CARE`) for judge agreement; mirror: its data files in
`$INSPECT_CULTURE_DATA_DIR/care/data/`. Older card revisions spell `rating`/`culture_type`."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from inspect_culture.benchmarks.care.spec import CARE_LANGUAGES, SLUG_BY_UPSTREAM
from inspect_culture.benchmarks.spec_types import LoadedDataset
from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError
from inspect_culture.datasets_hub.languages import LANGUAGES
from inspect_culture.datasets_hub.paths import DATA_DIR_ENV, MIRROR_RULE, mirror_dir, offline
from inspect_culture.datasets_hub.validation import validate_record

REPO_ID = "geyang627/CARE"
_BUILDERS = {".parquet": "parquet", ".jsonl": "json", ".json": "json", ".csv": "csv"}
log = logging.getLogger(__name__)
_ALIASES = {"human_rating": ("human_rating", "rating"), "cul_type": ("cul_type", "culture_type")}


def load_care_ratings(language: str | None = None) -> LoadedDataset:
    if language is not None and language not in CARE_LANGUAGES:
        raise ValueError(
            f"language={language!r} is not supported; allowed values: {', '.join(CARE_LANGUAGES)} "
            "(or none for all)"
        )
    # a row is the language's when its associated_culture names the culture ("Arab"); "" = all
    culture = LANGUAGES[language].culture.lower() if language else ""
    folder = root / "care" / "data" if (root := mirror_dir()) else None
    files = sorted(p for p in folder.glob("*") if p.suffix in _BUILDERS) if folder else []
    rows, origin = (_read_files(files), "mirror") if files else (_download(), "download")
    normalized = [_normalize(row, i, row.get("_file", REPO_ID)) for i, row in enumerate(rows)]
    records = [r for r in normalized if culture in r["associated_culture"].lower()]
    provenance: dict[str, Any] = {
        "dataset": REPO_ID,
        "origin": origin,
        "files": [str(f) for f in files],
        "rows_read": len(rows),
        "rows": len(records),
        "language": language or "all",
    }
    # a row that names no culture cannot be given to a language: counted and said, not lost
    if language and (unplaced := [r for r in normalized if not r["associated_culture"].strip()]):
        provenance["rows_without_culture"] = len(unplaced)
        log.warning(
            "care ratings: %d of %d rows have an empty associated_culture and are left out of "
            "language=%s (they count only when no language is given)",
            len(unplaced), len(rows), language,
        )  # fmt: skip
    if not records:  # both harnesses' tasks need at least one
        raise ValueError(f"no rated responses for language={language!r} in the CARE data")
    return LoadedDataset(records, provenance)


def _read_files(files: list[Path]) -> list[dict[str, Any]]:
    """Each file on its own: files of different card revisions have different columns."""
    import datasets

    rows: list[dict[str, Any]] = []
    for path in files:
        try:
            data = datasets.load_dataset(
                _BUILDERS[path.suffix], data_files=[str(path)], split="train"
            )
        except Exception as exc:  # noqa: BLE001 - any reader failure names the file
            raise DataValidationError(f"{path}: cannot read ({exc})") from None
        rows.extend(dict(row, _file=path.name) for row in data)
    return rows


def _download() -> list[dict[str, Any]]:
    root = mirror_dir()
    target = (root or Path(f"<{DATA_DIR_ENV}>")) / "care" / "data"
    files = "its data files (train-*.parquet, or .jsonl/.json/.csv with the same fields)"
    source = f"Source: Hugging Face dataset {REPO_ID} (split train)."
    hint = f"{source} To run offline, place {files} in {target}"
    if offline():
        raise DatasetUnavailableError(
            f"CARE human ratings are not available (offline mode is on). {hint}"
        )
    if root is not None:  # the mirror rule: never the hub while the mirror variable is set
        raise DatasetUnavailableError(
            f"CARE human ratings are not in the offline mirror ({DATA_DIR_ENV}={root}): put "
            f"{files} in {target}. {source} {MIRROR_RULE}; unset it to download instead."
        )
    try:
        import datasets

        return list(datasets.load_dataset(REPO_ID, split="train"))
    except Exception as exc:  # noqa: BLE001 - hub errors vary by datasets version
        raise DatasetUnavailableError(
            f"CARE human ratings are not available ({type(exc).__name__}). {hint}"
        ) from None


def _field(row: dict[str, Any], name: str) -> Any:
    return next((row[alias] for alias in _ALIASES[name] if row.get(alias) not in (None, "")), None)


def _normalize(row: dict[str, Any], index: int, where_file: str) -> dict[str, Any]:
    where = f"{where_file}, row {index}"
    rating = _field(row, "human_rating")
    if rating is None:
        raise DataValidationError(f"{where}, field 'human_rating': is missing")
    try:
        rating = float(rating)
    except (TypeError, ValueError):
        raise DataValidationError(
            f"{where}, field 'human_rating': {rating!r} is not a number"
        ) from None
    culture_type = _field(row, "cul_type")
    if culture_type not in SLUG_BY_UPSTREAM:
        raise DataValidationError(
            f"{where}, field 'cul_type': value {culture_type!r} is not one of: "
            + ", ".join(SLUG_BY_UPSTREAM)
        )
    record = {
        "id": f"care_rating_{index:05d}",
        **{k: str(row.get(k) or "").strip() for k in ("question", "answer", "response")},
        "human_rating": rating,
        "category": SLUG_BY_UPSTREAM[culture_type],
        "associated_culture": str(row.get("associated_culture") or ""),
    }
    validate_record(__package__, "care_ratings", record, where=where)
    return record

"""CARE test sets (zh, ar, ja), shipped under their MIT license: where they come from (`CARE`:
repository, pinned revision, sha256s, license) and how they are read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_culture.benchmarks.care.spec import CARE_LANGUAGES, SLUG_BY_UPSTREAM
from inspect_culture.benchmarks.choices import check_choice, check_int
from inspect_culture.benchmarks.spec_types import LoadedDataset
from inspect_culture.datasets_hub.errors import DataValidationError
from inspect_culture.datasets_hub.hashing import sha256_file, verified_revision
from inspect_culture.datasets_hub.languages import LANGUAGES
from inspect_culture.datasets_hub.sources import PackagedSource
from inspect_culture.datasets_hub.validation import validate_record

CARE = PackagedSource(
    benchmark="care",
    repo="Guochry/CARE",
    upstream_dir="data",
    revision="d614cfe2407ae3c4da8d4f8a58bd50f16bb0e097",
    sha256={
        "Chinese-test.json": "b0553d8771be582d7d64d36f300280f62a07c5f0f279c2af003a2302cf65a535",
        "Arabic-test.json": "4c19b656ffa8d4194ce4164290ceedbe7d0fc94a9203d88afffec077778b8dc3",
        "Japanese-test.json": "c0ddc6f6f82d04870c1e9ada1a8784201093ee548b311ae3ad2f9272aefe1512",
    },
    license="MIT",
    package=__package__,
    description="CARE: 150 culture questions each in Chinese, Arabic and Japanese (test sets)",
)

UPSTREAM_FIELDS = ("question", "answer", "culture_type", "associated_culture", "geographic_scope")


def first_per_category(
    records: list[dict[str, Any]], per_category: int | None
) -> list[dict[str, Any]]:
    """The first `per_category` questions of each category (quick runs); None keeps all."""
    if per_category is None:
        return records
    per_category = check_int("per_category", per_category, minimum=1)  # --metadata's text too
    seen: dict[str, int] = {}
    kept = []
    for record in records:
        seen[record["category"]] = seen.get(record["category"], 0) + 1
        if seen[record["category"]] <= int(per_category):
            kept.append(record)
    return kept


def load_care(language: str, path: str | Path | None = None) -> LoadedDataset:
    """Upstream `data/<Language>-test.json`; the shipped copy must match its pinned sha256."""
    check_choice("language", language, CARE_LANGUAGES)
    name = f"{LANGUAGES[language].name}-test.json"
    source = Path(path) if path else CARE.path(name)
    digest = sha256_file(source)
    if not path and digest != CARE.sha256[name]:
        raise DataValidationError(
            f"{source}: sha256 {digest} does not match {CARE.sha256[name]} ({CARE.describe()})"
        )
    try:
        items = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataValidationError(f"{source}: cannot read a JSON array ({exc})") from None
    if not isinstance(items, list):
        raise DataValidationError(f"{source}: expected a JSON array of questions")
    records = [_normalize(item, source, index, language) for index, item in enumerate(items)]
    provenance = {
        "dataset": CARE.repo,
        "revision": verified_revision(CARE.revision, CARE.sha256[name], digest),  # explicit path
        "file": source.name,
        "origin": "explicit" if path else "packaged",
        "path": str(source),
        "sha256": digest,
        "rows": len(records),
        "license": CARE.license,
    }
    return LoadedDataset(records, provenance)


def load_care_all() -> LoadedDataset:
    """Every language (`culture-evals data verify care`)."""
    loaded = [load_care(language) for language in CARE_LANGUAGES]
    provenance = {
        "dataset": CARE.repo,
        "revision": CARE.revision,
        "origin": "packaged",
        "files": ", ".join(item.provenance["file"] for item in loaded),
        "sha256": "each file matches its pinned sha256",
        "rows": sum(item.provenance["rows"] for item in loaded),
        "license": CARE.license,
    }
    return LoadedDataset([r for item in loaded for r in item.records], provenance)


def _normalize(item: Any, path: Path, index: int, language: str) -> dict[str, Any]:
    where = f"{path}, item {index}"
    if not isinstance(item, dict):
        raise DataValidationError(f"{where}: expected an object")
    record: dict[str, Any] = {
        "id": f"care_{language}_{index:03d}",
        "language": language,
        # Some Arabic items carry a leading space or trailing blank lines.
        **{
            k: item[k].strip() if isinstance(item.get(k), str) else item.get(k)
            for k in UPSTREAM_FIELDS
            if k in item
        },
    }
    # an unknown culture_type gets a placeholder category, so that the error names culture_type
    record["category"] = SLUG_BY_UPSTREAM.get(record.get("culture_type"), "entities")
    validate_record(__package__, "care", record, where=where)
    return record

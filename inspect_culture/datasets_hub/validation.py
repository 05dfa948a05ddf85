"""JSON-Schema contracts for normalized records, with errors that name file, row and field."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

from inspect_culture.datasets_hub.errors import DataValidationError


@cache
def load_schema(package: str, name: str) -> dict[str, Any]:
    """`schemas/<name>.schema.json` of a benchmark's package (its folder)."""
    text = resources.files(package).joinpath(f"schemas/{name}.schema.json")
    schema = json.loads(text.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


@cache
def _validator(package: str, name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(load_schema(package, name))


def validate_record(
    package: str,
    name: str,
    record: dict[str, Any],
    *,
    where: str,
    field_names: dict[str, str] | None = None,
    refuse_nul: bool = True,
) -> None:
    """Raise DataValidationError for the first schema violation, or (unless `refuse_nul` is
    false) for a NUL byte in any text: upstream data has none, so one means a corrupt file.

    `where` locates the record ("file.csv, data row 7 (ID 6)"); `field_names` maps normalized
    field names back to the upstream column names a user sees in the file.
    """
    if refuse_nul and (field := _nul_field(record)) is not None:
        shown = (field_names or {}).get(field, field)
        raise DataValidationError(
            f"{where}, field '{shown}': contains a NUL byte (a corrupt file; upstream text has "
            "none)"
        )
    errors = sorted(_validator(package, name).iter_errors(record), key=lambda e: list(e.path))
    if not errors:
        return
    error = errors[0]
    field = _field_of(error)
    shown = (field_names or {}).get(field, field)
    raise DataValidationError(f"{where}, field '{shown}': {_describe(error)}")


def _nul_field(record: dict[str, Any]) -> str | None:
    """The first top-level field holding a NUL byte anywhere in its value, or None."""

    def has_nul(value: Any) -> bool:
        if isinstance(value, str):
            return "\x00" in value
        if isinstance(value, dict):
            return any(has_nul(k) or has_nul(v) for k, v in value.items())
        if isinstance(value, list | tuple):
            return any(has_nul(v) for v in value)
        return False

    return next((str(key) for key, value in record.items() if has_nul(value)), None)


def _field_of(error: jsonschema.ValidationError) -> str:
    if error.path:
        return str(error.path[0])
    if error.validator == "required":
        return str(error.message.split("'")[1])
    return "<record>"


def _describe(error: jsonschema.ValidationError) -> str:
    value = error.instance
    if error.validator == "enum":
        allowed = ", ".join(map(str, error.validator_value))
        return f"value {value!r} is not one of: {allowed}"
    if error.validator in {"minLength", "pattern"}:
        return "must not be empty"
    if error.validator == "required":
        return "is missing"
    return error.message

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
    """The first schema violation or (`refuse_nul`) NUL byte as a DataValidationError naming
    `where` and the field as the user sees it (`field_names`: ours -> upstream)."""
    names = field_names or {}
    nul = next((str(key) for key, value in record.items() if _has_nul(value)), None)
    if refuse_nul and nul is not None:
        raise DataValidationError(
            f"{where}, field '{names.get(nul, nul)}': contains a NUL byte (a corrupt file; "
            "upstream text has none)"
        )
    errors = sorted(_validator(package, name).iter_errors(record), key=lambda e: list(e.path))
    if errors:
        field = _field_of(errors[0])
        raise DataValidationError(
            f"{where}, field '{names.get(field, field)}': {_describe(errors[0])}"
        )


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    return isinstance(value, list | tuple) and any(_has_nul(v) for v in value)


def _field_of(error: jsonschema.ValidationError) -> str:
    if error.path:
        return str(error.path[0])
    return str(error.message.split("'")[1]) if error.validator == "required" else "<record>"


def _describe(error: jsonschema.ValidationError) -> str:
    if error.validator == "enum":
        allowed = ", ".join(map(str, error.validator_value))
        return f"value {error.instance!r} is not one of: {allowed}"
    if error.validator in {"minLength", "pattern"}:
        return "must not be empty"
    return "is missing" if error.validator == "required" else error.message

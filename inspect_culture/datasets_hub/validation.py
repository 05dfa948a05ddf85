"""JSON-Schema contracts for normalized records, with errors that name file, row and field."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
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
    if refuse_nul:
        refuse_nul_bytes(record, where=where, field_names=names)
    fast = _fast_check(package, name)
    if fast is not None and fast(record):
        return  # the schema holds: jsonschema would find nothing
    errors = sorted(_validator(package, name).iter_errors(record), key=lambda e: list(e.path))
    if errors:
        field = _field_of(errors[0])
        raise DataValidationError(
            f"{where}, field '{names.get(field, field)}': {_describe(errors[0])}"
        )


def refuse_nul_bytes(
    record: dict[Any, Any], *, where: str, field_names: Mapping[Any, str] | None = None
) -> None:
    """The first field holding a NUL byte (a corrupt file) as a DataValidationError."""
    names = field_names or {}
    for key, value in record.items():
        if _has_nul(value):
            raise DataValidationError(
                f"{where}, field '{names.get(key, key)}': contains a NUL byte (a corrupt file; "
                "upstream text has none)"
            )


# keywords that say nothing about validity
_ANNOTATIONS = {"$schema", "$id", "title", "description"}
_FieldCheck = Callable[[Any], bool]


@cache
def _fast_check(package: str, name: str) -> Callable[[dict[str, Any]], bool] | None:
    """A plain-Python test of a flat record schema (string fields with `minLength`, `pattern`,
    string `enum`s, `required`, `additionalProperties: false`): jsonschema walks every field of
    every row at 0.1-0.25 ms a row (this test: 0.01 ms), up to seconds over CultureSynth-7's
    19,360 questions before the first request. True means jsonschema would accept the record;
    False, or a schema using anything else (None), leaves the verdict and its message to
    jsonschema."""
    schema = load_schema(package, name)
    allowed = _ANNOTATIONS | {"type", "additionalProperties", "required", "properties"}
    if set(schema) - allowed or schema.get("type") != "object":
        return None
    checks = {key: _field_check(sub) for key, sub in schema.get("properties", {}).items()}
    if any(check is None for check in checks.values()):
        return None
    required = tuple(schema.get("required", ()))
    closed = schema.get("additionalProperties", True)
    if closed not in (True, False):
        return None
    known = frozenset(checks)

    def check(record: dict[str, Any]) -> bool:
        if type(record) is not dict or any(key not in record for key in required):
            return False
        if closed is False and not known.issuperset(record):
            return False
        return all(check(record[key]) for key, check in checks.items() if key in record)  # type: ignore[misc]

    return check


def _field_check(schema: dict[str, Any]) -> _FieldCheck | None:
    """One field's test, or None where the field's schema uses more than this knows."""
    if set(schema) - _ANNOTATIONS - {"type", "minLength", "pattern", "enum"}:
        return None
    if "enum" in schema:
        choices = schema["enum"]
        if len(schema) != 1 or not all(type(choice) is str for choice in choices):
            return None
        allowed = frozenset(choices)
        return lambda value: type(value) is str and value in allowed
    if schema.get("type") != "string":
        return None
    shortest = schema.get("minLength", 0)
    pattern = re.compile(schema["pattern"]) if "pattern" in schema else None
    if type(shortest) is not int:
        return None
    return lambda value: (
        isinstance(value, str)
        and len(value) >= shortest
        and (pattern is None or pattern.search(value) is not None)
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

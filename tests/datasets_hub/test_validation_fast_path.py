"""The plain-Python schema test that spares jsonschema on valid rows agrees with jsonschema:
every record it accepts, jsonschema accepts, and it accepts the valid rows it exists for (so
the rows are not validated at jsonschema's cost), and a bad row still gets jsonschema's message."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.datasets_hub import validation
from inspect_culture.datasets_hub.errors import DataValidationError

NORMAD = ("inspect_culture.benchmarks.normad", "normad")
FLAT_SCHEMAS = [
    NORMAD,
    ("inspect_culture.benchmarks.care", "care"),
    ("inspect_culture.benchmarks.culturesynth", "culturesynth"),
]
ODD_VALUES: list[Any] = ["", " ", "\n", "x", "yes", "Yes", 0, 1, None, True, ["x"], {"a": "b"}]


def _normad_row() -> dict[str, Any]:
    from inspect_culture.benchmarks.normad.data import read_normad_csv

    path = Path(__file__).resolve().parents[1] / "data" / "normad_sample.csv"
    return read_normad_csv(path)[0]


def _jsonschema_accepts(package: str, name: str, record: Any) -> bool:
    return not list(validation._validator(package, name).iter_errors(record))


def _mutations(record: dict[str, Any], schema: dict[str, Any], seed: int) -> list[Any]:
    """The record with one field dropped, one field set to an odd value, or a field added."""
    rng = random.Random(seed)
    keys = list(schema["properties"])
    out: list[Any] = [record, dict(record, extra="x"), [record], "text"]
    for key in keys:
        out.append({k: v for k, v in record.items() if k != key})
        out += [dict(record, **{key: value}) for value in ODD_VALUES]
        for choice in schema["properties"][key].get("enum", [])[:3]:
            out.append(dict(record, **{key: choice}))
    rng.shuffle(out)
    return out


def test_normad_rows_take_the_fast_path() -> None:
    check = validation._fast_check(*NORMAD)
    assert check is not None and check(_normad_row())


@pytest.mark.parametrize(("package", "name"), FLAT_SCHEMAS)
def test_the_fast_test_agrees_with_jsonschema(package: str, name: str) -> None:
    check = validation._fast_check(package, name)
    assert check is not None, f"{name}: its schema should be simple enough for the fast test"
    schema = validation.load_schema(package, name)
    base = _normad_row() if name == "normad" else _valid_from_schema(schema)
    assert _jsonschema_accepts(package, name, base)
    for record in _mutations(base, schema, seed=len(name)):
        assert check(record) == _jsonschema_accepts(package, name, record), record


def _valid_from_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A record every field of which holds: an enum's first choice, else a non-blank string
    (CARE's ids have a pattern of their own)."""
    return {
        key: sub["enum"][0] if "enum" in sub else "care_zh_001" if key == "id" else "some text"
        for key, sub in schema["properties"].items()
    }


def test_a_schema_with_other_keywords_is_left_to_jsonschema(monkeypatch) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}
    monkeypatch.setattr(validation, "load_schema", lambda package, name: schema)
    validation._fast_check.cache_clear()
    try:
        assert validation._fast_check("any", "other") is None
    finally:
        validation._fast_check.cache_clear()


def test_a_bad_row_still_gets_the_message_naming_its_field() -> None:
    row = dict(_normad_row(), gold_label="maybe")
    with pytest.raises(DataValidationError) as raised:
        validation.validate_record(*NORMAD, row, where="f.csv, data row 3", field_names={
            "gold_label": "Gold Label"
        })  # fmt: skip
    assert str(raised.value) == (
        "f.csv, data row 3, field 'Gold Label': value 'maybe' is not one of: yes, no, neutral"
    )

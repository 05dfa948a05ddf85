"""The published files' JSON Schema (`inspect_culture/report/schemas/published.schema.json`): it
ships in the wheel, any JSON Schema tool can check the shipped files with it, and its errors name
the file, row and field in one line."""

from __future__ import annotations

import copy
import fnmatch
import json
import re
from pathlib import Path

import jsonschema
import pytest

from inspect_culture.datasets_hub.validation import load_schema
from inspect_culture.report.published import PUBLISHED_DIR, load_published, published_files

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = "inspect_culture/report/schemas/published.schema.json"


def test_the_schema_ships_in_the_wheel() -> None:
    assert (ROOT / SCHEMA).is_file()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")  # no tomllib on 3.10
    block = pyproject.split("[tool.setuptools.package-data]")[1].split("\n[")[0]
    patterns = re.findall(r'"([^"]+)"', block)
    inside = SCHEMA.removeprefix("inspect_culture/")
    assert any(fnmatch.fnmatch(inside, pattern) for pattern in patterns)


@pytest.mark.parametrize("name", published_files())
def test_every_shipped_file_has_the_schemas_shape(name: str) -> None:
    data = json.loads((PUBLISHED_DIR / name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(load_schema("inspect_culture.report", "published")).validate(
        data
    )


def _load_edited(tmp_path: Path, edit) -> str:
    data = copy.deepcopy(json.loads((PUBLISHED_DIR / "care.json").read_text(encoding="utf-8")))
    edit(data)
    path = tmp_path / "care_bad.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        load_published(path)
    return str(caught.value)


def test_a_bad_setting_is_named_by_its_key(tmp_path: Path) -> None:
    text = _load_edited(tmp_path, lambda d: d["rows"][3]["settings"].update(judge=""))
    assert text == "care_bad.json: rows[3].settings.judge: must be a non-empty string"


def test_a_page_written_as_a_float_is_no_page_number(tmp_path: Path) -> None:
    """jsonschema counts 2.0 as an integer; the report would print "p. 2.0"."""
    text = _load_edited(tmp_path, lambda d: d["rows"][0]["source"].update(page=2.0))
    assert text == "care_bad.json: rows[0].source.page: must be a page number or null, got 2.0"

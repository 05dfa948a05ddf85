"""The baseline answers file: round trip, provenance, and errors that name the file and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspect_culture.benchmarks.culturesynth.baseline_responses import (
    BaselineResponses,
    read_baseline_responses,
    write_baseline_responses,
)
from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError


def test_round_trip_records_model_settings_and_sha(tmp_path: Path) -> None:
    baseline = BaselineResponses(
        model="vllm/google/gemma-2-27b-it",
        responses={"zh-2": "二", "zh-1": "一"},
        generation_settings={"temperature": 0.0, "max_tokens": 2048},
        sources=[{"harness": "inspect", "path": "logs/x.eval"}],
    )
    path = write_baseline_responses(baseline, tmp_path / "sub" / "baseline.json")
    assert not list(path.parent.glob("*.partial"))
    read = read_baseline_responses(path)
    assert read.responses == {"zh-1": "一", "zh-2": "二"}
    assert read.model == baseline.model and read.generation_settings["max_tokens"] == 2048
    assert read.sources == baseline.sources
    provenance = read.provenance()
    assert provenance["baseline_answers"] == 2 and len(provenance["baseline_sha256"]) == 64
    assert "二" in path.read_text(encoding="utf-8")  # not \u-escaped: readable by a person


VALID = {
    "format": "inspect-culture/baseline-responses",
    "format_version": 1,
    "benchmark": "culturesynth",
    "model": "m",
    "responses": {"a": "x"},
}
MISSING_MODEL = {k: v for k, v in VALID.items() if k != "model"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe", "not UTF-8"),
        (b"{oops", "not JSON"),
        (b"[]", "expected a JSON object"),
        (json.dumps({**VALID, "format": "x"}).encode(), "field 'format': value 'x' is not one of"),
        (json.dumps({**VALID, "responses": {"a": 3}}).encode(), "field 'responses'"),
        (json.dumps(MISSING_MODEL).encode(), "field 'model': is missing"),
    ],
)
def test_bad_file_names_file_and_field(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "baseline.json"
    path.write_bytes(content)
    with pytest.raises(DataValidationError, match=message) as error:
        read_baseline_responses(path)
    assert str(path) in str(error.value)


def test_blank_answer_is_rejected(tmp_path: Path) -> None:
    """A blank baseline answer would be judged as an answer; the file must leave it out."""
    baseline = BaselineResponses(model="m", responses={"a": "  \n"})
    path = write_baseline_responses(baseline, tmp_path / "b.json")
    with pytest.raises(DataValidationError, match="field 'responses'"):
        read_baseline_responses(path)


def test_dataset_mismatch_is_explained() -> None:
    baseline = BaselineResponses(model="m", responses={"a": "x"}, dataset_sha256="aaa")
    warning = baseline.dataset_warning("bbb")
    assert warning is not None and "aaa" in warning and "bbb" in warning
    assert baseline.dataset_warning("aaa") is None
    assert baseline.dataset_warning(None) is None  # nothing to compare: no warning
    assert BaselineResponses(model="m", responses={"a": "x"}).dataset_warning("bbb") is None


def test_missing_file_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(DatasetUnavailableError, match="culture-evals baseline export"):
        read_baseline_responses(tmp_path / "nope.json")


def test_check_questions_reports_missing_answers_and_a_changed_dataset(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    baseline = BaselineResponses(model="m", responses={"a": "x"}, dataset_sha256="old")
    with caplog.at_level("WARNING"):
        missing = baseline.check_questions(["a", "b", "c"], "new")
    assert missing == ["b", "c"]
    assert "2 of 3 questions" in caplog.text and "(first: b, c)" in caplog.text
    assert "old" in caplog.text and "new" in caplog.text
    caplog.clear()
    assert baseline.check_questions(["a"], "old") == [] and caplog.text == ""

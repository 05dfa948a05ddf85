"""Lean samples lines (issue 42): one metric field carries a doc's outcome record, the others
hold a `RecordRef` (the carrier's name in the file, the record in the process), the aggregations
read the same records either way, and the readers take new and old layouts alike; provenance is
recorded once per task in its metadata."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path

import pytest

from inspect_culture.benchmarks.care import spec as care_spec
from inspect_culture.judging.options import JudgeConfigError
from inspect_culture.lm_eval_tasks.care import utils as care
from inspect_culture.lm_eval_tasks.generic import RecordRef, outcome_fields, records_of
from inspect_culture.lm_eval_tasks.task_provenance import record_provenance
from inspect_culture.run_files.lm_eval_outputs import outcome_record, task_provenance


def _care_record(question: str, rating: float | None, category: str = "ethics") -> dict:
    return care_spec.CareOutcome(question, rating, category, "local").to_record()


RECORDS = [_care_record(f"q{i}", rating) for i, rating in enumerate([3.0, 4.5, None, 2.0, 5.0])]


def test_record_ref_is_its_carrier_name_on_file_and_the_record_in_process() -> None:
    fields = outcome_fields(care_spec.HEADLINE_METRICS, RECORDS[0])
    carrier, *others = care_spec.HEADLINE_METRICS
    assert fields[carrier] is RECORDS[0]
    line = json.loads(json.dumps(fields, ensure_ascii=False))  # as lm-eval writes the line
    assert line == {carrier: RECORDS[0], **dict.fromkeys(others, carrier)}
    ref = fields["rating"]
    # lm-eval pickles the values when it gathers ranks; its tracker deep-copies the samples
    for moved in (pickle.loads(pickle.dumps(ref)), copy.deepcopy(ref)):
        assert isinstance(moved, RecordRef) and moved == carrier
        assert (moved.record, moved.metric) == (RECORDS[0], "rating")
    assert records_of([ref, RECORDS[1]]) == [RECORDS[0], RECORDS[1]]


def test_care_aggregations_read_the_record_through_references() -> None:
    per_doc = [care.process_results({}, [json.dumps({"outcome": r})]) for r in RECORDS]
    for name in care_spec.HEADLINE_METRICS:
        items = [fields[name] for fields in per_doc]
        expected = care.all_metrics(RECORDS)[name]
        assert getattr(care, f"agg_{name}")(items) == pytest.approx(expected, nan_ok=True)
        # a run made before: the record under every metric
        assert getattr(care, f"agg_{name}")(list(RECORDS)) == pytest.approx(expected, nan_ok=True)
    assert care.agg_rating([f["rating"] for f in per_doc]) == pytest.approx(14.5 / 4)


def test_readers_follow_the_carrier_and_read_old_lines() -> None:
    metrics = list(care_spec.HEADLINE_METRICS)
    new = {"metrics": metrics, **outcome_fields(metrics, RECORDS[1])}
    new = json.loads(json.dumps(new))
    old = {"metrics": metrics, **dict.fromkeys(metrics, RECORDS[1])}  # before issue 42
    old_text = {"metrics": metrics, **dict.fromkeys(metrics, repr(RECORDS[1]))}  # Python text
    for line in (new, old, old_text):
        for name in metrics:
            assert outcome_record(line, name) == RECORDS[1]
    # a text that names no metric field is not followed
    assert outcome_record({"metrics": metrics, "rating": "doc"}, "rating") is None


def test_provenance_fills_the_tasks_mapping_once() -> None:
    slot: dict = {}
    metadata = {"version": 4, "provenance": slot}
    record_provenance(
        "care_zh", metadata, {"sha256": "ab", "rows": 2, "path": Path("/d")}, {"v": 1}
    )
    assert slot == {"sha256": "ab", "rows": 2, "path": "/d", "v": 1}
    record_provenance("care_zh", {}, {"sha256": "ab"})  # outside a run: nothing to fill
    with pytest.raises(JudgeConfigError, match="care_zh: --metadata key 'provenance' is written"):
        record_provenance("care_zh", {"provenance": "mine"}, {"sha256": "ab"})


def test_provenance_reader_takes_the_config_else_an_old_doc() -> None:
    results = {"configs": {"care_zh": {"metadata": {"provenance": {"sha256": "ab", "rows": 3}}}}}
    assert task_provenance(results, "care_zh") == {"sha256": "ab", "rows": 3}
    old_doc = {"id": "1", "dataset_sha256": "cd", "dataset_rows": 5, "dataset_revision": "r"}
    assert task_provenance({"configs": {}}, "care_zh", old_doc) == {
        "sha256": "cd",
        "rows": 5,
        "revision": "r",
    }
    assert task_provenance(None, "care_zh") == {}


def test_care_task_records_provenance_in_its_config_not_its_docs(
    full_mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """lm-eval hands the YAML's `provenance` mapping to the loader and dumps it with the config
    (what it writes to results_*.json `configs`)."""
    from lm_eval.tasks import TaskManager, get_task_dict

    from inspect_culture.lm_eval_tasks import include_path
    from inspect_culture.lm_eval_tasks.judge import batch

    monkeypatch.setattr(batch, "_TASK_OPTIONS", {})
    metadata = {"judge_model": "j", "judge_base_url": "http://127.0.0.1:9/v1", "per_category": 1}
    manager = TaskManager(
        include_path=[str(include_path())], include_defaults=False, metadata=metadata
    )
    tasks = get_task_dict(["care_zh", "care_ja"], manager)
    for name, task in tasks.items():
        provenance = task.dump_config()["metadata"]["provenance"]
        assert len(provenance["sha256"]) == 64 and provenance["rows"] > 0
        assert provenance["judge_prompt_version"] == care_spec.JUDGE_PROMPT_VERSION
        doc = next(iter(task.test_docs()))
        assert not {"dataset_sha256", "dataset_rows", "dataset_revision", "prompting"} & set(doc)
        assert doc["lm_eval_task"] == name
    files = {task.config.metadata["provenance"]["file"] for task in tasks.values()}
    assert files == {"Chinese-test.json", "Japanese-test.json"}  # each task its own mapping

"""What the report does with inputs that are not usable runs of ours: one line naming the file
and why, and the rest of the report still builds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match
from inspect_ai.solver import Generate, TaskState, solver

from inspect_culture.report.inputs import canonical_lm_eval_model, read_runs
from inspect_culture.report.inspect_logs import canonical_inspect_model


def _log(task: Task, log_dir: Path) -> Path:
    [log] = inspect_eval(task, model="mockllm/model", log_dir=str(log_dir), display="none")
    return Path(log.location)


@solver
def _fails():
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        raise RuntimeError("the model server went away")

    return solve


def test_foreign_and_errored_inspect_logs(tmp_path: Path) -> None:
    samples = [Sample(input="Say hi", target="hi")]
    foreign = _log(Task(dataset=samples, scorer=match(), name="someone_elses_eval"), tmp_path)
    errored = _log(Task(dataset=samples, solver=_fails(), scorer=match(), name="normad"), tmp_path)
    runs, skipped = read_runs([foreign, errored])
    assert runs == []
    reasons = {s.path: s.reason for s in skipped}
    assert reasons[foreign] == "task 'someone_elses_eval' is not an inspect-culture task"
    assert reasons[errored].startswith("the run ended with status 'error'")
    assert "the model server went away" in reasons[errored]


def test_unreadable_files(tmp_path: Path) -> None:
    corrupt_eval = tmp_path / "run.eval"
    corrupt_eval.write_bytes(b"PK\x03\x04 this is not a zip archive")
    corrupt_json = tmp_path / "results_2026-01-01T00-00-00.json"
    corrupt_json.write_text('{"results": {', encoding="utf-8")
    empty = tmp_path / "empty.json"
    empty.touch()
    other = tmp_path / "baseline.json"
    other.write_text(json.dumps({"model": "x", "responses": {}}), encoding="utf-8")
    text = tmp_path / "notes.md"
    text.write_text("# notes", encoding="utf-8")
    missing = tmp_path / "gone.eval"
    runs, skipped = read_runs([corrupt_eval, corrupt_json, empty, other, text, missing])
    assert runs == []
    reasons = {s.path.name: s.reason for s in skipped}
    assert reasons["run.eval"].startswith("not a readable Inspect log (")
    assert (
        reasons["results_2026-01-01T00-00-00.json"]
        == "corrupt JSON (line 1: Expecting property name enclosed in double quotes)"
    )
    assert reasons["empty.json"] == "empty file"
    assert reasons["baseline.json"].startswith("JSON, but neither an Inspect log nor an lm-eval")
    assert reasons["notes.md"].startswith("neither an Inspect log (.eval, .json) nor an lm-eval")
    assert reasons["gone.eval"] == "does not exist"
    assert all(str(s).startswith(str(s.path)) for s in skipped)  # each line names its file


def test_lm_eval_results_of_other_tasks(tmp_path: Path) -> None:
    results = tmp_path / "results_2026-01-01T00-00-00.json"
    results.write_text(
        json.dumps({"results": {"hellaswag": {"acc,none": 0.5}}, "config": {"model": "hf"}}),
        encoding="utf-8",
    )
    empty_folder = tmp_path / "nothing"
    empty_folder.mkdir()
    runs, skipped = read_runs([results, empty_folder])
    assert runs == []
    assert [s.reason for s in skipped] == [
        "an lm-eval results file, but none of its tasks is ours (hellaswag)",
        "no Inspect log (.eval/.json) or lm-eval results_*.json in it",
    ]


@pytest.mark.parametrize(
    ("model", "canonical"),
    [
        ("vllm/Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"),
        ("openai-api/local/SmolLM2", "SmolLM2"),
        ("openai/gpt-4o", "gpt-4o"),
        ("hf/meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-8B"),
    ],
)
def test_one_model_name_for_both_harnesses(model: str, canonical: str) -> None:
    assert canonical_inspect_model(model) == canonical
    assert canonical_lm_eval_model({"model_args": f"pretrained={canonical},dtype=auto"}, None) == (
        canonical
    )
    assert canonical_lm_eval_model({"model_args": {"model": canonical}}, None) == canonical

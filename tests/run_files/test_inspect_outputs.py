"""The report reads a finished `.eval` log's summaries straight from its zip, and falls back to
Inspect's reader for any other layout; both routes give the same outcome records."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log_sample_summaries
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, TaskState, solver

from inspect_culture.report import records as records_module
from inspect_culture.report.section import RecordSource
from inspect_culture.run_files.inspect_outputs import raw_summaries

FAMILY = RecordSource(prefix="tiny", lm_eval_field="record", inspect_key="record")
LONG = "word " * 400  # over 1 kB: Inspect thins this record out of the sample's summary


@scorer(metrics=[mean()])
def _record_scorer():
    async def score(state: TaskState, target: Target) -> Score:
        note = LONG if state.sample_id == "q2" else "short"
        return Score(value=1, metadata={"record": {"sample_id": state.sample_id, "note": note}})

    return score


@solver
def _no_generation():
    """The records are all this test needs; a model call would need the network (tiktoken)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return state

    return solve


@pytest.fixture(scope="module")
def log_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    task = Task(
        dataset=[Sample(id=f"q{i}", input="hi", target="x") for i in range(3)],
        solver=_no_generation(),
        scorer=_record_scorer(),
    )
    folder = tmp_path_factory.mktemp("logs")
    [log] = eval(task, model="mockllm/model", log_dir=str(folder), display="none")
    return Path(log.location)


@pytest.fixture(autouse=True)
def _fresh_cache():
    records_module.clear_cache()
    yield
    records_module.clear_cache()


def _without_summaries(source: Path, target: Path) -> Path:
    """The log as a running one looks: its journal only, no consolidated `summaries.json`."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            if item.filename != "summaries.json":
                new.writestr(item, old.read(item.filename))
    return target


def test_raw_summaries_hold_what_inspect_reads(log_path: Path) -> None:
    raw = raw_summaries(log_path)
    assert raw is not None and sorted(s["id"] for s in raw) == ["q0", "q1", "q2"]
    by_inspect = {s.id: s.scores for s in read_eval_log_sample_summaries(str(log_path))}
    for summary in raw:
        [(name, score)] = summary["scores"].items()
        assert score["metadata"] == by_inspect[summary["id"]][name].metadata


def test_other_layouts_are_left_to_inspect(log_path: Path, tmp_path: Path) -> None:
    assert raw_summaries(_without_summaries(log_path, tmp_path / "running.eval")) is None
    (tmp_path / "broken.eval").write_bytes(b"not a zip")
    assert raw_summaries(tmp_path / "broken.eval") is None
    assert raw_summaries(tmp_path / "log.json") is None


def test_both_routes_give_every_record_in_full(log_path: Path, tmp_path: Path) -> None:
    fast = records_module._inspect_records(log_path, FAMILY)
    journal = _without_summaries(log_path, tmp_path / "running.eval")
    assert raw_summaries(journal) is None
    slow = records_module._inspect_records(journal, FAMILY)
    assert sorted(fast, key=str) == sorted(slow, key=str)
    notes = {r["sample_id"]: r["note"] for r in fast}
    assert notes == {"q0": "short", "q1": "short", "q2": LONG}  # q2 read in full from its sample

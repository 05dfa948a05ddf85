"""A baseline answers file's answers reach each sample with the dataset, not through a solver:
the samples end with the same metadata (`baseline_answer`, `baseline_model`; None where the file
has no answer) and the same scores, and the transcript has no `baseline_answer` solver span (two
events a sample fewer for Inspect to write). The `baseline` role still answers in a solver."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_culture.culturesynth import culturesynth
from tests.benchmarks.culturesynth.test_culturesynth_inspect import _run, baseline_file
from tests.support.culturesynth_data import MISSING, QUESTIONS

__all__ = ["baseline_file"]  # the fixture, shared


def _spans(log: Any) -> set[str]:
    return {
        str(getattr(event, "name", ""))
        for sample in log.samples
        for event in sample.events
        if getattr(event, "event", "") == "span_begin"
    }


def test_the_file_answers_are_in_each_sample_without_a_solver_span(
    baseline_file: Path, tmp_path: Path
) -> None:
    log = _run(culturesynth(baseline_responses=str(baseline_file)), tmp_path)
    by_id = {str(s.id): s for s in log.samples}
    assert set(by_id) == set(QUESTIONS)
    for qid, sample in by_id.items():
        expected = None if qid == MISSING else f"BASELINE answer to {qid}"
        assert sample.metadata["baseline_answer"] == expected
        assert sample.metadata["baseline_model"] == "mock/gemma"
    assert "baseline_answer" not in _spans(log)
    assert "generate" in _spans(log)  # the spans are there to be seen


def test_the_dataset_keeps_each_question_once(baseline_file: Path) -> None:
    task = culturesynth(baseline_responses=str(baseline_file))
    ids = [str(sample.id) for sample in task.dataset]
    assert sorted(ids) == sorted(QUESTIONS)
    assert all(set(s.metadata or {}) >= {"question", "baseline_answer"} for s in task.dataset)

"""Each judged lm-eval task builds its judge options once, from its --metadata, when it loads (a
run that judges), and keeps that one value for its filter, its re-judging and its jury: the
judges are resolved once per load, not once for the early checks and again for the filter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.judging import options as judge_options
from inspect_culture.judging.options import JudgeOptions
from inspect_culture.judging.repeats import Repeats
from inspect_culture.lm_eval_tasks import include_path
from inspect_culture.lm_eval_tasks.judge import batch
from tests.support.culturesynth_data import write_stub_baseline
from tests.support.openai_stub import StubOpenAIServer, care_responder

JURY = {
    "judge_models": "a,b",
    "judge_base_url": "http://127.0.0.1:9/v1",  # never asked: the preflight is off
    "judge_preflight": False,
    "judge_repeats": 2,
    "judge_temperature": 0.5,
}


@pytest.mark.parametrize("task", ["care_zh", "culturesynth_zh"])
def test_a_loader_resolves_its_judges_once_and_keeps_the_one_value(
    full_mirror: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: str
) -> None:
    from lm_eval.tasks import TaskManager, get_task_dict

    monkeypatch.setattr(batch, "run_judges", lambda: True)  # as in a run that judges
    monkeypatch.setattr(batch, "_TASK_OPTIONS", {})
    resolved: list[Any] = []
    resolve = judge_options.resolve_jury_settings

    def counting(*args: Any, **kwargs: Any) -> Any:
        resolved.append(args)
        return resolve(*args, **kwargs)

    monkeypatch.setattr(judge_options, "resolve_jury_settings", counting)
    metadata = {**JURY, "baseline_responses": str(write_stub_baseline(tmp_path / "base.json"))}
    manager = TaskManager(
        include_path=[str(include_path())], include_defaults=False, metadata=metadata
    )
    get_task_dict([task], manager)
    assert len(resolved) == 1
    kept = batch._TASK_OPTIONS[task]
    assert isinstance(kept, JudgeOptions)
    assert [j.model for j in kept.judges] == ["a", "b"]
    assert {j.temperature for j in kept.judges} == {0.5}
    assert kept.repeats == Repeats(2, 1.0) and not kept.judge_preflight


def test_outside_a_run_the_judges_are_resolved_when_the_filter_needs_them(
    full_mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Task tooling loads a task without asking its judge; a filter run outside lm-eval's
    `simple_evaluate` then checks the judge (one request) and judges with it."""
    from lm_eval.tasks import TaskManager, get_task_dict

    from inspect_culture.lm_eval_tasks.care import utils as care

    monkeypatch.setattr(batch, "_TASK_OPTIONS", {})
    monkeypatch.setattr(batch, "_CHECKED", set())
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    with StubOpenAIServer(responder=care_responder) as judge:
        metadata = {"judge_model": "j", "judge_base_url": judge.base_url, "per_category": 1}
        manager = TaskManager(
            include_path=[str(include_path())], include_defaults=False, metadata=metadata
        )
        [task] = get_task_dict(["care_zh"], manager).values()
        assert judge.requests == []  # loaded: no judge asked
        docs = list(task.test_docs())[:1]
        [reply] = care.judge_filter(["An answer."], docs)
        assert len(judge.requests) == 2  # the check, then the judgment
    assert json.loads(reply)["judge_model"] == "j"
    assert isinstance(batch._TASK_OPTIONS["care_zh"], JudgeOptions)

"""Where lm-eval and our judged tasks meet: every task can be built, listed and loaded without a
judge (task tooling, lm-eval's own task tests); a run that will judge still stops before the
first generation, with the message as the last thing printed and no traceback; `--predict_only`
makes no judge call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspect_culture.judging.options import JudgeConfigError
from inspect_culture.lm_eval_tasks import include_path
from inspect_culture.lm_eval_tasks.judge import batch
from tests.support.culturesynth_data import write_stub_baseline
from tests.support.harness_runs import run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, care_responder
from tests.support.report_runs import install_mirror

pytestmark = pytest.mark.slow
CARE = [f"care_{lang}{kind}" for lang in ("zh", "ar", "ja") for kind in ("", "_cot", "_role_play")]


@pytest.fixture(autouse=True)
def _no_judge(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(batch, "_CHECKED", set())
    for name in ("MODEL", "BASE_URL", "API_KEY", "PREFLIGHT"):
        monkeypatch.delenv(f"INSPECT_CULTURE_JUDGE_{name}", raising=False)
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(install_mirror(tmp_path / "mirror")))


def test_judged_tasks_build_and_load_without_a_judge(tmp_path: Path) -> None:
    """Every judged task but VE's step 2, whose prompts need step 1's output (its input data,
    like CultureSynth's baseline answers, which are given here: they are not judge settings)."""
    from lm_eval.tasks import TaskManager, get_task_dict

    baseline = write_stub_baseline(tmp_path / "baseline.json")
    manager = TaskManager(
        include_path=[str(include_path())], include_defaults=False,
        metadata={"baseline_responses": str(baseline)},
    )  # fmt: skip
    tasks = get_task_dict([*CARE, "culturesynth_all"], manager)
    assert sorted(tasks) == sorted([*CARE, "culturesynth_all"])
    for name, task in tasks.items():
        docs = list(task.test_docs())
        assert docs, name
        assert task.doc_to_text(docs[0]), name


def test_a_judged_run_without_a_judge_stops_before_generation() -> None:
    with StubOpenAIServer(responder=care_responder) as model:
        with pytest.raises(JudgeConfigError, match="no judge configured"):
            run_lm_eval(model, ["care_zh"], {"per_category": 1})
        assert model.requests == []


def test_predict_only_makes_no_judge_call() -> None:
    with (
        StubOpenAIServer(responder=care_responder) as model,
        StubOpenAIServer(responder=care_responder) as judge,
    ):
        metadata = {"judge_model": "judge", "judge_base_url": judge.base_url, "per_category": 1}
        results = run_lm_eval(model, ["care_zh"], metadata, predict_only=True)
        assert len(model.requests) == 5  # one question per category, generated
        assert judge.requests == []  # no preflight, no judgment
    [sample, *_] = results["samples"]["care_zh"]
    assert sample["resps"] and "bypass" in sample


def test_the_cli_prints_the_message_last_without_a_traceback(tmp_path: Path) -> None:
    with StubOpenAIServer(responder=care_responder) as model:
        command = [
            sys.executable, "-m", "lm_eval", "--model", "local-chat-completions",
            "--model_args", f"model=m,base_url={model.base_url}/chat/completions,num_concurrent=1",
            "--tasks", "care_zh", "--include_path", str(include_path()), "--apply_chat_template",
            "--limit", "1", "--metadata", json.dumps({"per_category": 1}),
        ]  # fmt: skip
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=300,
            env={**os.environ, "HF_DATASETS_OFFLINE": "1"},
        )  # fmt: skip
        assert model.requests == []
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    shown = [line for line in done.stderr.splitlines() if line.strip()]
    assert "no judge configured" in shown[-1] and len(shown[-1]) < 400, shown[-3:]

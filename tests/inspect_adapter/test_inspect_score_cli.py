"""Judging later: an eval run with `--no-score`, then the exact `inspect score` command line of
docs/judge.md, with the grader bound by `--model-role` and the scorer named by its registry
name (`inspect_culture/<scorer>`), run from a directory other than the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

from inspect_culture.care import care
from inspect_culture.cqbench import cqbench_ve
from inspect_culture.culturesynth import culturesynth
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = pytest.mark.slow
INSPECT = Path(sys.executable).parent / "inspect"


def _pairwise_or_care(prompt: str, body: dict[str, Any]) -> str:
    messages = " ".join(str(m.get("content")) for m in body.get("messages", []))
    if "[[A]]" in messages:  # CultureSynth's pairwise judge prompt
        return "Compared.\n[[A]]"
    if "[Final answer]" in prompt or "Ground truth" in prompt:  # CQ-Bench VE judge
        return "[Reasoning]:\nok\n[Final answer]:\n[Ground truth 1]:1\n[Ground truth 2]:0.5"
    return care_responder(prompt, body)


def _no_score_log(task: Any, server: StubOpenAIServer, log_dir: Path, **kwargs: Any) -> str:
    """Step 1: generation only. The judge is bound but never contacted (preflight off)."""
    [log] = inspect_eval(
        task,
        model="openai-api/stub/evaluated",
        model_base_url=server.base_url,
        model_roles={"grader": "openai-api/stub/judge"},
        log_dir=str(log_dir),
        display="none",
        score=False,
        **kwargs,
    )
    assert log.status == "success", log.error
    assert not log.results or not log.results.scores
    return str(log.location)


def _inspect_score(
    log_file: str, scorer: str, judge: StubOpenAIServer, cwd: Path, *extra: str
) -> tuple[subprocess.CompletedProcess[str], Any]:
    """Step 2, as a user types it."""
    out = cwd / "scored.eval"
    env = {**os.environ, "STUB_API_KEY": "test-key", "STUB_BASE_URL": judge.base_url}
    done = subprocess.run(
        [str(INSPECT), "score", log_file, "--scorer", scorer,
         "--model-role", "grader=openai-api/stub/judge", "--output-file", str(out), *extra],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done, read_eval_log(str(out))


def test_care_two_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with StubOpenAIServer(responder=care_responder) as server:
        monkeypatch.setenv("STUB_BASE_URL", server.base_url)
        log_file = _no_score_log(
            care(language="zh", per_category=1, judge_preflight=False), server, tmp_path / "logs"
        )
        generated = len(server.requests)
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        _, scored = _inspect_score(log_file, "inspect_culture/care_judge", server, elsewhere)
    assert len(server.requests) > generated  # the judge was called in step 2 only
    [score] = scored.results.scores
    assert score.name == "care_judge"
    assert score.scored_samples + score.unscored_samples == len(scored.samples) >= 5
    assert score.scored_samples > 0 and "rating" in score.metrics


def test_culturesynth_and_cqbench_ve_judges_by_registry_name(
    tmp_path: Path, full_mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with StubOpenAIServer(responder=_pairwise_or_care) as server:
        monkeypatch.setenv("STUB_BASE_URL", server.base_url)
        cases = [
            (culturesynth(judge_preflight=False), "inspect_culture/culturesynth_judge",
             {"model_roles": {"grader": "openai-api/stub/judge",
                              "baseline": "openai-api/stub/baseline"}}),
            (cqbench_ve(setting="social", judge_preflight=False),
             "inspect_culture/cqbench_ve_judge", {}),
        ]  # fmt: skip
        for number, (task, scorer, extra) in enumerate(cases):
            log_dir = tmp_path / f"logs{number}"
            if extra:
                [log] = inspect_eval(
                    task, model="openai-api/stub/evaluated", model_base_url=server.base_url,
                    log_dir=str(log_dir), display="none", score=False, limit=2, **extra,
                )  # fmt: skip
                assert log.status == "success", log.error
                log_file = str(log.location)
            else:
                log_file = _no_score_log(task, server, log_dir, limit=2)
            cwd = tmp_path / f"cwd{number}"
            cwd.mkdir()
            _, scored = _inspect_score(log_file, scorer, server, cwd)
            [score] = scored.results.scores
            assert score.name == scorer.split("/")[1]
            assert score.scored_samples == len(scored.samples) > 0, scorer


def test_scorer_options_reach_the_scorer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`-S` passes the scorer's options (here a bad one, refused with the parameter's name)."""
    with StubOpenAIServer(responder=care_responder) as server:
        monkeypatch.setenv("STUB_BASE_URL", server.base_url)
        log_file = _no_score_log(
            care(language="zh", per_category=1, judge_preflight=False), server, tmp_path / "logs"
        )
        env = {**os.environ, "STUB_API_KEY": "test-key"}
        done = subprocess.run(
            [str(INSPECT), "score", log_file, "--scorer", "inspect_culture/care_judge",
             "-S", "judge_timeout=0", "--model-role", "grader=openai-api/stub/judge",
             "--output-file", str(tmp_path / "x.eval")],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert "judge_timeout" in output and "must be a number of seconds > 0" in output, output
    assert "couldn't be loaded" not in output


def test_generation_only_run_needs_no_grader_and_is_judged_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`-T judge_later=true`: step 1 binds no grader and contacts none; every sample is unscored
    with a reason saying how to judge it; `inspect score --scorer ...` with the grader bound
    then judges the same outputs."""
    with StubOpenAIServer(responder=care_responder) as server:
        monkeypatch.setenv("STUB_BASE_URL", server.base_url)
        [log] = inspect_eval(
            care(language="zh", per_category=1, judge_later=True),
            model="openai-api/stub/evaluated", model_base_url=server.base_url,
            log_dir=str(tmp_path / "logs"), display="none",
        )  # fmt: skip
        assert log.status == "success", log.error
        prompts = [str(r["messages"][-1]["content"]) for r in server.requests]
        assert not any(p.startswith("Please serve as") for p in prompts)  # no judge call
        assert len(server.requests) == len(log.samples) == 5  # generation only, no preflight
        reasons = {s.scores["care_judge"].reason for s in log.samples}
        assert len(reasons) == 1 and "inspect score" in reasons.pop()
        assert "generation only (judge_later)" in capsys.readouterr().err
        generated = len(server.requests)
        env = {**os.environ, "STUB_API_KEY": "test-key"}
        out = tmp_path / "scored.eval"
        done = subprocess.run(
            [str(INSPECT), "score", str(log.location), "--scorer", "inspect_culture/care_judge",
             "--action", "overwrite", "--model-role", "grader=openai-api/stub/judge",
             "--output-file", str(out)],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        assert len(server.requests) == generated + 5  # one judgment per sample, no generation
    [score] = read_eval_log(str(out)).results.scores
    assert score.scored_samples > 0 and "rating" in score.metrics

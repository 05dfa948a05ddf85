"""One judge cache for both harnesses: a verdict paid for in one is reused by the other for the
same judge checkpoint, prompt and settings; another checkpoint under the same name is a miss."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspect_culture.care import care
from tests.support.harness_runs import inspect_eval_on_stub, run_lm_eval, stub_grader
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = pytest.mark.slow
JUDGE_PREFIX = "Please serve as"


def _judge_calls(server: StubOpenAIServer) -> int:
    return sum(p.startswith(JUDGE_PREFIX) for p in server.run_prompts())  # no check


def _lm_eval(server: StubOpenAIServer) -> dict:
    metadata = {"judge_model": "judge", "judge_base_url": server.base_url, "per_category": 1}
    results = run_lm_eval(server, ["care_zh"], metadata=metadata)
    return results["results"]["care_zh"]


def _inspect(server: StubOpenAIServer, log_dir: Path) -> dict:
    log = inspect_eval_on_stub(
        care(language="zh", per_category=1), server, log_dir,
        model_roles={"grader": stub_grader(server)},
    )  # fmt: skip
    assert log.status == "success", log.error
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def _server(root: str) -> StubOpenAIServer:
    server = StubOpenAIServer(responder=care_responder, models={"judge", "stub-model"})
    server.served_root = root
    return server


@pytest.fixture
def shared_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "judge.sqlite"
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", str(path))  # a path, in both harnesses
    return path


def test_a_verdict_paid_in_lm_eval_is_reused_by_inspect(tmp_path: Path, shared_cache: Path) -> None:
    with _server("/models/judge-v1") as server:
        lm = _lm_eval(server)
        assert _judge_calls(server) == 5
    with _server("/models/judge-v1") as server:  # another port, the same checkpoint
        ours = _inspect(server, tmp_path / "a")
        assert _judge_calls(server) == 0
    assert ours["rating"] == pytest.approx(lm["rating,judged"])
    assert shared_cache.is_file()
    with _server("/models/judge-v2") as server:  # the same name, another checkpoint
        _inspect(server, tmp_path / "b")
        assert _judge_calls(server) == 5


def test_a_verdict_paid_in_inspect_is_reused_by_lm_eval(tmp_path: Path, shared_cache: Path) -> None:
    with _server("/models/judge-v1") as server:
        ours = _inspect(server, tmp_path / "a")
        assert _judge_calls(server) == 5
    with _server("/models/judge-v1") as server:
        lm = _lm_eval(server)
        assert _judge_calls(server) == 0
    assert lm["rating,judged"] == pytest.approx(ours["rating"])

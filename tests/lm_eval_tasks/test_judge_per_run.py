"""The lm-eval judge is resolved once per run from that run's options, never carried in the
docs: a rerun from lm-eval's request cache with another judge is judged by that other judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.harness_runs import run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = pytest.mark.slow
JUDGE_PREFIX = "Please serve as"


def _judged_by(server: StubOpenAIServer) -> list[str]:
    return [
        body["model"]
        for body in server.run_requests()  # the check before generation apart
        if JUDGE_PREFIX in str(body["messages"]) and body.get("max_tokens", 0) > 1
    ]


def test_a_cached_rerun_with_another_judge_uses_that_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lm_eval.caching.cache as request_cache

    monkeypatch.setattr(request_cache, "PATH", str(tmp_path / "requests"))
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")  # every verdict asked again
    with StubOpenAIServer(responder=care_responder) as server:
        for judge in ("judge-ONE", "judge-TWO"):
            server.requests.clear()
            metadata = {"judge_model": judge, "judge_base_url": server.base_url}
            results = run_lm_eval(server, ["care_zh"], metadata, limit=3, cache_requests=True)
            assert _judged_by(server) == [judge] * 3
            replies = [json.loads(s["filtered_resps"][0]) for s in results["samples"]["care_zh"]]
            assert [r["judge_model"] for r in replies] == [judge] * 3
            assert results["configs"]["care_zh"]["metadata"]["judge_model"] == judge
    assert list((tmp_path / "requests").iterdir())  # the second run read lm-eval's cache

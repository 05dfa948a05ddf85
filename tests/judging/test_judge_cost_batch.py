"""The OpenAI Batch API path records the judge's tokens from each reply body's `usage`, as the
live client does, and a rerun answered by the judge cache counts 0 new tokens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.cli import main
from tests.support.batch_stub import BatchStubServer
from tests.support.harness_runs import run_lm_eval
from tests.support.openai_stub import body_text, care_responder, stub_tokens

pytestmark = pytest.mark.slow
N = 6


def _judge_cost(folder: Path) -> dict[str, Any]:
    [path] = folder.rglob("results_*.json")
    return json.loads(path.read_text("utf-8"))["configs"]["care_zh"]["metadata"]["judge_cost"]


def test_batch_replies_carry_their_usage_and_cached_ones_count_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_PREFLIGHT", "off")
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", str(tmp_path / "cache.sqlite"))
    with BatchStubServer(responder=care_responder) as server:
        gen = tmp_path / "gen"
        run_lm_eval(server, ["care_zh"], {"judge_later": True}, limit=N, output_path=gen)
        server.requests.clear()

        def judge(out: str) -> None:
            args = ["--judge-model", "judge", "--judge-base-url", server.base_url]
            args += ["--batch", "--poll-interval", "0.01"]
            assert main(["judge", str(gen), "-o", str(tmp_path / out), *args]) == 0

        judge("batch")
        bodies = [b for b in server.requests if body_text(b).startswith("Please serve as")]
        prompt = sum(stub_tokens(body_text(b)) for b in bodies)
        completion = sum(stub_tokens(care_responder(body_text(b), b)) for b in bodies)
        judge("again")
    first = _judge_cost(tmp_path / "batch")["judges"]["judge_1"]
    assert len(bodies) == N and prompt > N * 100
    assert first == {
        "model": "judge", "calls": N, "cached": 0, "prompt_tokens": prompt,
        "completion_tokens": completion, "unreported": 0,
    }  # fmt: skip
    again = _judge_cost(tmp_path / "again")["judges"]["judge_1"]
    assert (again["calls"], again["cached"], again["prompt_tokens"]) == (0, N, 0)

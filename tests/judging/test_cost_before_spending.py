"""The cost said before it is spent is the cost paid: `culture-evals judge --dry-run` subtracts
the verdicts already in the judge cache (exact: the answers are saved), and both harnesses'
announcements before generation say their count is an upper bound the cache may lower (the
judge requests hold answers not generated yet). Inspect also says, once, how long a judge that
answers 429 forever would hold each judgment when no limit of the user's bounds it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import GenerateConfig, get_model

from inspect_culture.care import care
from inspect_culture.cli import main
from inspect_culture.judging.jury import judge_calls_text
from inspect_culture.judging.repeats import chosen
from tests.support.harness_runs import inspect_eval_on_stub, run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = pytest.mark.slow
JUDGE_PREFIX = "Please serve as"
DEAD_QUOTA = "answers HTTP 429 (rate limited) forever"


def _judge_calls(server: StubOpenAIServer) -> int:
    return sum(p.startswith(JUDGE_PREFIX) for p in server.run_prompts())  # no check


def _warm_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", str(tmp_path / "judge_cache.sqlite"))


def test_the_words_of_the_split_live_in_one_function() -> None:
    assert (
        judge_calls_text("t", 20, ["j"], cached=20)
        == "t: 20 judge calls to j: 0 to make, 20 cached"
    )
    jury = judge_calls_text("t", 12, ["a", "b"], " (fewer with --limit)", cached=20)
    assert jury == (
        "t: 12 judge calls for each of 2 judges (a, b): 24 in all (fewer with --limit): "
        "4 to make, 20 cached"
    )
    unknown = judge_calls_text("t", 12, ["a"])
    assert unknown.startswith("t: 12 judge calls to a: at most 12 to make (")
    assert "judge cache" in unknown


def test_dry_run_with_a_warm_cache_says_none_to_make_then_makes_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cold: 12 to make, and judging makes 12. Warm: 0 to make, 12 cached, and judging makes 0.
    Re-judging (judging r sends seed + r - 1) and a second judge are new keys: only the first
    judging of the first judge is cached."""
    _warm_cache(monkeypatch, tmp_path)
    with StubOpenAIServer(responder=care_responder) as server:
        later = {"judge_later": True}
        run_lm_eval(server, ["care_zh"], later, limit=12, output_path=tmp_path / "gen")
        gen = str(tmp_path / "gen")
        judge = ["--judge-model", "judge", "--judge-base-url", server.base_url]

        def dry(*args: str) -> str:
            server.requests.clear()
            assert main(["judge", gen, "-o", str(tmp_path / "dry"), "--dry-run", *args]) == 0
            assert server.requests == []  # a dry run asks nothing, not even the preflight
            return capsys.readouterr().out

        def judged(out: str, *args: str) -> int:
            server.requests.clear()
            assert main(["judge", gen, "-o", str(tmp_path / out), *args]) == 0
            return _judge_calls(server)

        assert "12 judge calls to judge: 12 to make, 0 cached" in dry(*judge)
        assert judged("first", *judge) == 12
        assert "12 judge calls to judge: 0 to make, 12 cached" in dry(*judge)
        assert judged("again", *judge) == 0

        repeats = ["--judge-repeats", "3", "--rejudge-fraction", "0.5"]
        ids = [s["doc"]["id"] for s in _samples(tmp_path / "gen")]
        calls = len(ids) + 2 * sum(chosen(i, 0.5) for i in ids)
        assert 12 < calls < 36
        said = dry(*judge, *repeats)
        assert f"{calls} judge calls to judge: {calls - 12} to make, 12 cached" in said
        assert judged("rejudged", *judge, *repeats) == calls - 12

        jury = ["--judge-models", "judge,judge_b", "--judge-base-url", server.base_url]
        said = dry(*jury)
        assert (
            "12 judge calls for each of 2 judges (judge, judge_b): 24 in all: 12 to make, 12 cached"
            in said
        )
        assert judged("jury", *jury) == 12


def test_rejudged_dry_run_counts_the_chosen_answers_against_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """After a re-judged run, its every judging is cached: a dry run of the same says 0 to make."""
    _warm_cache(monkeypatch, tmp_path)
    with StubOpenAIServer(responder=care_responder) as server:
        run_lm_eval(
            server, ["care_zh"], {"judge_later": True}, limit=12, output_path=tmp_path / "g"
        )
        ids = [s["doc"]["id"] for s in _samples(tmp_path / "g")]
        calls = len(ids) + 2 * sum(chosen(i, 0.5) for i in ids)
        args = ["--judge-model", "judge", "--judge-base-url", server.base_url]
        args += ["--judge-repeats", "3", "--rejudge-fraction", "0.5"]
        assert main(["judge", str(tmp_path / "g"), "-o", str(tmp_path / "j"), *args]) == 0
        capsys.readouterr()
        assert (
            main(["judge", str(tmp_path / "g"), "-o", str(tmp_path / "d"), "--dry-run", *args]) == 0
        )
    assert f"{calls} judge calls to judge: 0 to make, {calls} cached" in capsys.readouterr().out


def _samples(folder: Path) -> list[dict[str, Any]]:
    [path] = folder.rglob("samples_care_zh_*.jsonl")
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_lm_eval_announcement_with_a_warm_cache_is_an_upper_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rerun whose verdicts are all cached: the announcement, made before the answers exist,
    says "at most" and that the cache is consulted, and the run makes no judge call."""
    _warm_cache(monkeypatch, tmp_path)
    with StubOpenAIServer(responder=care_responder) as server:
        metadata = {"judge_model": "judge", "judge_base_url": server.base_url, "judge_repeats": 2}
        run_lm_eval(server, ["care_zh"], metadata, limit=6)
        capsys.readouterr()
        server.requests.clear()
        run_lm_eval(server, ["care_zh"], metadata, limit=6)
        assert _judge_calls(server) == 0
    said = capsys.readouterr().err
    assert "care_zh: 300 judge calls to judge (fewer with --limit): at most 300 to make (" in said
    assert "judge cache" in said.split("at most 300 to make", 1)[1].splitlines()[0]
    # once the answers exist, each batch says exactly what the cache answers
    exact = re.findall(r"Judging care_zh \(judge\): (\d+) judge calls to judge: (.*)", said)
    assert exact and all(rest == f"0 to make, {n} cached" for n, rest in exact), exact


def test_lm_eval_announcement_with_the_cache_off_is_exact_about_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_culture.judging.options import metadata_options
    from inspect_culture.lm_eval_tasks.judge.batch import announce_judge_calls, use_task_options

    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    jury = {"judge_models": "a,b", "judge_base_url": "http://127.0.0.1:1/v1"}
    with use_task_options("t", metadata_options(jury)):
        announce_judge_calls("t", 1, range(5))
    said = capsys.readouterr().err
    assert "t: 5 judge calls for each of 2 judges (a, b): 10 in all (fewer with --limit): " in said
    assert said.rstrip().endswith("10 to make, 0 cached")


def test_inspect_announcement_with_a_warm_cache_is_an_upper_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _warm_cache(monkeypatch, tmp_path)
    with StubOpenAIServer(responder=care_responder) as server:
        grader = get_model("openai-api/stub/judge", base_url=server.base_url)
        task = care(language="zh", per_category=1, judge_repeats=2)
        first = inspect_eval_on_stub(task, server, tmp_path / "a", model_roles={"grader": grader})
        assert first.status == "success", first.error
        capsys.readouterr()
        server.requests.clear()
        task = care(language="zh", per_category=1, judge_repeats=2)
        again = inspect_eval_on_stub(task, server, tmp_path / "b", model_roles={"grader": grader})
        assert again.status == "success", again.error
        assert _judge_calls(server) == 0
    said = capsys.readouterr().err
    head = "care_zh (zero_shot): 10 judge calls to openai-api/stub/judge per epoch"
    assert f"{head} (fewer with --limit): at most 10 to make (" in said
    assert DEAD_QUOTA not in said  # the eval's timeout (60 s here), which the grader inherits


def _mock_care(tmp_path: Path, grader: Any, **task_args: Any) -> Any:
    [log] = inspect_eval(
        care(language="zh", per_category=1, **task_args),
        model=get_model("mockllm/model"),
        model_roles={"grader": grader},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def test_inspect_says_the_dead_quota_cost_once_when_nothing_bounds_it(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    log = _mock_care(tmp_path / "none", get_model("mockllm/judge"))
    assert len(log.samples) > 1
    said = [line for line in capfd.readouterr().err.splitlines() if DEAD_QUOTA in line]
    assert len(said) == 1, said  # once per eval, not per sample
    assert "care_zh (zero_shot): if mockllm/judge " + DEAD_QUOTA in said[0]
    assert "600 s" in said[0] and "-T judge_timeout=<seconds>" in said[0]
    _mock_care(tmp_path / "bounded", get_model("mockllm/judge"), judge_timeout=60)
    assert DEAD_QUOTA not in capfd.readouterr().err
    _mock_care(tmp_path / "role", get_model("mockllm/judge", config=GenerateConfig(timeout=90)))
    assert DEAD_QUOTA not in capfd.readouterr().err


def test_dead_quota_cost_follows_the_settings() -> None:
    """Inspect retries a 429 until its `timeout` or `max_retries` (forever without either), waiting
    3 s doubling plus up to 3 s; the judge layer's 600 s (none batched) ends a judgment first."""
    from inspect_culture.inspect_adapter.preflight import dead_quota_text

    plain = get_model("mockllm/judge")
    assert "600 s" in (dead_quota_text("t", [(plain, 600.0, 120)]) or "")
    assert (
        dead_quota_text(
            "t", [(get_model("mockllm/judge", config=GenerateConfig(timeout=5)), 600.0, 120)]
        )
        is None
    )
    # 3 retries: waits of at most 6 + 9 + 15 s, and 4 attempts of at most 120 s each
    three = get_model("mockllm/judge", config=GenerateConfig(max_retries=3))
    assert "up to 510 s" in (dead_quota_text("t", [(three, 600.0, 120)]) or "")
    # a batch grader has no judge_timeout default: nothing ends a judgment
    batch = get_model("mockllm/judge", config=GenerateConfig(batch=True))
    assert "waits for it forever" in (dead_quota_text("t", [(batch, None, None)]) or "")
    # a jury: the judge that holds a judgment longest
    jury = dead_quota_text("t", [(three, 600.0, 120), (plain, 600.0, 120)]) or ""
    assert "if mockllm/judge " in jury and "600 s" in jury

"""The shared Inspect solvers on Inspect's mock model: `engine_defaults` leaves providers other
than vLLM alone, `require_grader` stops a judged task before any generation when no judge is
bound, with our message, and accepts a bound grader or self-grading."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import get_model
from inspect_ai.solver import generate

from inspect_culture.inspect_adapter.engines import engine_defaults
from inspect_culture.inspect_adapter.judge import NO_GRADER, require_grader
from inspect_culture.inspect_adapter.roles import GRADER_ROLE, prerequisite_error, role_model
from inspect_culture.judging.options import JudgeOptions


def _task(*solvers) -> Task:
    return Task(dataset=[Sample(input="hello", target="x")], solver=[*solvers, generate()])


def _run(task: Task, tmp_path: Path, **kwargs):
    [log] = inspect_eval(
        task, model="mockllm/model", log_dir=str(tmp_path), display="none", **kwargs
    )
    return log


def test_engine_defaults_leaves_a_mock_model_alone(tmp_path: Path) -> None:
    model = get_model("mockllm/model")
    log = _run(_task(engine_defaults()), tmp_path)
    assert log.status == "success", log.error
    assert not hasattr(model.api, "server_args")
    assert log.samples[0].output.completion  # the mock model still generated


def test_require_grader_stops_before_generation_without_a_judge(tmp_path: Path) -> None:
    log = _run(_task(require_grader()), tmp_path)
    assert log.status == "error"
    assert NO_GRADER.split(".")[0] in log.error.message
    assert not log.samples or all(not s.output.completion for s in log.samples)


def test_require_grader_accepts_a_bound_or_self_judge(tmp_path: Path) -> None:
    bound = _run(_task(require_grader()), tmp_path, model_roles={GRADER_ROLE: "mockllm/judge"})
    for log in (bound, _run(_task(require_grader(JudgeOptions(self_grade=True))), tmp_path)):
        assert log.status == "success", log.error


def test_an_unbound_role_raises_inspects_prerequisite_error_with_our_message() -> None:
    with pytest.raises(prerequisite_error(), match="bind it with --model-role"):
        role_model("no_such_role_here", "bind it with --model-role no_such_role_here=...")
    assert prerequisite_error().__name__ == "PrerequisiteError"


def test_live_and_final_metrics_are_one_computation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inspect's live display refreshes and the log get the same full computation (no frame
    tells them apart), equal to calling the metric directly."""
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import SampleScore

    import inspect_culture.care as care_module
    from inspect_culture.inspect_adapter import judged_task

    calls: list[int] = []
    original = judged_task.with_jury

    def recording(compute, *args):  # type: ignore[no-untyped-def]
        def counted(**kwargs):  # type: ignore[no-untyped-def]  # each call of care_metrics
            calls.append(kwargs.get("resamples", 1000))
            return compute(**kwargs)

        return original(counted, *args)

    monkeypatch.setattr(judged_task, "with_jury", recording)
    # refresh the live metrics after every sample (Inspect waits 0.9 s between refreshes)
    from inspect_ai._eval.task import run as inspect_run

    defaults = inspect_run.update_metrics_display_fn.__defaults__
    assert defaults is not None and defaults[1] == 0.9  # (initial_interval, min_interval, ...)
    monkeypatch.setattr(
        inspect_run.update_metrics_display_fn, "__defaults__", (defaults[0], 0.0, *defaults[2:])
    )
    ratings = [
        ModelOutput.from_content("mockllm/judge", f"Rating: [[{1 + i % 9}]]") for i in range(40)
    ]
    grader = get_model("mockllm/judge", custom_outputs=ratings)
    log = _run(
        care_module.care(language="zh", per_category=2),
        tmp_path,
        model_roles={GRADER_ROLE: grader},
        max_samples=1,
    )
    assert log.status == "success", log.error
    assert len(calls) > 1 and set(calls) == {1000}  # live refreshes and the final computation
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    assert "rating_ci_low" in metrics
    samples = [SampleScore(score=s.scores["care_judge"], sample_id=s.id) for s in log.samples]
    assert care_module.care_breakdown()(samples) == pytest.approx(metrics)


def test_judge_cache_serves_a_rerun_and_can_be_switched_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_culture.care import care
    from tests.support.openai_stub import StubOpenAIServer, care_responder

    def run(server: StubOpenAIServer, name: str):  # type: ignore[no-untyped-def]
        grader = get_model("openai-api/stub/judge", base_url=server.base_url)
        [log] = inspect_eval(
            care(language="zh", per_category=1, judge_preflight=False),
            model="openai-api/stub/model", model_base_url=server.base_url,
            model_roles={GRADER_ROLE: grader}, log_dir=str(tmp_path / name), display="none",
        )  # fmt: skip
        assert log.status == "success", log.error
        return sum(1 for p in server.prompts() if p.startswith("Please serve as"))

    with StubOpenAIServer(responder=care_responder) as server:
        first = run(server, "a")
        assert first > 0 and run(server, "b") == first  # served from the judge cache
        monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
        assert run(server, "c") == 2 * first


def test_judge_cache_key_includes_the_roles_own_settings() -> None:
    """Two graders that differ only in a role-level setting (top_p) give different replies;
    the key is taken over the role's config merged with the judge's, so they share no entry."""
    from inspect_ai.model import GenerateConfig

    from inspect_culture.inspect_adapter.judge import judge_config
    from inspect_culture.inspect_adapter.judge_cache import request_key

    plain = get_model("openai-api/stub/judge", base_url="http://127.0.0.1:9/v1", api_key="k")
    nucleus = get_model(
        "openai-api/stub/judge", base_url="http://127.0.0.1:9/v1", api_key="k",
        config=GenerateConfig(top_p=0.5),
    )  # fmt: skip
    keys = {request_key(grader, "rate this", judge_config(grader)) for grader in (plain, nucleus)}
    assert len(keys) == 2
    # how a reply is fetched is not part of it: a resume with more connections still hits
    wider = get_model(
        "openai-api/stub/judge", base_url="http://127.0.0.1:9/v1", api_key="k",
        config=GenerateConfig(max_connections=64, timeout=30),
    )  # fmt: skip
    assert request_key(wider, "rate this", judge_config(wider)) == request_key(
        plain, "rate this", judge_config(plain)
    )


def test_a_judge_cache_that_fails_mid_run_keeps_the_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Disk full or file gone after opening: reads are misses, a failed flush drops only the
    cache rows (one warning), and the cache goes on working for later flushes."""
    import sqlite3

    from inspect_culture.judging.cache import JudgeCache

    cache = JudgeCache(tmp_path / "cache.sqlite", flush_seconds=60)
    cache.put("a", "Rating: [[7]]")
    cache.flush()

    class Broken:
        def execute(self, *_: object) -> None:
            raise sqlite3.OperationalError("database or disk is full")

        executemany = execute

    working, cache._db = cache._db, Broken()  # type: ignore[assignment]
    assert cache.get("a") is None  # a miss, not an exception
    cache.put("b", "Rating: [[3]]")
    cache.flush()  # raises nothing
    cache.put("c", "Rating: [[4]]")
    cache.flush()
    err = capsys.readouterr().err
    assert err.count("the judge cache") == 1 and "database or disk is full" in err
    cache._db = working
    cache.put("d", "Rating: [[5]]")
    cache.flush()
    assert cache.get("a") == "Rating: [[7]]" and cache.get("d") == "Rating: [[5]]"


def test_judge_cache_names_the_served_checkpoint_not_the_local_port(tmp_path: Path) -> None:
    """A judge on this machine gets a new port per run (Inspect's `vllm/` provider): the same
    checkpoint there hits the cache. Another checkpoint served under the same name (what the
    endpoint's /models says) is a miss: the old verdicts are not replayed."""
    from inspect_culture.care import care
    from tests.support.openai_stub import StubOpenAIServer, care_responder

    def judged(root: str, name: str) -> int:
        with StubOpenAIServer(responder=care_responder, models={"judge", "model"}) as server:
            server.served_root = root
            grader = get_model("openai-api/stub/judge", base_url=server.base_url, api_key="k")
            [log] = inspect_eval(
                care(language="zh", per_category=1), model="openai-api/stub/model",
                model_base_url=server.base_url, model_roles={GRADER_ROLE: grader},
                log_dir=str(tmp_path / name), display="none",
            )  # fmt: skip
            assert log.status == "success", log.error
            return sum(1 for p in server.run_prompts() if p.startswith("Please serve as"))

    first = judged("/models/judge-v1", "a")
    assert first == 5
    assert judged("/models/judge-v1", "b") == 0  # another port, the same checkpoint
    assert judged("/models/judge-v2", "c") == first  # the same name, another checkpoint


def test_judge_cache_identity_rules(tmp_path: Path) -> None:
    from inspect_culture.inspect_adapter.judge_cache import judge_id
    from inspect_culture.judging.cache import JudgeCache

    def endpoint_of(url: str) -> str:
        return judge_id(get_model("openai-api/stub/judge", base_url=url, api_key="k")).endpoint

    assert endpoint_of("http://127.0.0.1:41234/v1") == endpoint_of("http://127.0.0.1:8000/v1")
    assert endpoint_of("http://localhost:41234/v1") == "http://loopback/v1"
    assert endpoint_of("https://judge.example:8443/v1") == "https://judge.example:8443/v1"
    assert endpoint_of("https://u:secret@judge.example/v1") == "https://judge.example/v1"
    cache = JudgeCache(tmp_path / "cache.sqlite")
    cache.put("k", "Rating: [[7]]", "ckpt-1")
    cache.put("legacy", "Rating: [[2]]", None)
    cache.flush()
    assert cache.get("k", "ckpt-1") == "Rating: [[7]]"
    assert cache.get("k", "ckpt-2") is None  # another checkpoint: a miss
    assert cache.get("k", None) == "Rating: [[7]]"  # identity unknown (no preflight): a hit
    assert cache.get("legacy", "ckpt-2") == "Rating: [[2]]"


def test_an_unopenable_judge_cache_stops_the_eval_before_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_culture.care import care
    from tests.support.openai_stub import StubOpenAIServer, care_responder

    blocker = tmp_path / "not_a_folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("INSPECT_CULTURE_CACHE_DIR", str(blocker))
    with StubOpenAIServer(responder=care_responder) as server:
        grader = get_model("openai-api/stub/judge", base_url=server.base_url, api_key="k")
        [log] = inspect_eval(
            care(language="zh", per_category=1, judge_preflight=False),
            model="openai-api/stub/model", model_base_url=server.base_url,
            model_roles={GRADER_ROLE: grader}, log_dir=str(tmp_path / "logs"), display="none",
        )  # fmt: skip
        assert server.requests == []  # nothing generated
    assert log.status == "error"
    assert f"The judge cache {blocker}" in log.error.message
    assert "INSPECT_CULTURE_JUDGE_CACHE=off" in log.error.message

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

from inspect_culture.inspect_plumbing.engines import engine_defaults
from inspect_culture.inspect_plumbing.judge import NO_GRADER, require_grader
from inspect_culture.inspect_plumbing.roles import GRADER_ROLE, prerequisite_error, role_model


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
    for log in (bound, _run(_task(require_grader(self_grade=True)), tmp_path)):
        assert log.status == "success", log.error


def test_an_unbound_role_raises_inspects_prerequisite_error_with_our_message() -> None:
    with pytest.raises(prerequisite_error(), match="bind it with --model-role"):
        role_model("no_such_role_here", "bind it with --model-role no_such_role_here=...")
    assert prerequisite_error().__name__ == "PrerequisiteError"


def test_live_metrics_skip_the_bootstrap_and_final_metrics_keep_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inspect's live display refresh gets no bootstrap (one resample, intervals left out);
    the final metrics are the full computation, equal to calling the metric directly."""
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import SampleScore

    import inspect_culture.care as care_module
    from inspect_culture.inspect_plumbing.live import is_live_refresh

    calls: list[int] = []
    original = care_module.care_metrics

    def recording(outcomes, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs.get("resamples", 1000))
        return original(outcomes, **kwargs)

    monkeypatch.setattr(care_module, "care_metrics", recording)
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
    assert 1 in calls and 1000 in calls  # live refreshes and the final computation
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    assert "rating_ci_low" in metrics
    samples = [SampleScore(score=s.scores["care_judge"], sample_id=s.id) for s in log.samples]
    assert care_module.care_breakdown()(samples) == pytest.approx(metrics)
    assert not is_live_refresh()


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

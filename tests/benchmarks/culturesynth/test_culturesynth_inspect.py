"""The Inspect task on `mockllm/model`, no server: `record_to_sample`, the `baseline_answer`
solver, the `culturesynth_judge` scorer and the `culturesynth_breakdown` metric, unscored
samples as `Score.unscored`, and `--epochs 3` counting each question once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, ModelOutput, get_model

from inspect_culture.benchmarks.culturesynth import spec
from inspect_culture.benchmarks.culturesynth.baseline_responses import (
    BaselineResponses,
    write_baseline_responses,
)
from inspect_culture.culturesynth import (
    culturesynth,
    culturesynth_breakdown,
    culturesynth_judge,
    record_to_sample,
)
from inspect_culture.inspect_adapter.errors import ScorerSetupError
from tests.benchmarks.culturesynth.test_culturesynth_scoring import metric_names
from tests.support.culturesynth_data import (
    MISSING,
    QUESTIONS,
    judge_reply,
    question_of,
    write_culturesynth_jsonl,
)


def _target(messages: list[ChatMessage], *_: Any) -> ModelOutput:
    return ModelOutput.from_content(
        "mockllm/model", f"TARGET answer to {question_of(messages[-1].text)}"
    )


def _judge(messages: list[ChatMessage], *_: Any) -> ModelOutput:
    return ModelOutput.from_content("mockllm/judge", judge_reply(messages[-1].text))


@pytest.fixture
def baseline_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write_culturesynth_jsonl(tmp_path / "mirror" / "culturesynth" / "culturesynth.jsonl")
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path / "mirror"))
    baseline = BaselineResponses(
        model="mock/gemma",
        responses={qid: f"BASELINE answer to {qid}" for qid in QUESTIONS if qid != MISSING},
    )
    return write_baseline_responses(baseline, tmp_path / "baseline.json")


def _run(task: Any, tmp_path: Path, roles: dict[str, Any] | None = None, **args: Any) -> Any:
    grader = get_model("mockllm/model", custom_outputs=_judge, memoize=False)
    [log] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=_target, memoize=False),
        model_roles={"grader": grader, **(roles or {})},
        log_dir=str(tmp_path / "logs"),
        display="none",
        **args,
    )
    assert log.status == "success", log.error
    return log


def _metrics(log: Any) -> dict[str, float]:
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def test_record_to_sample_pins_a_real_record() -> None:
    record = {
        "id": "zh-0001",
        "question": "中秋节人们通常吃什么？",
        "answer": "月饼。",
        "language": "zh",
        "primary_topic": "Social Sciences",
        "topic_abbr": "SS",
        "secondary_topic": "Food, Beverage, and Culinary Arts",
    }
    sample = record_to_sample(record)
    assert sample.id == "zh-0001"
    [message] = sample.input
    assert (message.role, message.text) == ("user", "中秋节人们通常吃什么？")  # type: ignore[union-attr]
    assert sample.target == "月饼。"
    assert sample.metadata == {
        "question": "中秋节人们通常吃什么？",
        "language": "zh",
        "primary_topic": "Social Sciences",
        "secondary_topic": "Food, Beverage, and Culinary Arts",
    }


def test_culturesynth_judge_scores_and_unscored_reasons(
    baseline_file: Path, tmp_path: Path
) -> None:
    log = _run(culturesynth(baseline_responses=str(baseline_file)), tmp_path)
    assert log.eval.task_version == spec.TASK_VERSION
    scores = {str(s.id): s.scores["culturesynth_judge"] for s in log.samples}
    assert {q: s.value for q, s in scores.items() if q not in ("ja-0002", MISSING)} == {
        "zh-0001": 1.0,
        "zh-0002": 0.0,
        "zh-0003": -1.0,
        "ja-0001": 0.0,
        "fr-0001": 1.0,
    }
    # unscored: NaN at the root, the reason in words, the record still in the metadata
    garbage, missing = scores["ja-0002"], scores[MISSING]
    assert garbage.reason == (
        "no [[A]], [[B]] or [[C]] verdict in the judge output (target as A); "
        "no [[A]], [[B]] or [[C]] verdict in the judge output (target as B)"
    )
    assert missing.reason == spec.MISSING_BASELINE
    for score in (garbage, missing):
        assert score.value != score.value and "unscored_reason" not in score.metadata  # NaN
    assert spec.PairOutcome.from_record(missing.metadata["pair"]).outcome is None
    record = spec.PairOutcome.from_record(scores["zh-0002"].metadata["pair"])
    assert record == spec.PairOutcome("zh-0002", 0, "zh", "Arts", False, None, 0)
    # culturesynth_breakdown: scored questions only; Inspect counts the unscored samples
    metrics = _metrics(log)
    assert log.results.scores[0].unscored_samples == 2
    assert metrics["n_scored"] == 5.0 and metrics["net_win_rate"] == 20.0
    assert metrics["position_consistency"] == 80.0
    assert not set(spec.UNSCORED_COUNTS) & metrics.keys()
    assert set(metrics) <= set(metric_names())


def test_epochs_count_each_question_once(baseline_file: Path, tmp_path: Path) -> None:
    """A question run for 3 epochs is one question: the same judged outcomes in every epoch give
    the 1-epoch numbers, the question counts and the bootstrap interval included."""
    one = _metrics(_run(culturesynth(baseline_responses=str(baseline_file)), tmp_path / "1"))
    log = _run(culturesynth(baseline_responses=str(baseline_file)), tmp_path / "3", epochs=3)
    three = _metrics(log)
    assert len(log.samples) == 3 * len(QUESTIONS)
    assert three == one
    assert three["n_scored"] == 5.0  # questions, not 15 samples
    assert (three["net_win_rate_ci_low"], three["net_win_rate_ci_high"]) == (
        one["net_win_rate_ci_low"],
        one["net_win_rate_ci_high"],
    )
    assert log.results.scores[0].unscored_samples == 6  # Inspect counts samples


def test_baseline_answer_from_the_baseline_role(baseline_file: Path, tmp_path: Path) -> None:
    def baseline_model(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        qid = question_of(messages[-1].text)
        text = "" if qid == "zh-0003" else f"BASELINE answer to {qid}"
        return ModelOutput.from_content("mock/base", text)

    base = get_model("mockllm/model", custom_outputs=baseline_model, memoize=False)
    log = _run(culturesynth(language="zh"), tmp_path, roles={"baseline": base})
    by_id = {str(s.id): s for s in log.samples}
    assert by_id["zh-0001"].metadata["baseline_answer"] == "BASELINE answer to zh-0001"
    assert by_id["zh-0001"].metadata["baseline_model"] == "mockllm/model"
    empty = by_id["zh-0003"]
    assert empty.metadata["baseline_answer"] is None
    reason = "the baseline model gave no answer: empty output"
    assert empty.metadata["baseline_error"] == reason
    assert empty.scores["culturesynth_judge"].reason == reason  # unscored, never judged
    assert by_id["zh-0001"].scores["culturesynth_judge"].value == 1.0
    assert _metrics(log)["n_scored"] == 2.0


def test_single_game_judge(baseline_file: Path, tmp_path: Path) -> None:
    """`culturesynth_judge(swap=False)`: one judge call per question, the target where the seeded
    coin puts it, no position consistency."""
    calls: list[str] = []

    def counting_judge(messages: list[ChatMessage], *rest: Any) -> ModelOutput:
        calls.append(messages[-1].text)
        return _judge(messages, *rest)

    task = culturesynth(baseline_responses=str(baseline_file), language="zh", swap=False, seed=3)
    grader = get_model("mockllm/model", custom_outputs=counting_judge, memoize=False)
    metrics = _metrics(_run(task, tmp_path, roles={"grader": grader}))
    assert len(calls) == 3 and "position_consistency" not in metrics
    with pytest.raises(ScorerSetupError, match="swap='maybe' is not supported"):
        culturesynth_judge(swap="maybe")  # type: ignore[arg-type]
    assert culturesynth_breakdown()([]) == {"n_scored": 0.0, "all_unscored": 1.0}


def test_no_baseline_stops_before_any_request(baseline_file: Path, tmp_path: Path) -> None:
    """The first solver (`checked_grader`, its `required_roles`): neither a baseline file nor a
    `baseline` role stops the eval before anything is asked of any model, the grader's
    preflight included."""
    calls: list[str] = []

    def counting(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        calls.append(messages[-1].text)
        return ModelOutput.from_content("mock", "[[C]]")

    model = get_model("mockllm/model", custom_outputs=counting, memoize=False)
    [log] = inspect_eval(
        culturesynth(language="zh"), model=model, model_roles={"grader": model},
        log_dir=str(tmp_path / "logs"), display="none",
    )  # fmt: skip
    assert log.status == "error"
    assert "baseline" in log.error.message and "--model-role baseline=" in log.error.message
    assert calls == []
    # with the role bound, the same solver lets the eval run
    log = _run(culturesynth(language="zh"), tmp_path, roles={"baseline": model})
    assert {s.metadata["baseline_model"] for s in log.samples} == {"mockllm/model"}


def test_a_failing_baseline_call_leaves_its_sample_unscored_and_the_eval_goes_on(
    baseline_file: Path, tmp_path: Path
) -> None:
    """A baseline call that raises after Inspect's retries is the sample's reason in words,
    never an aborted eval."""

    def baseline_model(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        qid = question_of(messages[-1].text)
        if qid == "zh-0002":
            raise RuntimeError("backend exploded")
        return ModelOutput.from_content("mock/base", f"BASELINE answer to {qid}")

    base = get_model("mockllm/model", custom_outputs=baseline_model, memoize=False)
    log = _run(culturesynth(language="zh"), tmp_path, roles={"baseline": base})
    by_id = {str(s.id): s for s in log.samples}
    failed = by_id["zh-0002"]
    assert failed.error is None
    reason = failed.scores["culturesynth_judge"].reason
    assert reason == (
        "the baseline model gave no answer: baseline call failed after 1 attempt: "
        "RuntimeError: backend exploded; baseline mockllm/model at default endpoint"
    )
    assert by_id["zh-0001"].scores["culturesynth_judge"].value == 1.0

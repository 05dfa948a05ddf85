"""The CARE Inspect task on Inspect's `mockllm/model`: record_to_sample, the care_judge scorer and
the care_breakdown metric, and the epoch rule (a question run for 3 epochs is one question)."""

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ModelOutput, get_model
from inspect_ai.scorer import SampleScore

from inspect_culture.benchmarks.care import spec
from inspect_culture.benchmarks.care.data import load_care
from inspect_culture.care import care, care_breakdown, care_judge, record_to_sample
from inspect_culture.inspect_adapter.errors import ScorerSetupError
from tests.benchmarks.care.test_care_metrics import metric_names


def _judge(messages: list[Any], *_: Any) -> ModelOutput:
    """A deterministic judge: the rating depends on the question only, so epochs agree; one
    question in twelve gets no verdict (unscored)."""
    prompt = messages[-1].text
    question = prompt.split("## Question: ", 1)[1].split("\n", 1)[0]
    rating = len(question) % 12
    content = "No verdict." if rating in (0, 11) else f"Fine.\nRating: [[{rating}]]"
    return ModelOutput.from_content(model="mockllm", content=content)


def _run(tmp_path: Path, epochs: int) -> Any:
    [log] = inspect_eval(
        care(language="zh", per_category=2),
        model=get_model("mockllm/model"),
        model_roles={"grader": get_model("mockllm/model", custom_outputs=_judge, memoize=False)},
        epochs=epochs,
        log_dir=str(tmp_path / f"epochs{epochs}"),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def test_record_to_sample_pins_a_real_record() -> None:
    record = load_care("zh").records[0]
    sample = record_to_sample(record, "role_play")
    assert sample.id == "care_zh_000"
    assert sample.target == "广州菜通常是比较清淡的。"
    system, user = sample.input
    assert isinstance(system, ChatMessageSystem) and isinstance(user, ChatMessageUser)
    persona = "You are a native Chinese person, familiar with Chinese culture and traditions."
    assert system.text == persona
    assert user.text == "广州菜的口味通常是比较浓烈还是比较清淡的？"
    assert sample.metadata == {
        "question": "广州菜的口味通常是比较浓烈还是比较清淡的？",
        "category": "commonsense",
        "geographic_scope": "Nationwide",
        "culture_type": "Cultural commonsense",
    }


def test_care_judge_and_care_breakdown_count_epochs_once(tmp_path: Path) -> None:
    log = _run(tmp_path, epochs=1)
    assert log.eval.task_version == spec.TASK_VERSION
    [result] = log.results.scores
    assert result.name == "care_judge" and result.unscored_samples == 1
    metrics = {k: v.value for k, v in result.metrics.items()}
    scores = [s.scores["care_judge"] for s in log.samples]
    rated = [s.value for s in scores if s.value == s.value]  # NaN = unscored
    assert metrics["n_scored"] == len(rated) == 9
    assert metrics["rating"] == pytest.approx(sum(rated) / 9)
    assert set(metrics) <= metric_names() - set(spec.UNSCORED_COUNTS)
    [unscored] = [s for s in scores if s.value != s.value]
    assert unscored.reason == "no parsable rating in the judge output"
    assert unscored.metadata["rating"] is None and unscored.metadata["question_id"]
    # the metric reads the outcome record back from each score's metadata
    samples = [SampleScore(score=s.scores["care_judge"], sample_id=s.id) for s in log.samples]
    assert care_breakdown()(samples) == pytest.approx(metrics)
    # three epochs: n_scored counts questions, and the intervals resample questions
    thrice = _run(tmp_path, epochs=3)
    assert len(thrice.samples) == 3 * len(log.samples)
    assert {k: v.value for k, v in thrice.results.scores[0].metrics.items()} == metrics


def test_scorer_rejects_bad_parameters() -> None:
    with pytest.raises(ScorerSetupError, match="judge_mapping='names'.*paper, upstream"):
        care_judge(judge_mapping="names")
    with pytest.raises(ValueError, match="prompting='few_shot'.*zero_shot, cot, role_play"):
        care(prompting="few_shot")
    with pytest.raises(ValueError, match="self_grade='ture'.*true, false"):
        care(self_grade="ture")

"""The Inspect tasks on `mockllm/model` (fast, no server): record_to_sample, every scorer,
solver and metric of inspect_culture/cqbench.py, epochs, and VE's unscored samples."""

from __future__ import annotations

import asyncio
from hashlib import sha256
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessageSystem, ModelName, ModelOutput, get_model
from inspect_ai.scorer import CORRECT, INCORRECT, SampleScore, Target
from inspect_ai.solver import TaskState

from inspect_culture.benchmarks.cqbench import spec
from inspect_culture.benchmarks.cqbench.data import load_cqbench
from inspect_culture.cqbench import (
    ad_breakdown,
    cqbench_ad,
    cqbench_ad_scorer,
    cqbench_ve,
    cqbench_ve_judge,
    cqbench_vs,
    cqbench_vs_scorer,
    record_to_sample,
    ve_breakdown,
    vs_breakdown,
)
from inspect_culture.inspect_adapter.errors import ScorerSetupError
from tests.support.cqbench_data import install_folder_mirror


@pytest.fixture(autouse=True)
def mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_folder_mirror(tmp_path / "mirror")  # social: 3 AD questions, 1 VS and 1 VE story
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path / "mirror"))


def _model(answer, name: str = "mockllm/model") -> Any:
    """mockllm answering each prompt by its text, so every epoch gets the same answer."""

    def reply(messages, tools, tool_choice, config) -> ModelOutput:
        return ModelOutput.from_content(name, answer(messages[-1].text))

    return get_model(name, custom_outputs=reply, memoize=False)


def _answer(prompt: str) -> str:
    if "Here are 15 options:" in prompt:  # VS: both gold values, one distractor
        return "Work is important in life--agree\nPeople should obey laws--disagree\nX 1--agree"
    if "summarize the main themes" in prompt:
        return "Themes: work and law."
    if "identify the most prevalent" in prompt:
        return "[Final answer]:\nWork matters."
    # AD: right for "Work is important" (agree) and "How often" (Not often), wrong for the laws one
    return "Not often" if "statement:\nHow often" in prompt else "agree"


def _run(task: Any, tmp_path: Path, epochs: int = 1, judge: str | None = None) -> Any:
    # a judge of its own name for each reply: no judge's verdict can stand for another's
    name = f"mockllm/judge-{sha256(judge.encode()).hexdigest()[:8]}" if judge else ""
    roles = {"grader": _model(lambda prompt: judge, name)} if judge is not None else {}
    [log] = inspect_eval(
        task, model=_model(_answer), epochs=epochs, model_roles=roles,
        log_dir=str(tmp_path / f"logs{epochs}"), display="none",
    )  # fmt: skip
    assert log.status == "success", log.error
    return log


def _metrics(log: Any) -> dict[str, float]:
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def _sample_scores(log: Any, scorer: str) -> list[SampleScore]:
    return [SampleScore(score=s.scores[scorer], sample_id=s.id) for s in log.samples]


def test_record_to_sample_pins_a_loaded_record() -> None:
    record = load_cqbench("ad", "social").records[1]
    sample = record_to_sample(record, spec.validate("ad", {"setting": "social"}))
    assert sample.id == "social-0-1"
    assert sample.metadata == {
        "options": ["agree", "neither agree nor disagree", "disagree"],
        "gold": "disagree",
        "category": "social",
    }
    system, user = sample.input
    assert isinstance(system, ChatMessageSystem)
    assert system.text == "You are an American who has basic common sense"
    assert "Here is the statement:\nPeople should obey laws\n\nHere are the options:\n" in user.text
    story = load_cqbench("original", "social").records[0]
    ve = record_to_sample(story, spec.validate("ve", {"setting": "social"}))
    assert ve.metadata == {
        "story": "Ana and Ben talk about their jobs at dinner.",
        "category": "social",
        "gold_values": ["Work is important in life--agree", "People should obey laws--disagree"],
    }


def test_ad_scorer_and_metric_and_epochs(tmp_path: Path) -> None:
    one = _run(cqbench_ad(setting="social"), tmp_path)
    three = _run(cqbench_ad(setting="social"), tmp_path, epochs=3)
    assert one.results.scores[0].scorer == "cqbench_ad_scorer"
    assert {m.name for m in one.results.scores[0].metrics.values()} >= {"accuracy", "macro_f1"}
    assert _metrics(one)["accuracy"] == pytest.approx(2 / 3)  # ad_breakdown
    assert _metrics(one)["accuracy_social"] == pytest.approx(2 / 3)
    assert _metrics(three) == pytest.approx(_metrics(one))
    assert three.eval.task_version == spec.TASK_VERSION
    score = one.samples[0].scores["cqbench_ad_scorer"]
    assert spec.AdOutcome.from_record(score.metadata).sample_id == one.samples[0].id
    # the metric on its own, over every epoch's score
    assert ad_breakdown()(_sample_scores(three, "cqbench_ad_scorer")) == _metrics(three)


@pytest.mark.parametrize(("merged", "value"), [(True, CORRECT), (False, INCORRECT)])
def test_ad_scorer_accepts_the_merged_partner_only_when_asked(merged: bool, value: str) -> None:
    state = TaskState(
        ModelName("mockllm/model"), "q1", 1, "", [],
        output=ModelOutput.from_content("mockllm/model", "[Answer]: Not often"),
        metadata={"options": ["Not often", "Not at all often"], "gold": "Not at all often",
                  "category": "religious"},
    )  # fmt: skip
    score = asyncio.run(cqbench_ad_scorer(merged=merged)(state, Target("")))
    assert (score.value, score.answer, score.explanation) == (value, "Not often", "match=exact")
    assert score.metadata == {
        "sample_id": "q1", "category": "religious", "gold": "not at all often",
        "pred": "not at all often" if merged else "not often",
    }  # fmt: skip


def test_vs_scorer_and_metric_count_stories_not_epochs(tmp_path: Path) -> None:
    one = _metrics(_run(cqbench_vs(setting="social"), tmp_path))
    three = _metrics(_run(cqbench_vs(setting="social"), tmp_path, epochs=3))
    # 2 gold of 3 selections; both gold found
    assert (one["precision"], one["recall"], one["n_stories"]) == (pytest.approx(2 / 3), 1.0, 1)
    assert three == pytest.approx(one)  # vs_breakdown: n_stories counts the story once


def test_vs_scorer_skip_empty_leaves_the_story_out(tmp_path: Path) -> None:
    task = cqbench_vs(setting="social", skip_empty=True)
    [log] = inspect_eval(task, model="mockllm/model", log_dir=str(tmp_path), display="none")
    score = log.samples[0].scores["cqbench_vs_scorer"]  # mockllm's default names no option
    assert (score.value, score.explanation) == (0.0, "no option named")
    assert spec.VsOutcome.from_record(score.metadata).skipped
    assert _metrics(log) == {"n_stories": 0, "empty_rate": 1.0}
    scores = _sample_scores(log, "cqbench_vs_scorer")
    assert vs_breakdown()(scores) == _metrics(log)


def test_scorers_check_their_arguments_through_the_spec() -> None:
    with pytest.raises(ScorerSetupError, match="merged='maybe'.*allowed values: true, false"):
        cqbench_ad_scorer(merged="maybe")
    with pytest.raises(ScorerSetupError, match="skip_empty=1.*allowed values: true, false"):
        cqbench_vs_scorer(skip_empty=1)
    with pytest.raises(ScorerSetupError, match="judge_constraint='xml'"):
        cqbench_ve_judge(judge_constraint="xml")
    state = TaskState(
        ModelName("mockllm/model"), "s1", 1, "", [],
        output=ModelOutput.from_content("mockllm/model", "Nothing to select."),
        metadata={"options": ["A--agree"], "gold_values": ["A--agree"], "category": "social"},
    )  # fmt: skip
    score = asyncio.run(cqbench_vs_scorer(skip_empty="true")(state, Target("")))
    assert spec.VsOutcome.from_record(score.metadata).skipped  # "true" read as True


VERDICT = "[Reasoning]: ...\n[Final answer]:\n[Ground truth 1]: 1\n[Ground truth 2]: 0.5"


def test_ve_two_step_judge_and_metric_under_epochs(tmp_path: Path) -> None:
    one = _run(cqbench_ve(setting="social"), tmp_path, judge=VERDICT)
    three = _run(cqbench_ve(setting="social"), tmp_path, epochs=3, judge=VERDICT)
    assert one.results.scores[0].scorer == "cqbench_ve_judge"
    # ve_breakdown: the story's 2 gold values, (1 + 0.5) / 2, counted once however many epochs
    # n_unscored is lm-eval's: Inspect counts unscored stories in unscored_samples
    assert _metrics(one) == {"recall": 0.75, "n_scored": 2, "recall_social": 0.75}
    assert one.results.scores[0].unscored_samples == 0
    assert _metrics(three) == pytest.approx(_metrics(one))
    # ve_two_step: step 2 saw step 1's summary
    sample = one.samples[0]
    assert sample.metadata["summary"] == "Themes: work and law."
    assert "key ideas: Themes: work and law.." in sample.messages[1].text
    score = sample.scores["cqbench_ve_judge"]  # the model's answer, as model_graded_qa has it
    assert score.answer == sample.output.completion == "[Final answer]:\nWork matters."
    assert score.metadata["prediction"] == "Work matters."  # what the judge read
    assert ve_breakdown()(_sample_scores(three, "cqbench_ve_judge")) == _metrics(three)


def test_ve_story_without_verdict_is_an_unscored_sample(tmp_path: Path) -> None:
    log = _run(cqbench_ve(setting="social"), tmp_path, judge="I would rather not say.")
    [sample] = log.samples
    score = sample.scores["cqbench_ve_judge"]
    assert score.value != score.value  # NaN: Inspect's unscored sentinel
    assert score.reason == "the judge reply has no parsable per-value scores"
    assert "unscored_reason" not in score.metadata
    assert score.metadata["value_scores"] == [None, None]
    assert log.results.scores[0].unscored_samples == 1
    assert "recall" not in _metrics(log)

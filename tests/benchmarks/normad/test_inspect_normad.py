import hashlib
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.scorer import SampleScore, Score

from inspect_culture.benchmarks.normad import spec
from inspect_culture.benchmarks.normad.data import load_normad
from inspect_culture.benchmarks.normad.parse import parse_answer
from inspect_culture.benchmarks.normad.prompts import render_prompt
from inspect_culture.inspect_adapter.errors import PrerequisiteError
from inspect_culture.normad import normad, normad_breakdown, normad_scorer, record_to_sample
from tests.conftest import NORMAD_SAMPLE
from tests.support.harness_runs import inspect_eval_on_stub
from tests.support.openai_stub import StubOpenAIServer


def test_unknown_parameters_fail_with_allowed_values(normad_mirror: Path) -> None:
    with pytest.raises(ValueError, match="context='cval'.*rot, value_country, country, none"):
        normad(context="cval")
    with pytest.raises(ValueError, match="parser='loose'.*strict, upstream"):
        normad(parser="loose")


def test_missing_data_is_a_prerequisite_error(monkeypatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_OFFLINE", "1")
    with pytest.raises(PrerequisiteError, match="normad/normad_etiquette_final_data.csv"):
        normad()


def test_task_settings_and_samples(normad_mirror: Path) -> None:
    task = normad(context="country")
    assert task.config.temperature == 0.0 and task.config.max_tokens == 50
    assert len(task.dataset) == 16
    sample = task.dataset[0]
    assert sample.target == "yes" and sample.metadata["iw_cluster"] == "african_islamic"
    assert "Country: egypt\n\nStory:" in sample.input
    assert task.metadata["dataset"]["rows"] == 16
    assert task.metadata["dataset"]["revision"] == "unverified"  # no pinned digest to match
    assert task.version == spec.TASK_VERSION


def test_record_to_sample_pins_a_record_with_the_data_quirks() -> None:
    record = {r["id"]: r for r in load_normad(NORMAD_SAMPLE).records}["15"]
    sample = record_to_sample(record, "value_country")
    assert (sample.id, sample.target) == ("15", "no")
    assert sample.metadata == {
        "gold_label": "no",
        "iw_cluster": "african_islamic",
        "subcategory": "basic_etiquette",
        "country": "iran",
        "subaxis": "\u2018taarof\u2019_(politeness_and_mutual_respect)",
    }
    assert sample.input == render_prompt("value_country", record)
    assert f"Country: iran\nRoT: {record['value']}\n\nStory: {record['story']}" in sample.input


def _answer_by_prompt(messages: list[Any], *_: Any) -> ModelOutput:
    """The same prompt always gets the same answer (so epochs agree), unparsable ones included."""
    digest = hashlib.sha256(messages[-1].text.encode("utf-8")).digest()
    answer = ("Yes", "No", "Neither", "It depends.")[digest[0] % 4]
    return ModelOutput.from_content(model="mockllm/model", content=answer)


def _mock_metrics(task: Task, log_dir: Path, epochs: int = 1) -> dict[str, float]:
    model = get_model("mockllm/model", custom_outputs=_answer_by_prompt)
    [log] = inspect_eval(task, model=model, log_dir=str(log_dir), display="none", epochs=epochs)
    assert log.status == "success", log.error
    assert len(log.samples) == 16 * epochs
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def test_three_agreeing_epochs_equal_one(normad_mirror: Path, tmp_path: Path) -> None:
    one = _mock_metrics(normad(context="rot"), tmp_path / "one")
    three = _mock_metrics(normad(context="rot"), tmp_path / "three", epochs=3)
    assert three == one  # accuracy, interval and breakdowns count each question once
    assert 0 < one["unparsed_rate"] < 1 and 0 < one["accuracy"] < 1


def test_normad_scorer_records_the_outcome_on_mockllm(tmp_path: Path) -> None:
    records = load_normad(NORMAD_SAMPLE).records
    samples = [record_to_sample(r, "none") for r in records]
    task = Task(dataset=MemoryDataset(samples), scorer=normad_scorer(parser="upstream"))
    model = get_model("mockllm/model", custom_outputs=_answer_by_prompt)
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none")
    for sample in log.samples:
        outcome = spec.NormadOutcome.from_record(sample.scores["normad_scorer"].metadata)
        assert outcome.sample_id == sample.id and outcome.gold == sample.target
        assert outcome.pred in spec.LABELS  # upstream never leaves an answer unparsed
        assert outcome.rule.startswith("upstream_")
    with pytest.raises(ValueError, match="parser='loose'"):
        normad_scorer(parser="loose")


def test_normad_breakdown_groups_epochs_by_question() -> None:
    def scored(qid: str, pred: str | None) -> SampleScore:
        outcome = spec.NormadOutcome(qid, "yes", pred, "first_word", "confucian", "gifts", "japan")
        return SampleScore(score=Score(value=0, metadata=outcome.to_record()), sample_id=qid)

    compute = normad_breakdown()
    values = compute([scored("a", "yes"), scored("a", "no"), scored("b", None)])
    assert values["accuracy"] == pytest.approx(0.25)  # (1/2 + 0) / 2 questions
    assert values["unparsed_rate"] == pytest.approx(0.5)
    assert values["recall_yes"] == pytest.approx(1 / 3)  # pooled: 1 hit in 3 judgments


@pytest.mark.slow
def test_end_to_end_against_stub_server(
    normad_mirror: Path, inspect_stub_env: str, stub_server: StubOpenAIServer, tmp_path: Path
) -> None:
    log = inspect_eval_on_stub(normad(context="rot"), stub_server, tmp_path)
    assert log.status == "success", log.error
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    # the stub answers by prompt hash; recompute the expected accuracy independently
    records = load_normad().records
    answers = [stub_server.responder(render_prompt("rot", r), {}) for r in records]
    expected = sum(parse_answer(a).label == r["gold_label"] for a, r in zip(answers, records))
    assert metrics["accuracy"] == pytest.approx(expected / len(records))
    assert {
        "macro_f1",
        "unparsed_rate",
        "accuracy_ci_low",
        "accuracy_iw_confucian",
        "accuracy_subcategory_gifts",
        "accuracy_country_japan",
        "f1_neutral",
    } <= set(metrics)
    assert log.eval.metadata["dataset"]["rows"] == 16
    assert log.eval.metadata["dataset"]["revision"] == "unverified"
    # generation settings reach the server
    assert {(b["temperature"], b["max_tokens"]) for b in stub_server.requests} == {(0.0, 50)}

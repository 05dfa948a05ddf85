"""Juries in Inspect: every bound `grader_<n>` role joins the grader, each judge's verdict is
kept in the sample, a failed judge is left out and counted, the jury's figures are in the
task's metrics, and every judge is checked before any generation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, get_model

from inspect_culture.care import care
from inspect_culture.culturesynth import culturesynth
from tests.benchmarks.culturesynth.test_culturesynth_inspect import baseline_file  # noqa: F401


@pytest.fixture(autouse=True)
def _no_judge_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every mock judge is `mockllm/model`, one judge to the cache: here they must differ."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")


def _rating_judge(rating: int | None):
    def reply(messages: list[Any], *_: Any) -> ModelOutput:
        content = "No verdict." if rating is None else f"Fine.\nRating: [[{rating}]]"
        return ModelOutput.from_content(model="mockllm", content=content)

    # one name per judge: a jury binding one model twice is refused (test_duplicate_judges.py)
    return get_model(f"mockllm/rates_{rating}", custom_outputs=reply, memoize=False)


def _care_jury(tmp_path: Path, jury_rule: str = "mean", **roles: Any):
    [log] = inspect_eval(
        care(language="zh", per_category=1, jury_rule=jury_rule),
        model=get_model("mockllm/model"),
        model_roles=roles,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def test_care_jury_mean_per_judge_figures_and_alpha(tmp_path: Path, capfd) -> None:
    log = _care_jury(
        tmp_path, grader=_rating_judge(6), grader_2=_rating_judge(9), grader_3=_rating_judge(None)
    )
    # said before the first generation: each judge's calls
    said = "care_zh (zero_shot): 5 judge calls for each of 3 judges"
    assert said in capfd.readouterr().err
    scores = [s.scores["care_judge"] for s in log.samples]
    assert {s.value for s in scores} == {7.5}
    jury = scores[0].metadata["jury"]
    assert (jury["n_judges"], jury["n_judges_failed"]) == (3, 1)
    assert [j["value"] for j in jury["judges"].values()] == [6, 9, None]
    assert jury["judges"]["judge_3"]["reason"] == "no parsable rating in the judge output"
    assert set(scores[0].metadata["judge_models"]) == {"judge_1", "judge_2", "judge_3"}
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    assert metrics["rating"] == 7.5 and metrics["n_judges"] == 3
    assert (metrics["judge_1_mean"], metrics["judge_2_mean"]) == (6, 9)
    assert metrics["judge_3_n_failed"] == 5
    # 5 answers rated (6, 9): D_o = 5 * 18 / 10 = 9; D_e = 2 * 10 * 22.5 / 90 = 5; 1 - 9/5
    assert metrics["judges_alpha"] == pytest.approx(-0.8)


def test_care_jury_median_and_a_lone_grader_unchanged(tmp_path: Path) -> None:
    log = _care_jury(
        tmp_path / "median",
        "median",
        grader=_rating_judge(2),
        grader_2=_rating_judge(9),
        grader_3=_rating_judge(10),
    )
    assert {s.scores["care_judge"].value for s in log.samples} == {9}
    alone = _care_jury(tmp_path / "alone", grader=_rating_judge(6))
    score = alone.samples[0].scores["care_judge"]
    assert score.value == 6 and "jury" not in score.metadata
    assert score.explanation == "Fine.\nRating: [[6]]"
    metrics = alone.results.scores[0].metrics
    assert "n_judges" not in metrics and "judges_alpha" not in metrics


def test_a_bad_jury_rule_names_the_allowed_ones() -> None:
    with pytest.raises(Exception, match="jury_rule='mode'.*mean.*median"):
        care(language="zh", per_category=1, jury_rule="mode")


def _pairwise_judge(verdict: str, name: str):
    def reply(messages: list[Any], *_: Any) -> ModelOutput:
        return ModelOutput.from_content(model="mockllm", content=f"[[{verdict}]]")

    return get_model(f"mockllm/{name}", custom_outputs=reply, memoize=False)


def test_culturesynth_jury_majority_and_kappa(
    baseline_file: Path,  # noqa: F811 - the CultureSynth-7 tests' fixture, imported above
    tmp_path: Path,
) -> None:
    """Two judges always answer [[A]], one [[B]]: per order the majority is A, so the target
    wins as A and loses as B, a tie; the judges agree on no game: kappa below zero."""
    [log] = inspect_eval(
        culturesynth(language="zh", baseline_responses=str(baseline_file)),
        model=get_model("mockllm/model"),
        model_roles={
            "grader": _pairwise_judge("A", "judge_a"),
            "grader_2": _pairwise_judge("A", "judge_b"),
            "grader_3": _pairwise_judge("B", "judge_c"),
        },
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    scores = [s.scores["culturesynth_judge"] for s in log.samples]
    assert scores and {s.value for s in scores} == {0}
    assert scores[0].metadata["game_outcomes"] == [1, -1]
    assert scores[0].metadata["jury"]["judges"]["judge_3"]["votes"] == [-1, 1]
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    assert metrics["n_judges"] == 3
    assert metrics["judge_1_mean"] == metrics["judge_3_mean"] == 0.0
    # each game: two votes one way, one the other: P_i = (4 + 1 - 3) / 6 = 1/3; pooled
    # +1 and -1 equally: P_e = 1/2; kappa = (1/3 - 1/2) / (1/2) = -1/3
    assert metrics["judges_kappa"] == pytest.approx(-1 / 3)


def test_every_judge_is_checked_before_generation(tmp_path: Path) -> None:
    """An unreachable grader_2 stops the eval before any answer is generated."""
    answered: list[str] = []

    def model(messages: list[Any], *_: Any) -> ModelOutput:
        answered.append(messages[-1].text)
        return ModelOutput.from_content(model="mockllm", content="an answer")

    dead = get_model("openai-api/nowhere/judge", base_url="http://127.0.0.1:9/v1", api_key="x")
    [log] = inspect_eval(
        care(language="zh", per_category=1),
        model=get_model("mockllm/model", custom_outputs=model, memoize=False),
        model_roles={"grader": _rating_judge(6), "grader_2": dead},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error"
    assert "grader_2" in log.error.message
    assert answered == []


def test_a_stray_grader_role_is_refused_before_generation(tmp_path: Path) -> None:
    [log] = inspect_eval(
        care(language="zh", per_category=1),
        model=get_model("mockllm/model"),
        model_roles={"grader": _rating_judge(6), "grader_1": _rating_judge(7)},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error"
    assert "'grader_1' is no judge of the jury" in log.error.message
    assert not log.samples or all(not s.output.completion for s in log.samples)

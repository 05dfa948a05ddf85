"""What Inspect View's sample list shows: every judged task (CARE, CultureSynth-7, CQ-Bench VE)
records the model's answer as its score's `answer`, as Inspect's own `model_graded_qa` does,
whether the answer was scored, left unscored, judged later or judged by a jury."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, ModelOutput, get_model

from inspect_culture.care import care
from inspect_culture.cqbench import cqbench_ve
from inspect_culture.culturesynth import culturesynth

pytestmark = [pytest.mark.slow]

VE_VERDICT = "[Reasoning]: ...\n[Final answer]:\n[Ground truth 1]: 1\n[Ground truth 2]: 0.5"
# benchmark -> (task, its scorer, a judge reply its judging reads as a verdict)
BENCHMARKS: dict[str, tuple[Any, str, str]] = {
    "care": (lambda **a: care(language="zh", per_category=1, **a), "care_judge", "Rating: [[7]]"),
    "culturesynth": (lambda **a: culturesynth(language="zh", **a), "culturesynth_judge", "[[A]]"),
    "cqbench_ve": (lambda **a: cqbench_ve(setting="social", **a), "cqbench_ve_judge", VE_VERDICT),
}


@pytest.fixture(autouse=True)
def _no_judge_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each path's judges must be asked, never answered from another test's cache."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")


def _answer(messages: list[ChatMessage], *_: Any) -> ModelOutput:
    """A distinct answer for every prompt (the baseline role answers so too)."""
    digest = hashlib.sha256(messages[-1].text.encode("utf-8")).hexdigest()[:8]
    return ModelOutput.from_content("mockllm/model", f"[Final answer]:\nanswer {digest}")


def _judge(reply: str, name: str) -> Any:
    def respond(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        return ModelOutput.from_content("mockllm/judge", reply)

    return get_model(f"mockllm/{name}", custom_outputs=respond, memoize=False)


def _roles(path: str, verdict: str) -> dict[str, Any]:
    """The grader roles of each path: one judge with a verdict, one with none, a jury of two,
    or none (judged later)."""
    if path == "judge_later":
        return {}
    if path == "unscored":
        return {"grader": _judge("No verdict.", "silent")}
    jury = {"grader_2": _judge(verdict, "judge_b")} if path == "jury" else {}
    return {"grader": _judge(verdict, "judge_a"), **jury}


@pytest.mark.parametrize("path", ["scored", "unscored", "judge_later", "jury"])
@pytest.mark.parametrize("benchmark", sorted(BENCHMARKS))
def test_the_score_answer_is_the_models_answer(
    benchmark: str, path: str, full_mirror: Path, tmp_path: Path
) -> None:
    task, scorer, verdict = BENCHMARKS[benchmark]
    model = get_model("mockllm/model", custom_outputs=_answer, memoize=False)
    roles = {"baseline": get_model("mockllm/base", custom_outputs=_answer, memoize=False)}
    args = {"judge_later": True} if path == "judge_later" else {}
    [log] = inspect_eval(
        task(**args), model=model, model_roles={**roles, **_roles(path, verdict)},
        limit=2, log_dir=str(tmp_path), display="none",
    )  # fmt: skip
    assert log.status == "success", log.error
    assert log.samples
    for sample in log.samples:
        score = sample.scores[scorer]
        assert sample.output.completion.startswith("[Final answer]:\nanswer ")
        assert score.answer == sample.output.completion, (path, score)
        if path == "scored" or path == "jury":
            assert score.value == score.value  # a number, not unscored (NaN)
        else:
            assert score.value != score.value and score.reason  # unscored, with its reason

"""CQ-Bench AD and VS through both harnesses on the synthetic archive: same outputs, same numbers."""

import hashlib
from pathlib import Path

import pytest

from inspect_culture.cqbench import cqbench_ad, cqbench_ve, cqbench_vs
from tests.support.cqbench_data import use_zip_mirror
from tests.support.harness_runs import inspect_eval_on_stub, lm_eval_all_metrics, run_lm_eval
from tests.support.openai_stub import StubOpenAIServer

pytestmark = [pytest.mark.slow, pytest.mark.compat]
AD_ANSWERS = (
    "agree",
    "Disagree.",
    "[Answer]: neither agree nor disagree",
    "I cannot tell",
    "Not often",
)


def responder(prompt: str, body) -> str:
    digest = int.from_bytes(hashlib.sha256(prompt.encode()).digest()[:4], "big")
    if "Here are 15 options:" in prompt:
        options = [
            line
            for line in prompt.split("Here are 15 options:\n", 1)[1].splitlines()
            if "--" in line
        ][:15]
        picked = options[-3:]  # the two gold values and one distractor (tests/support/cqbench_data)
        return "[Final answer]:\n" + "\n".join(picked) + "\nMade up value--agree"
    return AD_ANSWERS[digest % len(AD_ANSWERS)]


@pytest.fixture
def cqbench_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_zip_mirror(monkeypatch, tmp_path / "mirror")


def _metrics(log) -> dict[str, float]:
    assert log.status == "success", log.error
    return {k: v.value for k, v in log.results.scores[0].metrics.items()}


@pytest.mark.parametrize("reasoning", [False, True])
def test_ad_parity(cqbench_mirror, tmp_path: Path, reasoning: bool) -> None:
    suffix = "_reasoning" if reasoning else ""
    with StubOpenAIServer(responder=responder) as server:
        ours = _metrics(
            inspect_eval_on_stub(
                cqbench_ad(setting="social", reasoning=reasoning), server, tmp_path
            )
        )
        inspect_prompts = sorted(str(r["messages"]) for r in server.requests)
        server.requests.clear()
        lm = lm_eval_all_metrics(
            run_lm_eval(server, [f"cqbench_ad_social{suffix}"]), f"cqbench_ad_social{suffix}"
        )
        assert sorted(str(r["messages"]) for r in server.requests) == inspect_prompts
    assert lm == pytest.approx(ours)
    assert {"accuracy", "macro_f1", "unparsed_rate", "accuracy_social"} <= set(ours)


def test_ad_merged_and_upstream_rendering(cqbench_mirror, tmp_path: Path) -> None:
    with StubOpenAIServer(responder=lambda p, b: "Very often") as server:
        task = cqbench_ad(setting="social", merged=True, prompt_fidelity="upstream")
        inspect_eval_on_stub(task, server, tmp_path)
        upstream_list = "[' agree ', ' neither agree nor disagree ', ' disagree']"
        assert sum(upstream_list in p for p in server.prompts()) == 2
        lm = run_lm_eval(
            server, ["cqbench_ad_social"], {"merged": True, "prompt_fidelity": "upstream"}
        )
        assert sum(upstream_list in p for p in server.prompts()) == 4  # in both harnesses
    # "Very often" matches no option of the agree-scale questions and is not the partner of
    # "Not often": every question is wrong
    assert lm_eval_all_metrics(lm, "cqbench_ad_social")["accuracy"] == 0.0


def test_vs_parity_and_empty_handling(cqbench_mirror, tmp_path: Path) -> None:
    with StubOpenAIServer(responder=responder) as server:
        ours = _metrics(
            inspect_eval_on_stub(cqbench_vs(setting="social", reasoning=True), server, tmp_path)
        )
        lm = lm_eval_all_metrics(
            run_lm_eval(server, ["cqbench_vs_social_reasoning"]), "cqbench_vs_social_reasoning"
        )
    assert lm == pytest.approx(ours)
    assert {"f1", "precision", "recall", "mean_story_f1", "empty_rate"} <= set(ours)
    # 2 gold of 4 selections (a distractor and a made-up line are false positives), both gold found
    assert (ours["precision"], ours["recall"]) == (0.5, 1.0)
    assert ours["f1"] == pytest.approx(2 * 0.5 * 1.0 / 1.5)


def test_metadata_cannot_change_the_setting(cqbench_mirror) -> None:
    from inspect_culture.lm_eval_tasks.cqbench.utils import load_docs

    social = {"family": "ad", "setting": "social", "reasoning": False}

    with pytest.raises(ValueError, match="setting is fixed per task"):
        load_docs(social, setting="ethical")
    with pytest.raises(ValueError, match="shots=3"):
        load_docs(social, shots=3)


def test_ve_without_grader_fails_before_generation(cqbench_mirror, tmp_path: Path) -> None:
    with StubOpenAIServer(responder=responder) as server:
        log = inspect_eval_on_stub(cqbench_ve(setting="social"), server, tmp_path)
        assert server.requests == []
    assert log.status == "error" and "--model-role grader=" in log.error.message

"""Generation settings as each harness's vLLM path reads them: for every task family, what
lm-eval's `--model vllm` backend turns the YAML's `generation_kwargs` into (its own helpers,
`normalize_gen_kwargs` and `handle_stop_sequences`, which need no vLLM) equals the Inspect
task's GenerateConfig, and docs/vllm.md's context-length table states the same caps."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.lm_eval_tasks import include_path

DOCS = Path(__file__).resolve().parents[2] / "docs" / "vllm.md"
# lm-eval task -> (family row in docs/vllm.md, Inspect task factory and arguments)
FAMILIES = {
    "normad_rot": "NormAd-ETI",
    "care_zh": "CARE",
    "care_ar_cot": "CARE",
    "cqbench_ad_social": "CQ-Bench AD, VS, VE (both steps)",
    "cqbench_vs_ethical_reasoning": "CQ-Bench AD, VS, VE (both steps)",
    "cqbench_ve_summary_social": "CQ-Bench AD, VS, VE (both steps)",
    "cqbench_ve_social": "CQ-Bench AD, VS, VE (both steps)",
    "culturesynth_zh": "CultureSynth-7",
    "culturesynth_answers_zh": "CultureSynth-7",
}


def _yaml(task: str) -> dict[str, Any]:
    from lm_eval.tasks._yaml_loader import load_yaml

    [path] = [p for p in include_path().rglob(f"{task}.yaml")]
    return load_yaml(path, resolve_func=False)


def lm_eval_vllm_sampling(task: str) -> dict[str, Any]:
    """What `VLLM.modify_gen_kwargs` builds SamplingParams from (lm-eval 0.4.13), EOS aside."""
    from lm_eval.models.utils import handle_stop_sequences, normalize_gen_kwargs

    kwargs = dict(normalize_gen_kwargs(dict(_yaml(task)["generation_kwargs"])))
    until = handle_stop_sequences(kwargs.pop("until", None), eos=None)
    max_tokens = int(kwargs.pop("max_gen_toks"))
    kwargs.pop("do_sample", None)
    return {"stop": until, "max_tokens": max_tokens, **kwargs}


def inspect_sampling(task: str) -> dict[str, Any]:
    """Needs the `full_mirror` fixture (the tasks load their data when built)."""
    from inspect_culture.care import care
    from inspect_culture.cqbench import cqbench_ad, cqbench_ve, cqbench_vs
    from inspect_culture.culturesynth import culturesynth, culturesynth_answers
    from inspect_culture.normad import normad

    factories = {
        "normad_rot": lambda: normad(context="rot"),
        "care_zh": lambda: care(language="zh"),
        "care_ar_cot": lambda: care(language="ar", prompting="cot"),
        "cqbench_ad_social": lambda: cqbench_ad(setting="social"),
        "cqbench_vs_ethical_reasoning": lambda: cqbench_vs(setting="ethical", reasoning=True),
        "cqbench_ve_summary_social": lambda: cqbench_ve(setting="social"),
        "cqbench_ve_social": lambda: cqbench_ve(setting="social"),
        "culturesynth_zh": lambda: culturesynth(language="zh"),
        "culturesynth_answers_zh": lambda: culturesynth_answers(language="zh"),
    }
    config = factories[task]().config
    sampling: dict[str, Any] = {
        "stop": list(config.stop_seqs or []),
        "max_tokens": config.max_tokens,
        "temperature": config.temperature,
    }
    if config.top_p is not None:
        sampling["top_p"] = config.top_p
    return sampling


def _documented_caps() -> dict[str, int]:
    rows = re.findall(r"^\| ([^|]+?) \| ([\d,]+) \|$", DOCS.read_text(encoding="utf-8"), re.M)
    return {name: int(value.replace(",", "")) for name, value in rows}


@pytest.mark.parametrize("task", sorted(FAMILIES))
def test_both_harnesses_sample_alike_on_vllm(task: str, full_mirror: Path) -> None:
    lm = lm_eval_vllm_sampling(task)
    ours = inspect_sampling(task)
    assert lm == ours
    assert lm["stop"] == []  # no stop sequence but EOS: multi-paragraph answers are not cut
    assert _documented_caps()[FAMILIES[task]] == lm["max_tokens"]


def test_greedy_tasks_are_greedy_in_lm_eval_vllm() -> None:
    """lm-eval's vLLM backend takes temperature as given: do_sample false must come with 0."""
    for task in ("normad_rot", "culturesynth_zh", "culturesynth_answers_zh"):
        assert lm_eval_vllm_sampling(task)["temperature"] == 0.0
    for task in ("care_zh", "cqbench_ad_social"):
        assert lm_eval_vllm_sampling(task)["temperature"] > 0


def test_documented_judge_cap_is_the_default() -> None:
    from inspect_culture.judging.defaults import DEFAULT_MAX_TOKENS

    assert _documented_caps()["judge replies"] == DEFAULT_MAX_TOKENS

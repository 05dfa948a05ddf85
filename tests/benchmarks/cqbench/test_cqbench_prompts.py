import hashlib
import json
from pathlib import Path

import pytest

from inspect_culture.benchmarks.choices import check_bool
from inspect_culture.benchmarks.cqbench import spec
from inspect_culture.benchmarks.cqbench.data import load_cqbench
from inspect_culture.benchmarks.cqbench.prompts import (
    AD_VS_SYSTEM,
    ad_messages,
    prompt,
    ve_extraction_messages,
    ve_judge_prompt,
    ve_summary_messages,
    vs_messages,
)
from inspect_culture.cqbench import cqbench_ad
from tests.support.cqbench_data import install_folder_mirror, original_items

# sha256 of each upstream string as the package shipped it before (scorers/data/
# cqbench_prompts.json, the evaluated literals of prompts_exps.py): the .txt files are byte-exact.
PROMPT_SHA256 = {
    "instruction_prompt_text_setting_1": "3e3ab69d5f49397246a670ea8c690c9caa5b29501b60157b72631fa6e82f1d59",
    "instruction_prompt_text_setting_1_multiple": "774be193cf498a5c57e6c656f71f0f52259355178f7c82b0b73d532d9eb13b81",
    "instruction_prompt_reasoning_setting_1_step_by_step_zero_shot": "88f39e42177e8b037f2695ef49b4d99e00555fd2c8d1cacbfe79a29b7584ca83",
    "instruction_prompt_reasoning_setting_1_step_by_step_one_shot": "8ec150622cfeb690914faf1f5ebd696a2e1578fe359c89629daaeb476d858386",
    "demonstration_t1": "369b9fff9fd87707dfc7188d7dacee5d4ef1af341833ee70e7df8df2775e6ebb",
    "instruction_prompt_reasoning_setting_1_multiple": "9b04a576dcc8719bc3f62753701b6c92130e3927082cb5abd127e5c7914cf2f6",
    "instruction_prompt_text": "9bd142a48deeedfe5fb8820b4fa0e18567bc68f2ca09cb30509bfec000066191",
    "format_prompt_text": "c0a178976dde97840d7e8385fd357056d23ffa1e8fb85daa1ccae9b3ae153649",
    "instruction_prompt_text_setting2_decompose_zero_shot": "262cc4f0c8e99765d8be1c639b7e0af1527d1ce31f90435b39463fcc3bd5b303",
    "instruction_prompt_text_setting2_decompose_one_shot": "000d3ed7503dd21a53f20ef7af5824a644bd8858ae5fb53b47b6a23175de0d11",
    "demonstration": "130421cef787ab8e38c3d59073aeee9f10b46ea389aa9d3d35175acd37259831",
    "multi_step_prompt_p1": "a22e4a6e254f57350e79214f89595ab0ca6523bfa344f529b4f4876369162205",
    "multi_step_prompt_p2": "be19a679f1f9e4c330900443332d3b327db5b1e43fa3304ae393c385a984e388",
    "llm_judge": "176acea30eaa2901d93310c2e17ec592532b4a4967cce95310c02e230a655d91",
}  # fmt: skip
# sha256 of every variant below rendered by the code before prompts moved to prompt_texts/
RENDERED_SHA256 = "28e1d76aa4e627ea4e79f2e4174dfba8b435db311d849594723cbc141de933b6"

AD = {
    "category": "social",
    "story": "S-T-O-R-Y",
    "statement": "Work is important",
    "name": "Ana",
    "options": ["agree", "neither agree nor disagree", "disagree"],
    "options_raw": [" agree ", " neither agree nor disagree ", " disagree"],
}
VS = {
    "category": "social",
    "story": "S-T-O-R-Y",
    "options": ["A--agree", "B--disagree"],
    "options_raw": ["A--agree ", "B--disagree"],
    "gold_values": ["A--agree", "B--disagree"],
}


def test_ad_prompt_upstream_rendering_is_byte_exact() -> None:
    [system, user] = ad_messages(AD, fidelity="upstream")
    assert system == {"role": "system", "content": AD_VS_SYSTEM}
    assert user["content"] == (
        "You will be given a scenario including background, conversation and actions in a location. "
        "You task is to detect the culture values reflected from the conversation.\n\n"
        "You will be provided a statement and you need to detect what attitude they hold to the value.\n"
        'For example, the statement is "The people who don\'t work turn lazy" and the options are '
        '"disagree,agree,neither disagree or agree". And you need to read the story and choose one '
        "attitude from the options.\n"
        "The options could also describe something happening around. For example, the statement is "
        '"How often does this happen in your neighborhood:Racist behaviors", the options are '
        '"Very often, not often, not at all often", you need to choose one based on the story.\n\n'
        "Here is the scenario:\nS-T-O-R-Y\n\nHere is the statement:\nWork is important\n\n"
        "Here are the options:\n[' agree ', ' neither agree nor disagree ', ' disagree']\n\n"
        "Now choose one option based on the story. Only output the option.\n"
    )


def test_ad_paper_rendering_lists_options_readably() -> None:
    content = ad_messages(AD)[1]["content"]
    assert "Here are the options:\nagree, neither agree nor disagree, disagree\n\n" in content


def test_ad_variants() -> None:
    zero = ad_messages(AD, reasoning=True)[1]["content"]
    one = ad_messages(AD, reasoning=True, shots=1)[1]["content"]
    assert zero.endswith(
        "[Related speech]: speeches\n[Analysis]: analysis of attitude\n[Answer]:answer\n"
    )
    assert "Here is one demonstration:" in one and "[Answer]: agree" in one
    multiple = ad_messages({**AD, "category": "multiple"})[1]["content"]
    assert (
        "Here is the character name:\nAna\n\nNow choose one option based on the story and Ana's speech."
        in multiple
    )


def test_vs_upstream_keeps_the_literal_number_placeholder() -> None:
    upstream = vs_messages(VS, fidelity="upstream")[1]["content"]
    paper = vs_messages(VS)[1]["content"]
    assert "select 2 correct answers from the options. (Only 2  options are correct)" in upstream
    assert "Now choose {number}  answers" in upstream
    assert "Now choose 2  answers" in paper and "{number}" not in paper
    assert "S-T-O-R-Y\nHere are 15 options:\nA--agree \nB--disagree\nNow choose" in upstream


def test_vs_reasoning_variants() -> None:
    zero = vs_messages(VS, reasoning=True)[1]["content"]
    one = vs_messages(VS, reasoning=True, shots=1)[1]["content"]
    assert (
        "Here are the options:\n\nHere are 15 options:\nA--agree\nB--disagree\n\nTo think step by step:"
        in zero
    )
    assert "Here is one demonstration:" in one and one.endswith(
        "Here are 15 options:\nA--agree\nB--disagree\n"
    )


def test_ve_prompts() -> None:
    record = {"category": "random", "story": "S-T-O-R-Y"}
    step1 = ve_summary_messages(record)
    assert step1[0]["content"] == "You are an expert at understanding cultural values."
    assert (
        "looking for: ethics, social, religion, politics, security, migration and science themes"
        in step1[1]["content"]
    )
    step2 = ve_extraction_messages({**record, "category": "social"}, "SUMMARY")[1]["content"]
    assert "identify the most prevalent social values" in step2 and "key ideas: SUMMARY." in step2
    judge = ve_judge_prompt("P1\nP2", ["A--agree", "B--disagree"])
    assert "Here are the predictions: P1\nP2 and ground truth: ['A--agree', 'B--disagree']" in judge


def test_prompt_texts_are_the_upstream_bytes() -> None:
    folder = Path(spec.__file__).with_name("prompt_texts")
    assert {p.stem for p in folder.glob("*.txt")} == set(PROMPT_SHA256)
    for name, digest in PROMPT_SHA256.items():
        assert hashlib.sha256((folder / f"{name}.txt").read_bytes()).hexdigest() == digest, name
        assert prompt(name).encode("utf-8") == (folder / f"{name}.txt").read_bytes()
    assert "no license" in (folder / "NOTICE").read_text(encoding="utf-8")


def test_every_variant_renders_as_before_the_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_folder_mirror(tmp_path)  # the synthetic social records, as the loader reads them
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path))
    ad = load_cqbench("ad", "social").records
    vs = load_cqbench("vs", "social").records
    out: dict[str, object] = {}
    for cat in spec.SETTINGS["ad"]:
        for reasoning in (False, True):
            for shots in spec.SHOTS:
                if shots and (not reasoning or cat == "multiple"):
                    continue
                for fid in spec.FIDELITIES:
                    args = {"reasoning": reasoning, "shots": shots, "fidelity": fid}
                    for i, r in enumerate(ad):
                        key = f"ad/{cat}/{reasoning}/{shots}/{fid}/{i}"
                        out[key] = ad_messages({**r, "category": cat}, **args)
                    for i, r in enumerate(vs if cat != "multiple" else []):
                        key = f"vs/{cat}/{reasoning}/{shots}/{fid}/{i}"
                        out[key] = vs_messages({**r, "category": cat}, **args)
        if cat != "multiple":
            r = {"story": original_items()[0]["story"], "category": cat}
            out[f"ve1/{cat}"] = ve_summary_messages(r)
            out[f"ve2/{cat}"] = ve_extraction_messages(r, "A summary.\nTwo lines {braces}")
    out["judge"] = ve_judge_prompt("Pred 1\nPred 2", ["A--agree", "B--disagree"])
    assert len(out) == 143
    text = json.dumps(out, ensure_ascii=False, sort_keys=True)
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == RENDERED_SHA256


@pytest.mark.parametrize(
    ("shots", "reasoning", "setting", "message"),
    [
        (1, False, "social", "shots=1 needs reasoning=true"),
        (1, True, "multiple", "not available for setting=multiple"),
        (2, True, "social", "allowed values: 0, 1"),
    ],
)
def test_shots_that_would_silently_run_zero_shot_are_refused(
    shots: int, reasoning: bool, setting: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        spec.validate("ad", {"shots": shots, "reasoning": reasoning, "setting": setting})
    assert spec.validate("vs", {"shots": "1", "reasoning": "true", "setting": "social"}).shots == 1
    assert spec.validate("ad", {"setting": "multiple"}).shots == 0


@pytest.mark.parametrize("value", ["maybe", "yes", 1, None])
def test_flags_accept_only_true_or_false(value: object) -> None:
    with pytest.raises(ValueError, match="merged=.*allowed values: true, false"):
        check_bool("merged", value)
    assert check_bool("merged", "True") is True and check_bool("merged", False) is False


def test_inspect_task_refuses_a_bad_flag() -> None:
    with pytest.raises(ValueError, match="reasoning='maybe'"):
        cqbench_ad(setting="social", reasoning="maybe")  # type: ignore[arg-type]


def test_validate_checks_each_task_s_parameters_and_what_a_task_name_fixes() -> None:
    params = spec.validate("ad", {"setting": "social", "merged": "true", "version": 2})
    assert params.record() == {
        "task": "ad", "setting": "social", "reasoning": False, "shots": 0, "merged": True,
        "prompt_fidelity": "paper",
    }  # fmt: skip
    with pytest.raises(ValueError, match="setting='multiple'.*allowed values: random"):
        spec.validate("vs", {"setting": "multiple"})
    with pytest.raises(ValueError, match="prompt_fidelity='exact'"):
        spec.validate("vs", {"prompt_fidelity": "exact"})
    with pytest.raises(ValueError, match="skip_empty='maybe'"):
        spec.validate("vs", {"skip_empty": "maybe"})
    with pytest.raises(ValueError, match="judge_constraint='xml'"):
        spec.validate("ve", {"judge_constraint": "xml"})
    with pytest.raises(ValueError, match="reasoning is fixed per task"):
        spec.validate("ad", {"reasoning": True}, fixed={"setting": "social", "reasoning": False})
    with pytest.raises(ValueError, match="task='qa'"):
        spec.validate("qa", {})


def test_fixed_parameters_are_compared_after_conversion() -> None:
    """lm-eval's --metadata carries strings: "true" on a reasoning task is the same value."""
    fixed = {"setting": "social", "reasoning": True}
    for reasoning in ("true", " True", True):
        params = spec.validate("vs", {"reasoning": reasoning, "setting": "social"}, fixed=fixed)
        assert params.reasoning is True
    with pytest.raises(ValueError, match="reasoning is fixed per task"):
        spec.validate("vs", {"reasoning": "false"}, fixed=fixed)
    with pytest.raises(ValueError, match="reasoning='maybe' is not supported"):
        spec.validate("vs", {"reasoning": "maybe"}, fixed=fixed)

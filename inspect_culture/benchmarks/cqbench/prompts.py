"""CQ-Bench prompts from the authors' verbatim `prompt_texts/` (see its NOTICE); `prompt_fidelity=
"upstream"` renders byte for byte as upstream (AD options as a list repr, VS's literal `{number}`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from inspect_culture.benchmarks.cqbench.spec import Params
from inspect_culture.judging.fences import NOT_QUOTED, SEP, Marker, neutralise

AD_VS_SYSTEM = "You are an American who has basic common sense"
VE_SYSTEM = "You are an expert at understanding cultural values."
# run_exps_open.py: the step-1 topic for every category, and step 2's for `random`
VE_ALL_TOPICS = "ethics, social, religion, politics, security, migration and science"

Messages = list[dict[str, str]]


@cache
def prompt(name: str) -> str:
    """One upstream string, byte for byte (no newline translation)."""
    return (Path(__file__).with_name("prompt_texts") / f"{name}.txt").read_bytes().decode("utf-8")


def _messages(system: str, user: str) -> Messages:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def ad_messages(
    record: Mapping[str, Any], *, reasoning: bool = False, shots: int = 0, fidelity: str = "paper"
) -> Messages:
    """Parameters as checked by `spec.validate`."""
    if fidelity == "upstream":
        options = str(list(record["options_raw"]))  # e.g. "[' agree ', ' Disagree ']"
    else:
        options = ", ".join(record["options"])
    multiple = record["category"] == "multiple"
    if not reasoning:
        name = "instruction_prompt_text_setting_1" + ("_multiple" if multiple else "")
    elif multiple:  # upstream has no zero/one-shot distinction here
        name = "instruction_prompt_reasoning_setting_1_multiple"
    elif shots == 1:
        name = "instruction_prompt_reasoning_setting_1_step_by_step_one_shot"
    else:
        name = "instruction_prompt_reasoning_setting_1_step_by_step_zero_shot"
    # only the one-shot prompt has a {demonstration} slot; format() ignores unused keywords
    text = prompt(name).format(
        story=record["story"],
        statement=record["statement"],
        options=options,
        name=record["name"],
        demonstration=prompt("demonstration_t1"),
    )
    return _messages(AD_VS_SYSTEM, text)


def vs_messages(
    record: Mapping[str, Any], *, reasoning: bool = False, shots: int = 0, fidelity: str = "paper"
) -> Messages:
    """Parameters as checked by `spec.validate`."""
    number = len(record["gold_values"])
    options = record["options_raw"] if fidelity == "upstream" else record["options"]
    block = "\nHere are 15 options:\n" + "\n".join(options)  # upstream's literal 15
    fields = {"number": number, "story": record["story"], "options": block}
    if not reasoning:
        tail = prompt("format_prompt_text")
        if fidelity == "paper":
            tail = tail.format(number=number)  # upstream leaves "{number}" in the text
        text = (
            prompt("instruction_prompt_text").format(number=number) + record["story"] + block + tail
        )
    else:  # only the one-shot prompt has a {demonstrations} slot
        shot = "one_shot" if shots == 1 else "zero_shot"
        text = prompt(f"instruction_prompt_text_setting2_decompose_{shot}").format(
            demonstrations=prompt("demonstration"), **fields
        )
    return _messages(AD_VS_SYSTEM, text)


def task_messages(record: Mapping[str, Any], params: Params) -> Messages:
    """The prompt of `record` in the run `params` describes (VE: step 1), in either harness."""
    if params.task == "ve":
        return ve_summary_messages(record)
    build = ad_messages if params.task == "ad" else vs_messages
    return build(
        record, reasoning=params.reasoning, shots=params.shots, fidelity=params.prompt_fidelity
    )


def ve_summary_messages(record: Mapping[str, Any]) -> Messages:
    """Step 1: summarize the story's themes (upstream always asks about every topic here)."""
    text = prompt("multi_step_prompt_p1").format(story=record["story"], topic=VE_ALL_TOPICS)
    return _messages(VE_SYSTEM, text)


def ve_extraction_messages(record: Mapping[str, Any], summary: str) -> Messages:
    """Step 2: extract values, given the story and the step-1 summary."""
    topic = VE_ALL_TOPICS if record["category"] == "random" else record["category"]
    text = prompt("multi_step_prompt_p2").format(
        story=record["story"], topic=topic, summary=summary
    )
    return _messages(VE_SYSTEM, text)


# What the extracted values (unfenced in `llm_judge`) must not reproduce: table in docs/judge.md.
# `fina[li]`: a bar look-alike (`ꓲ`) folds to `i` but may stand for `l`. `(?=(?P<ws>\s*))(?P=ws)`:
# an atomic `\s*`, so `NOT_QUOTED` does not rescan a whitespace run at every length (quadratic).
_GT_TAIL = rf"(?=(?P<ws>\s*))(?P=ws)(?P<mark>){NOT_QUOTED}(?:[\]*_][\s\]*_]*)?"
_BLOCK = rf"(?:fina[li]{SEP}answer|reasoning)"


def _ws(n: int) -> str:
    """Whitespace matched as an atomic group (Python 3.10 has no `(?>...)`)."""
    return rf"(?=(?P<ws{n}>\s*))(?P=ws{n})"


VE_PREDICTION_MARKERS: tuple[Marker, ...] = (
    Marker("final answer", rf"\[\s*fina[li]{SEP}answer\s*(?P<mark>)\]"),
    Marker("reasoning", r"\[\s*reasoning\s*(?P<mark>)\]"),
    Marker(
        "bold block",
        rf"(?:\*\*|__){_ws(1)}(?:\[{_ws(2)})?{_BLOCK}{_ws(3)}(?P<mark>){NOT_QUOTED}"
        rf"(?:\]{_ws(4)})?(?::{_ws(5)})?(?:\*\*|__)",
    ),
    Marker("ground truth", rf"ground{SEP}truth(?:{SEP}\d+)?{_GT_TAIL}[:=]"),
    Marker("predictions", rf"here{SEP}are{SEP}the{SEP}predictions{_GT_TAIL}:"),
)


def neutralise_prediction(prediction: str) -> str:
    """The values with every forged marker or score line marked as quoted."""
    return neutralise(prediction, VE_PREDICTION_MARKERS)


def ve_judge_prompt(prediction: str, gold_values: Sequence[str]) -> str:
    """`llm_judge` with the neutralised prediction and the gold values (a list, as upstream)."""
    return prompt("llm_judge").format(
        pred=neutralise_prediction(prediction), gt=str(list(gold_values))
    )

"""Every task this package offers, in both harnesses, with a one-line description.

`culture-evals list` prints this; tests check it against the Inspect registry and the lm-eval
YAMLs so it cannot go stale.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TaskEntry:
    harness: str  # "inspect" | "lm-eval"
    name: str
    description: str
    kind: str = "task"  # "task" | "group"


_CQ_SETTINGS = ("random", "political", "social", "religious", "ethical", "multiple")

TASKS: tuple[TaskEntry, ...] = (
    TaskEntry(
        "inspect",
        "inspect_culture/normad",
        "NormAd-ETI yes/no/neutral etiquette judgments; -T context=rot|value_country|country|none "
        "-T parser=strict|upstream",
    ),
    TaskEntry(
        "inspect",
        "inspect_culture/care",
        "CARE culture questions rated 1-10 by an LLM judge (--model-role grader=...); "
        "-T language=zh|ar|ja -T prompting=zero_shot|cot|role_play",
    ),
    TaskEntry(
        "inspect",
        "inspect_culture/care_judge_agreement",
        "Evaluates a judge: rates CARE's human-rated responses, reports Pearson/Spearman/Kendall "
        "vs humans; -T language=zh|ar|ja",
    ),
    TaskEntry(
        "inspect",
        "inspect_culture/cqbench_ad",
        "CQ-Bench attitude detection; -T setting=random|political|social|religious|ethical|"
        "multiple -T reasoning=true -T shots=1 -T merged=true -T prompt_fidelity=upstream",
    ),
    TaskEntry(
        "inspect",
        "inspect_culture/cqbench_vs",
        "CQ-Bench value selection (15 options); -T setting=... -T reasoning=true -T shots=1 "
        "-T skip_empty=true",
    ),
    TaskEntry(
        "inspect",
        "inspect_culture/cqbench_ve",
        "CQ-Bench value extraction (two-step, judge-scored recall; --model-role grader=...); "
        "-T setting=...",
    ),
    TaskEntry(
        "inspect",
        "inspect_culture/culturesynth",
        "CultureSynth-7 net win rate vs a baseline model, pairwise judge with the reference "
        "(--model-role grader=... and --model-role baseline=... or -T baseline_responses=FILE); "
        "-T language=zh -T swap=false",
    ),
    TaskEntry(
        "inspect",
        "inspect_culture/culturesynth_answers",
        "CultureSynth-7 answers only (run the baseline model, then `culture-evals baseline export`)",
    ),
    TaskEntry("lm-eval", "normad_rot", "NormAd-ETI with the rule-of-thumb as context"),
    TaskEntry("lm-eval", "normad_value_country", "NormAd-ETI with the country and its value"),
    TaskEntry("lm-eval", "normad_country", "NormAd-ETI with the country only"),
    TaskEntry("lm-eval", "normad_none", "NormAd-ETI with no cultural context (baseline)"),
    TaskEntry("lm-eval", "normad", "NormAd-ETI, all four context settings", kind="group"),
    TaskEntry("lm-eval", "care_zh", "CARE Chinese culture questions, zero-shot, judge-rated 1-10"),
    TaskEntry("lm-eval", "care_zh_cot", "CARE Chinese, chain-of-thought prompt (paper Fig. 8)"),
    TaskEntry(
        "lm-eval",
        "care_zh_role_play",
        "CARE Chinese, native-persona role-play prompt (paper Fig. 8)",
    ),
    TaskEntry("lm-eval", "care_ar", "CARE Arabic culture questions, zero-shot, judge-rated 1-10"),
    TaskEntry("lm-eval", "care_ar_cot", "CARE Arabic, chain-of-thought prompt (paper Fig. 8)"),
    TaskEntry(
        "lm-eval",
        "care_ar_role_play",
        "CARE Arabic, native-persona role-play prompt (paper Fig. 8)",
    ),
    TaskEntry("lm-eval", "care_ja", "CARE Japanese culture questions, zero-shot, judge-rated 1-10"),
    TaskEntry("lm-eval", "care_ja_cot", "CARE Japanese, chain-of-thought prompt (paper Fig. 8)"),
    TaskEntry(
        "lm-eval",
        "care_ja_role_play",
        "CARE Japanese, native-persona role-play prompt (paper Fig. 8)",
    ),
    TaskEntry("lm-eval", "care", "CARE zero-shot, all three languages", kind="group"),
    *(
        TaskEntry(
            "lm-eval",
            f"cqbench_{task}_{setting}{suffix}",
            f"CQ-Bench {what}, {setting} stories{note}",
        )
        for task, what, settings in (
            ("ad", "attitude detection", _CQ_SETTINGS),
            ("vs", "value selection", _CQ_SETTINGS[:-1]),
        )
        for setting in settings
        for suffix, note in (("", ""), ("_reasoning", ", step-by-step reasoning prompt"))
    ),
    *(
        TaskEntry(
            "lm-eval",
            f"cqbench_ve{step}_{setting}",
            f"CQ-Bench value extraction, {setting} stories, {what}",
        )
        for setting in _CQ_SETTINGS[:-1]
        for step, what in (
            ("_summary", "step 1: summaries (run with --log_samples)"),
            ("", "step 2: values + judge (--metadata ve_summaries=<step-1 output>)"),
        )
    ),
    TaskEntry("lm-eval", "cqbench_ad", "CQ-Bench AD, all settings", kind="group"),
    TaskEntry("lm-eval", "cqbench_vs", "CQ-Bench VS, all settings", kind="group"),
    TaskEntry("lm-eval", "cqbench_ve_summary", "CQ-Bench VE step 1, all settings", kind="group"),
    TaskEntry("lm-eval", "cqbench_ve", "CQ-Bench VE step 2 + judge, all settings", kind="group"),
    TaskEntry("lm-eval", "cqbench", "CQ-Bench AD, VS and VE (step 2) groups", kind="group"),
    *(
        TaskEntry("lm-eval", f"culturesynth{step}_{language}", f"CultureSynth-7, {language}{what}")
        for language in ("ar", "es", "fr", "ja", "ko", "pt", "zh", "all")
        for step, what in (
            ("", ": net win rate vs the baseline file (--metadata baseline_responses=FILE)"),
            ("_answers", ": answers only, for a baseline file (run with --log_samples)"),
        )
    ),
    TaskEntry("lm-eval", "culturesynth", "CultureSynth-7, seven languages", kind="group"),
    TaskEntry(
        "lm-eval",
        "culturesynth_answers",
        "CultureSynth-7 answers only, seven languages",
        kind="group",
    ),
)

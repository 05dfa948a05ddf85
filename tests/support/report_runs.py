"""Real runs of every benchmark in both harnesses against the stub server: the input the report
tests read (`culture-evals report`), built the way a user's runs are, not hand-written JSON.

`python -m tests.support.report_runs OUT` writes them for a look by hand.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from inspect_culture.benchmark_registry import Benchmark, benchmarks
from inspect_culture.benchmarks.normad.source import NORMAD
from tests.support.cqbench_data import ad_items, install_folder_mirror, original_items, vs_items
from tests.support.culturesynth_data import (
    QUESTIONS,
    is_judge_call,
    judge_reply,
    question_of,
    write_culturesynth_jsonl,
    write_stub_baseline,
)
from tests.support.harness_runs import inspect_eval_on_stub, run_lm_eval, stub_grader
from tests.support.openai_stub import NORMAD_ANSWERS, StubOpenAIServer, care_responder

DATA = Path(__file__).resolve().parents[1] / "data"
AD_ANSWERS = ("agree", "Disagree.", "neither agree nor disagree", "I cannot tell", "Not often")


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


def responder(prompt: str, body: dict[str, Any]) -> str:
    """One stub for all four benchmarks: a model's answers and each judge's verdicts, chosen by
    hashing the prompt (so both harnesses get the same reply to the same request)."""
    if prompt.startswith("Please serve as"):  # CARE judge
        return care_responder(prompt, body)
    if is_judge_call(body):  # CultureSynth judge
        return judge_reply(prompt)
    if "ground truth set of values" in prompt:  # CQ-Bench VE judge
        score = ("1", "0.5", "0")[_digest(prompt) % 3]
        return f"[Final answer]:\n[Ground truth 1]: {score}\n[Ground truth 2]: 1"
    if "Here are 15 options:" in prompt:  # CQ-Bench VS
        options = [
            line
            for line in prompt.split("Here are 15 options:\n", 1)[1].splitlines()
            if "--" in line
        ][:15]
        return "[Final answer]:\n" + "\n".join(options[-3:])
    if "Your goal is to summarize the main themes" in prompt:  # CQ-Bench VE step 1
        return "The story is about honesty and family."
    if "Your goal is to identify the most prevalent" in prompt:  # CQ-Bench VE step 2
        return "[Final answer]:\nHonesty matters."
    if any(q in prompt for q in QUESTIONS.values()):  # CultureSynth target answer
        return f"TARGET answer to {question_of(prompt)}"
    if "agree" in prompt.lower() and "story" in prompt.lower():  # CQ-Bench AD
        return AD_ANSWERS[_digest(prompt) % len(AD_ANSWERS)]
    return NORMAD_ANSWERS[_digest(prompt) % len(NORMAD_ANSWERS)]


def install_mirror(
    root: Path,
    *,
    normad: Callable[[Path], None] | None = None,
    cqbench: dict[str, list[dict[str, Any]]] | None = None,
    culturesynth: list[dict[str, Any]] | None = None,
) -> Path:
    """Synthetic data of every benchmark, in upstream formats, under `root`: the small test
    files, or what the arguments give (`normad` writes its CSV at the path it is given)."""
    target = root / "normad" / NORMAD.filename
    target.parent.mkdir(parents=True, exist_ok=True)
    if normad is None:
        shutil.copy(DATA / "normad_sample.csv", target)
    else:
        normad(target)
    install_folder_mirror(
        root,
        cqbench
        or {
            "dataset_setting1_social.json": ad_items(),
            "dataset_setting2_ethical.json": vs_items(),
            "dataset_ethical_original.json": original_items(),
        },
    )
    write_culturesynth_jsonl(root / "culturesynth" / "culturesynth.jsonl", culturesynth)
    return root


def _report_tasks(
    baseline: Path, care_settings: Sequence[tuple[str, str]], judged: dict[str, Any]
) -> dict[str, Any]:
    """Each benchmark's Inspect tasks the report covers, made on demand: NormAd in its four
    contexts, CARE in each (language, prompting), CultureSynth, CQ-Bench AD, VS and VE; the
    judged ones with the task arguments `judged`."""
    from inspect_culture.benchmarks.normad.spec import CONTEXTS
    from inspect_culture.care import care
    from inspect_culture.cqbench import cqbench_ad, cqbench_ve, cqbench_vs
    from inspect_culture.culturesynth import culturesynth
    from inspect_culture.normad import normad

    return {
        "normad": lambda: [normad(context=c) for c in CONTEXTS],
        "care": lambda: [care(language=lang, prompting=p, **judged) for lang, p in care_settings],
        "culturesynth": lambda: [culturesynth(baseline_responses=str(baseline), **judged)],
        "cqbench": lambda: [
            cqbench_ad(setting="social"),
            cqbench_vs(setting="ethical"),
            cqbench_ve(setting="ethical", **judged),
        ],
    }


def inspect_tasks(
    benchmark: str,
    baseline: Path,
    care_settings: Sequence[tuple[str, str]] = (("zh", "zero_shot"),),
    judge_later: bool = False,
) -> list[Any]:
    """The Inspect tasks of a registered benchmark that the report covers; `judge_later`: the
    judged ones generate only (`-T judge_later=true`), for `inspect score` to judge."""
    makers = _report_tasks(baseline, care_settings, {"judge_later": True} if judge_later else {})
    if benchmark not in makers:
        raise ValueError(f"no report tasks for {benchmark!r}: add them to _report_tasks")
    return makers[benchmark]()


def needs_grader(task: Any, benchmark: Benchmark) -> bool:
    """Whether the task is scored by one of the benchmark's judge scorers (the registry's)."""
    from inspect_ai._util.registry import registry_unqualified_name

    return any(registry_unqualified_name(s) in benchmark.judge_scorers for s in task.scorer or ())


def run_inspect(server: StubOpenAIServer, log_dir: Path, baseline: Path) -> list[Any]:
    """One Inspect log per task run, each registered benchmark's tasks in turn."""
    grader = {"grader": stub_grader(server)}
    return [
        inspect_eval_on_stub(
            task,
            server,
            log_dir,
            **({"model_roles": grader} if needs_grader(task, benchmark) else {}),
        )
        for benchmark in benchmarks()
        for task in inspect_tasks(benchmark.name, baseline)
    ]


def run_lm_eval_all(server: StubOpenAIServer, output_path: Path, baseline: Path) -> None:
    """The same runs through lm-eval, written as `lm_eval --output_path --log_samples` does."""
    judge = {"judge_model": "judge", "judge_base_url": server.base_url}
    run_lm_eval(server, ["normad"], output_path=output_path)
    run_lm_eval(server, ["care_zh"], judge, output_path=output_path)
    run_lm_eval(
        server,
        ["culturesynth_all"],
        {**judge, "baseline_responses": str(baseline)},
        output_path=output_path,
    )
    run_lm_eval(server, ["cqbench_ad_social", "cqbench_vs_ethical"], output_path=output_path)
    summaries = output_path.parent / f"{output_path.name}_ve_summaries"
    run_lm_eval(server, ["cqbench_ve_summary_ethical"], output_path=summaries)
    run_lm_eval(
        server, ["cqbench_ve_ethical"], {**judge, "ve_summaries": str(summaries)},
        output_path=output_path,
    )  # fmt: skip


def make_runs(out: Path) -> tuple[Path, Path]:
    """Inspect logs under `out/inspect`, lm-eval outputs under `out/lm_eval`; the environment
    (data mirror, judge cache off, keys) is set for the duration."""
    saved = dict(os.environ)
    try:
        os.environ["INSPECT_CULTURE_DATA_DIR"] = str(install_mirror(out / "mirror"))
        os.environ["INSPECT_CULTURE_JUDGE_CACHE"] = "off"
        os.environ["STUB_API_KEY"] = "test-key"
        os.environ["HF_DATASETS_CACHE"] = str(out / "hf_cache")
        os.environ["INSPECT_CULTURE_CACHE_DIR"] = str(out / "cache")
        os.environ["INSPECT_CACHE_DIR"] = str(out / "inspect_cache")
        os.environ["INSPECT_CULTURE_HF_ENDPOINT"] = "http://127.0.0.1:9"  # discard: never reached
        baseline = write_stub_baseline(out / "baseline.json")
        with StubOpenAIServer(responder=responder) as server:
            run_inspect(server, out / "inspect", baseline)
            run_lm_eval_all(server, out / "lm_eval", baseline)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return out / "inspect", out / "lm_eval"


if __name__ == "__main__":
    print(make_runs(Path(sys.argv[1])))

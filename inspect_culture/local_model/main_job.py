"""`culture-evals main-job`: CARE through Inspect and lm-eval, a local SmolLM2-135M (llama.cpp)
both answering and judging. A pipeline check, with two documented deviations: a free 135M judge
rarely writes "Rating: [[n]]", so its decoding is constrained by default (judge_constraint=grammar),
and answers are decoded greedily (the paper samples at 0.7), so both harnesses must agree cell
for cell: a difference is a bug, and the job says where and fails."""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from inspect_culture.benchmarks.care.spec import CATEGORY_SLUGS
from inspect_culture.local_model.server import KEY_VARIABLE, MODEL_ALIAS, LlamaServer

REAL_JUDGE = (
    "For real numbers, use a capable judge (the paper's protocol, no constraint), e.g.\n"
    "  inspect eval inspect_culture/care --model vllm/Qwen/Qwen2.5-7B-Instruct "
    "--model-role grader=openai/gpt-4o -T language=zh\n"
    "  lm_eval --model vllm --model_args pretrained=Qwen/Qwen2.5-7B-Instruct --batch_size auto "
    "--apply_chat_template --tasks care "
    '--metadata \'{"judge_model": "gpt-4o", "judge_base_url": "https://api.openai.com/v1"}\''
)
# the grammar caps the commentary at (512 - 15) // 4 = 124 characters: the rating always fits
JUDGE_MAX_TOKENS = 512


# lm-eval warnings the job's user cannot act on: the job sets greedy decoding on purpose, CARE's
# loader takes no `--metadata` kwargs, and the local server stops at its own end-of-turn token
_EXPECTED_WARNINGS = {
    "lm_eval.evaluator": "specified through cli, these settings will update",
    "lm_eval.api.task": "Custom kwargs can be passed to `--metadata`",
    "lm_eval.models.api_models": "Cannot determine EOS string",
}


def _quiet_expected(record: logging.LogRecord) -> bool:
    return _EXPECTED_WARNINGS.get(record.name, "\0") not in record.getMessage()


@dataclass
class HarnessRun:
    """One harness's CARE run of one language: its metrics and each sample's judged reply."""

    language: str
    harness: str
    metrics: dict[str, float]
    judged: list[tuple[str | None, float | None]]  # (judge's text, rating)


def run_inspect(
    base_url: str,
    language: str,
    per_category: int,
    max_tokens: int,
    log_dir: str,
    judge_constraint: str = "grammar",
) -> HarnessRun:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import GenerateConfig, get_model

    from inspect_culture.care import care
    from inspect_culture.inspect_adapter.roles import GRADER_ROLE

    os.environ.setdefault(KEY_VARIABLE, "local")  # Inspect wants a key even for a local server
    local = partial(get_model, f"openai-api/local/{MODEL_ALIAS}", base_url=base_url)
    model = local(config=GenerateConfig(max_tokens=max_tokens))
    grader = local(memoize=False, config=GenerateConfig(max_tokens=JUDGE_MAX_TOKENS))
    [log] = inspect_eval(
        care(language=language, per_category=per_category, judge_constraint=judge_constraint),
        model=model,
        model_roles={GRADER_ROLE: grader},
        max_tokens=max_tokens,
        temperature=0.0,  # greedy: the parity check (CARE's own 0.7 would differ by chance)
        max_connections=1,
        # a server that dies mid-run fails the job instead of being retried for hours
        max_retries=2,
        timeout=300,
        log_dir=log_dir,
        # Inspect's own progress: samples done out of the total, every few seconds
        display="rich" if sys.stdout.isatty() else "plain",
    )
    if log.status != "success":
        raise RuntimeError(f"Inspect run failed: {log.error.message if log.error else log.status}")
    score = log.results.scores[0]
    metrics = {k: v.value for k, v in score.metrics.items()}
    metrics["n_unscored"] = float(score.unscored_samples or 0)
    scores = [sample.scores["care_judge"] for sample in log.samples or []]
    judged = [
        (s.explanation, s.value if isinstance(s.value, int | float) else None) for s in scores
    ]
    return HarnessRun(language, "inspect", metrics, judged)


def run_lm_eval(
    base_url: str,
    language: str,
    per_category: int,
    max_tokens: int,
    judge_constraint: str = "grammar",
    output_path: str | None = None,
) -> HarnessRun:
    """`output_path`: where to write the results and samples files, as lm-eval does."""
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from inspect_culture.lm_eval_tasks import include_path
    from inspect_culture.run_files.lm_eval_outputs import judge_reply_of, save_lm_eval_outputs

    metadata = {
        "judge_model": MODEL_ALIAS,
        "judge_base_url": base_url,
        "judge_max_tokens": JUDGE_MAX_TOKENS,
        "judge_concurrency": 1,
        "judge_constraint": judge_constraint,
        "per_category": per_category,
    }
    manager = TaskManager(
        include_path=[str(include_path())], include_defaults=False, metadata=metadata
    )
    task = f"care_{language}"
    tracker = EvaluationTracker(output_path=output_path) if output_path else None
    for name in _EXPECTED_WARNINGS:
        logging.getLogger(name).addFilter(_quiet_expected)  # once: a set of filters
    results = simple_evaluate(
        model="local-chat-completions",
        model_args={
            "model": MODEL_ALIAS,
            "base_url": f"{base_url}/chat/completions",
            "num_concurrent": 1,
        },
        tasks=[task],
        task_manager=manager,
        apply_chat_template=True,
        gen_kwargs=f"max_gen_toks={max_tokens},do_sample=False,temperature=0",  # greedy, as Inspect
        log_samples=True,
        evaluation_tracker=tracker,
    )
    if tracker is not None:
        save_lm_eval_outputs(tracker, results)
    from inspect_culture.lm_eval_tasks.care.utils import all_metrics

    samples = results["samples"][task]
    # the categories (not in lm-eval's table) from the records, as `culture-evals report` does
    metrics = all_metrics([sample["rating"] for sample in samples])
    for k, v in results["results"][task].items():
        if k.endswith(",judged") and "stderr" not in k:
            metrics[k.removesuffix(",judged")] = v
    replies = [judge_reply_of(sample) for sample in samples]
    judged = [(r["judge_text"], r["outcome"]["rating"]) for r in replies]
    return HarnessRun(language, "lm-eval", metrics, judged)


def _cell(metrics: dict[str, Any], key: str) -> str:
    value = metrics.get(key)
    if value is None or value != value:
        return "-"
    low, high = metrics.get(f"{key}_ci_low"), metrics.get(f"{key}_ci_high")
    return f"{value:4.1f} [{low:4.1f}, {high:4.1f}]"


def results_table(runs: list[HarnessRun]) -> str:
    """Mean rating [95% interval] per language and category, a column per harness; counts."""
    harnesses = list(dict.fromkeys(run.harness for run in runs))
    by_key = {(run.language, run.harness): run.metrics for run in runs}
    width = 20
    lines = [
        f"{'language':<9}{'category':<13}" + "".join(f"{h:>{width}}" for h in harnesses),
        "-" * (22 + width * len(harnesses)),
    ]
    for language in dict.fromkeys(run.language for run in runs):
        columns = [by_key.get((language, h), {}) for h in harnesses]
        for category in ("all", *CATEGORY_SLUGS):
            key = "rating" if category == "all" else f"rating_{category}"
            cells = "".join(f"{_cell(metrics, key):>{width}}" for metrics in columns)
            lines.append(f"{language:<9}{category:<13}{cells}")
        counts = [f"{int(m.get('n_scored', 0))} / {int(m.get('n_unscored', 0))}" for m in columns]
        cells = "".join(f"{c:>{width}}" for c in counts)
        lines.append(f"{language:<9}{'scored/unsc.':<13}{cells}")
    return "\n".join(lines)


def parity_differences(runs: list[HarnessRun]) -> list[str]:
    """Each cell of the table (a language's category or its counts) where the harnesses differ."""
    by_language: dict[str, dict[str, dict[str, float]]] = {}
    for run in runs:
        by_language.setdefault(run.language, {})[run.harness] = run.metrics
    differences = []
    for language, columns in by_language.items():
        inspect, lm_eval = columns.get("inspect", {}), columns.get("lm-eval", {})
        for category in ("all", *CATEGORY_SLUGS):
            key = "rating" if category == "all" else f"rating_{category}"
            if not all(_same(inspect.get(k), lm_eval.get(k)) for k in _interval_keys(key)):
                differences.append(
                    f"{language} {category}: Inspect {_cell(inspect, key).strip()}, "
                    f"lm-eval {_cell(lm_eval, key).strip()}"
                )
        counts = [(m.get("n_scored"), m.get("n_unscored")) for m in (inspect, lm_eval)]
        if not all(_same(a, b) for a, b in zip(*counts, strict=True)):
            differences.append(
                f"{language} scored/unscored: Inspect {counts[0]}, lm-eval {counts[1]}"
            )
    return differences


def parity_line(runs: list[HarnessRun]) -> str:
    """One line when the columns agree; else which cells differ (the CLI then exits 1)."""
    cells = len({run.language for run in runs}) * (len(CATEGORY_SLUGS) + 2)
    if not (differences := parity_differences(runs)):
        return (
            f"Parity: Inspect and lm-eval agree in all {cells} cells (answers decoded greedily "
            "for this check; CARE itself samples at temperature 0.7)."
        )
    return f"PARITY FAILED: {len(differences)} of {cells} cells differ:\n  " + "\n  ".join(
        differences
    )


def _interval_keys(key: str) -> tuple[str, str, str]:
    return key, f"{key}_ci_low", f"{key}_ci_high"


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None or a != a or b != b:  # missing or NaN: the same only if both are
        return (a is None or a != a) and (b is None or b != b)
    return abs(a - b) <= 1e-9


def main_job(
    languages: list[str],
    per_category: int,
    max_tokens: int,
    judge_constraint: str = "grammar",
    output_dir: str | None = None,
    threads: int | None = None,
) -> list[HarnessRun]:
    """Both harnesses on every language, kept and reported under `output_dir` (else a temp dir);
    `threads`: the llama.cpp server's (`LlamaServer`)."""
    os.environ.setdefault(
        "INSPECT_CULTURE_JUDGE_CACHE", os.path.join(tempfile.mkdtemp(), "judge.sqlite")
    )
    llama = LlamaServer(threads=threads)  # its settings checked before a previous run is removed
    out = Path(output_dir or tempfile.mkdtemp(prefix="culture-evals-main-job-"))
    log_dir, lm_eval_dir = out / "inspect", out / "lm_eval"
    for previous in (log_dir, lm_eval_dir):  # the report is of this run only
        shutil.rmtree(previous, ignore_errors=True)
    runs: list[HarnessRun] = []
    with llama as server:
        print(
            "Pipeline check: SmolLM2-135M (llama.cpp, CPU) answers CARE questions and judges the "
            "answers.\nA 135M model is not a meaningful judge; these numbers only show that both "
            "harnesses run end to end.\n",
            flush=True,
        )
        print(f"llama.cpp server on {server.base_url} ({server.model.name})", flush=True)
        for language in languages:
            common = (server.base_url, language, per_category, max_tokens)
            print(f"CARE {language}: Inspect ...", flush=True)
            runs.append(run_inspect(*common, str(log_dir), judge_constraint))
            print(f"CARE {language}: lm-eval ...", flush=True)
            runs.append(run_lm_eval(*common, judge_constraint, str(lm_eval_dir)))
    constrained = (
        f"The judge's decoding was constrained (judge_constraint={judge_constraint}, a GBNF "
        "grammar): each reply is a short commentary, then 'Rating: [[n]]' as the paper asks, so "
        "no sample is left unscored. This deviates from the paper's protocol "
        "(docs/judge-reference.md).\n"
        if judge_constraint != "none"
        else "The judge was left free (the paper's protocol): replies without 'Rating: [[n]]' "
        "are counted as unscored, never as 0.\n"
    )
    print(
        f"\nCARE, {per_category} question(s) per category and language, max {max_tokens} new "
        "tokens per answer; mean judge rating 1-10 with its 95% bootstrap interval:\n\n"
        f"{results_table(runs)}\n\n{parity_line(runs)}\n\n{constrained}Server stopped.\n"
        f"{REAL_JUDGE}"
    )
    from inspect_culture.report.build import build_report, write_report
    from inspect_culture.report.render import FORMATS

    report = build_report([log_dir, lm_eval_dir])  # `culture-evals report` of the job's runs
    for skipped in report.skipped:  # never expected: say so rather than hide it
        print(f"report: skipped {skipped}")
    print(f"\nReport of this run: {write_report(report, out / 'report', FORMATS)['html']}")
    if parity_differences(runs):
        print(parity_line(runs), file=sys.stderr)  # last, where a failing job is read
    return runs

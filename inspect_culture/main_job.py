"""The main job on an embedded default: CARE through Inspect and through lm-eval, with a local
SmolLM2-135M (llama.cpp server on 127.0.0.1) as both the evaluated model and the judge.

    culture-evals main-job [--languages zh,ar,ja] [--per-category 1] [--max-tokens 128]

A 135M model is a pipeline check, not a meaningful judge: the numbers show that generation,
judging, parsing and aggregation work end to end in both harnesses, nothing about culture.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from inspect_culture.local_server import MODEL_ALIAS, LlamaServer

REAL_JUDGE = (
    "For real numbers, use a capable judge, e.g.\n"
    "  inspect eval inspect_culture/care --model vllm/Qwen/Qwen2.5-7B-Instruct "
    "--model-role grader=openai/gpt-4o -T language=zh\n"
    "  lm_eval --model vllm --model_args pretrained=Qwen/Qwen2.5-7B-Instruct "
    '--apply_chat_template --include_path "$(culture-evals lm-eval-path)" --tasks care '
    '--metadata \'{"judge_model": "gpt-4o", "judge_base_url": "https://api.openai.com/v1"}\''
)
CATEGORIES = ("entities", "opinion", "norms", "commonsense", "literacy")


def run_inspect(
    base_url: str, language: str, per_category: int, max_tokens: int, log_dir: str
) -> dict[str, Any]:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import GenerateConfig, get_model

    from inspect_culture.care import care

    os.environ.setdefault("LOCAL_API_KEY", "local")  # Inspect wants a key even for a local server
    model = get_model(
        f"openai-api/local/{MODEL_ALIAS}", base_url=base_url,
        config=GenerateConfig(max_tokens=max_tokens),
    )  # fmt: skip
    [log] = inspect_eval(
        care(language=language, per_category=per_category),
        model=model,
        model_roles={"grader": model},
        max_tokens=max_tokens,
        max_connections=1,
        # a server that dies mid-run fails the job instead of being retried for hours
        max_retries=2,
        timeout=300,
        log_dir=log_dir,
        display="none",
    )
    if log.status != "success":
        raise RuntimeError(f"Inspect run failed: {log.error}")
    score = log.results.scores[0]
    metrics = {k: v.value for k, v in score.metrics.items()}
    metrics["n_unscored"] = float(score.unscored_samples or 0)
    return metrics


def run_lm_eval(base_url: str, language: str, per_category: int, max_tokens: int) -> dict[str, Any]:
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    from inspect_culture.lm_eval_tasks import include_path

    metadata = {
        "judge_model": MODEL_ALIAS,
        "judge_base_url": base_url,
        "judge_max_tokens": max_tokens,
        "judge_concurrency": 1,
        "per_category": per_category,
    }
    manager = TaskManager(
        include_path=[str(include_path())], include_defaults=False, metadata=metadata
    )
    results = simple_evaluate(
        model="local-chat-completions",
        model_args={
            "model": MODEL_ALIAS,
            "base_url": f"{base_url}/chat/completions",
            "num_concurrent": 1,
        },
        tasks=[f"care_{language}"],
        task_manager=manager,
        apply_chat_template=True,
        gen_kwargs=f"max_gen_toks={max_tokens}",
    )
    task = results["results"][f"care_{language}"]
    return {
        k.removesuffix(",judged"): v
        for k, v in task.items()
        if k.endswith(",judged") and "stderr" not in k
    }


def _fmt(metrics: dict[str, Any], key: str) -> str:
    value = metrics.get(key)
    return "   -" if value is None or value != value else f"{value:4.1f}"


def results_table(rows: list[tuple[str, str, dict[str, Any]]]) -> str:
    header = f"{'language':<9}{'harness':<9}{'rating':>7}" + "".join(f"{c:>12}" for c in CATEGORIES)
    lines = [header + f"{'scored':>8}{'unscored':>9}", "-" * (len(header) + 17)]
    for language, harness, m in rows:
        cells = "".join(f"{_fmt(m, f'rating_{c}'):>12}" for c in CATEGORIES)
        lines.append(
            f"{language:<9}{harness:<9}{_fmt(m, 'rating'):>7}{cells}"
            f"{int(m.get('n_scored', 0)):>8}{int(m.get('n_unscored', 0)):>9}"
        )
    return "\n".join(lines)


def main_job(languages: list[str], per_category: int, max_tokens: int) -> str:
    print(
        "Pipeline check: SmolLM2-135M (llama.cpp, CPU) answers CARE questions and judges the "
        "answers.\nA 135M model is not a meaningful judge; these numbers only show that both "
        "harnesses run end to end.\n",
        flush=True,
    )
    os.environ.setdefault(
        "INSPECT_CULTURE_JUDGE_CACHE", os.path.join(tempfile.mkdtemp(), "judge.sqlite")
    )
    rows: list[tuple[str, str, dict[str, Any]]] = []
    with LlamaServer() as server, tempfile.TemporaryDirectory() as log_dir:
        print(f"llama.cpp server on {server.base_url} ({server.model.name})", flush=True)
        for language in languages:
            print(f"CARE {language}: Inspect ...", flush=True)
            rows.append(
                (
                    language,
                    "inspect",
                    run_inspect(server.base_url, language, per_category, max_tokens, log_dir),
                )
            )
            print(f"CARE {language}: lm-eval ...", flush=True)
            rows.append(
                (
                    language,
                    "lm-eval",
                    run_lm_eval(server.base_url, language, per_category, max_tokens),
                )
            )
    table = results_table(rows)
    print(
        f"\nCARE, {per_category} question(s) per category and language, max {max_tokens} new "
        f"tokens, mean judge rating 1-10:\n\n{table}\n\n"
        "A 135M judge seldom writes its verdict as 'Rating: [[n]]'; such samples are counted as "
        "unscored, never as 0.\n"
        f"Server stopped.\n{REAL_JUDGE}"
    )
    return table

"""Run the same task through each harness against the stub server and return its metrics."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from inspect_culture.lm_eval_tasks import include_path
from inspect_culture.run_files.lm_eval_outputs import save_lm_eval_outputs
from tests.support.openai_stub import StubOpenAIServer


def inspect_eval_on_stub(
    task: Any, server: StubOpenAIServer, log_dir: Path, **eval_args: Any
) -> Any:
    """Inspect memoises provider instances: name the base URL so each stub server gets its own,
    and bound retries so a broken server fails the test instead of hanging it."""
    from inspect_ai import eval as inspect_eval

    [log] = inspect_eval(
        task,
        model="openai-api/stub/stub-model",
        model_base_url=server.base_url,
        log_dir=str(log_dir),
        display="none",
        max_retries=2,
        timeout=60,
        **eval_args,
    )
    return log


def registered_task_name(name: str) -> str:
    """The name `inspect eval inspect_culture/<name>` finds: under pytest the checkout is the
    working directory, and Inspect then registers our tasks without their package prefix."""
    from inspect_ai._util.registry import registry_lookup

    import inspect_culture.inspect_entry_point  # noqa: F401 - registers the tasks

    return f"inspect_culture/{name}" if registry_lookup("task", f"inspect_culture/{name}") else name


def stub_grader(server: StubOpenAIServer) -> Any:
    """A grader role bound to the stub server (its own base URL, so never a memoised one)."""
    from inspect_ai.model import get_model

    return get_model("openai-api/stub/judge", base_url=server.base_url)


def inspect_metrics(log: Any) -> dict[str, float]:
    """The first scorer's metrics of a successful Inspect log, by name."""
    assert log.status == "success", log.error
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def run_inspect_normad(
    server: StubOpenAIServer, log_dir: Path, **task_args: Any
) -> dict[str, float]:
    from inspect_culture.normad import normad

    return inspect_metrics(inspect_eval_on_stub(normad(**task_args), server, log_dir))


def run_lm_eval(
    server: StubOpenAIServer,
    tasks: list[str],
    metadata: dict[str, Any] | None = None,
    *,
    limit: int | None = None,
    num_concurrent: int = 4,
    output_path: Path | None = None,
    **evaluate_args: Any,
) -> dict[str, Any]:
    """`output_path` writes the per-task samples files as `lm_eval --log_samples --output_path`."""
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    # simple_evaluate ignores its own `metadata` when given a TaskManager: pass it here, as the
    # `lm_eval --metadata` command line does.
    manager = TaskManager(
        include_path=[str(include_path())], include_defaults=False, metadata=metadata
    )
    tracker = EvaluationTracker(output_path=str(output_path)) if output_path else None
    results = simple_evaluate(
        model="local-chat-completions",
        model_args={
            "model": "stub-model",
            "base_url": f"{server.base_url}/chat/completions",
            "num_concurrent": num_concurrent,
            "max_retries": 1,
        },
        tasks=tasks,
        task_manager=manager,
        apply_chat_template=True,
        log_samples=True,
        limit=limit,
        evaluation_tracker=tracker,
        **evaluate_args,
    )
    if tracker is not None:  # as lm-eval's CLI does after the run
        save_lm_eval_outputs(tracker, results)
    return results


# task-name prefix -> the adapter's function computing every metric from the outcome records
_ALL_METRICS = {
    "normad": "inspect_culture.lm_eval_tasks.normad.utils:all_metrics",
    "care": "inspect_culture.lm_eval_tasks.care.utils:all_metrics",
    "care_judge_agreement": "inspect_culture.lm_eval_tasks.care.human_agreement:all_metrics",
    "culturesynth": "inspect_culture.lm_eval_tasks.culturesynth.utils:all_metrics",
    "cqbench_ad": "inspect_culture.lm_eval_tasks.cqbench.utils:all_ad_metrics",
    "cqbench_vs": "inspect_culture.lm_eval_tasks.cqbench.utils:all_vs_metrics",
    "cqbench_ve": "inspect_culture.lm_eval_tasks.cqbench.ve:all_metrics",
}


def lm_eval_all_metrics(
    results: dict[str, Any], task: str, filter_name: str = "none"
) -> dict[str, float]:
    """`lm_eval_metrics` plus the breakdowns lm-eval's table leaves out (it shows the headline
    metrics only), computed as `culture-evals report` does: the benchmark's metric function over
    the outcome records of the run's samples."""
    from inspect_culture.benchmark_registry import import_dotted

    prefix = max((p for p in _ALL_METRICS if task.startswith(p)), key=len)
    samples = [s for s in results["samples"][task] if s["filter"] == filter_name]
    records = [s[s["metrics"][0]] for s in samples]
    return {
        **import_dotted(_ALL_METRICS[prefix])(records),
        **lm_eval_metrics(results, task, filter_name),
    }


def lm_eval_metrics(
    results: dict[str, Any], task: str, filter_name: str = "none"
) -> dict[str, float]:
    """`metric,<filter>` entries of one task, without stderr entries and absent (NaN) groups."""
    suffix = f",{filter_name}"
    return {
        key.removesuffix(suffix): value
        for key, value in results["results"][task].items()
        if key.endswith(suffix)
        and "_stderr" not in key
        and not (isinstance(value, float) and math.isnan(value))
    }

"""Run the same task through each harness against the stub server and return its metrics."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from inspect_culture.lm_eval_tasks import include_path
from tests.support.openai_stub import StubOpenAIServer


def inspect_eval_on_stub(task: Any, server: StubOpenAIServer, log_dir: Path) -> Any:
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
    )
    return log


def run_inspect_normad(
    server: StubOpenAIServer, log_dir: Path, **task_args: Any
) -> dict[str, float]:
    from inspect_culture.normad import normad

    log = inspect_eval_on_stub(normad(**task_args), server, log_dir)
    assert log.status == "success", log.error
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def run_lm_eval(
    server: StubOpenAIServer, tasks: list[str], metadata: dict[str, Any] | None = None
) -> dict[str, Any]:
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    # simple_evaluate ignores its own `metadata` when given a TaskManager: pass it here, as the
    # `lm_eval --metadata` command line does.
    manager = TaskManager(
        include_path=[str(include_path())], include_defaults=False, metadata=metadata
    )
    return simple_evaluate(
        model="local-chat-completions",
        model_args={
            "model": "stub-model",
            "base_url": f"{server.base_url}/chat/completions",
            "num_concurrent": 4,
            "max_retries": 1,
        },
        tasks=tasks,
        task_manager=manager,
        apply_chat_template=True,
        log_samples=True,
    )


def lm_eval_metrics(results: dict[str, Any], task: str) -> dict[str, float]:
    """`metric,none` entries of one task, without stderr entries and absent (NaN) groups."""
    metrics = {}
    for key, value in results["results"][task].items():
        if not key.endswith(",none") or "_stderr" in key:
            continue
        if isinstance(value, float) and math.isnan(value):
            continue
        metrics[key.removesuffix(",none")] = value
    return metrics

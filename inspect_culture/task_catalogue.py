"""Every task in both harnesses (`culture-evals list`), read from the registry and the YAML."""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from inspect_culture.benchmark_registry import benchmarks
from inspect_culture.lm_eval_tasks import include_path


@dataclass(frozen=True)
class TaskEntry:
    harness: str  # "inspect" | "lm-eval"
    name: str
    description: str
    kind: str = "task"  # "task" | "group"


class TaskYamlLoader(yaml.SafeLoader):
    """Reads task YAML leaving `!function` unresolved: readers want names and settings, not code."""


TaskYamlLoader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def all_tasks() -> tuple[TaskEntry, ...]:
    entries = [
        TaskEntry("inspect", f"inspect_culture/{task.name}", task.description)
        for benchmark in benchmarks()
        for task in benchmark.inspect_tasks
    ]
    # relative to the include path (one outside the package, like tests/' toy, is absolute)
    folders = [include_path() / benchmark.lm_eval_folder for benchmark in benchmarks()]
    for path in sorted(p for folder in folders for p in folder.glob("*.yaml")):
        config = yaml.load(path.read_text(encoding="utf-8"), Loader=TaskYamlLoader)
        kind = "group" if "group" in config else "task"
        entries.append(TaskEntry("lm-eval", config[kind], config[f"{kind}_alias"], kind))
    return tuple(entries)

"""What judged tasks learn from Inspect's public hooks (`inspect_adapter/eval_hooks.py`): the
eval's `--epochs-reducer` once a task starts, seen by a solver before any generation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspect_culture.inspect_adapter import eval_hooks


@pytest.mark.parametrize(("reducer", "expected"), [("max", ["max"]), (None, [])])
def test_a_solver_sees_the_evals_epochs_reducer(
    tmp_path: Path, reducer: str | None, expected: list[str]
) -> None:
    from inspect_ai import Epochs, Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import Generate, TaskState, solver

    seen: list[list[str]] = []

    @solver(name="tests_hooks/reducer_probe")
    def reducer_probe():  # type: ignore[no-untyped-def]
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            seen.append(eval_hooks.epochs_reducers())
            return state

        return solve

    eval_hooks.watch_judged_tasks()  # as building a judged task does (the test runs alone too)
    task = Task(dataset=[Sample(input="x", target="y")], solver=reducer_probe())
    epochs: Any = Epochs(1, reducer) if reducer else 1
    [log] = eval(task, model="mockllm/model", epochs=epochs, display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert seen == [expected]
    assert eval_hooks.epochs_reducers() == []  # outside an eval

"""benchmarks/full_scale.py's same-shaped Inspect floor and its goal lines: the floor gets one
task per task of ours (same name, same prompts), and each goal is printed met or missed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import full_scale  # noqa: E402
from full_scale import Run, goal_lines  # noqa: E402


def _pair(harness: str, benchmark: str, **ours: float) -> tuple[Run, Run]:
    floor = Run(harness, "floor", 10, wall=10.0, cpu=10.0, bytes_written=1000, first_request=5.0)
    mine = Run(harness, benchmark, 10, wall=10.0, cpu=10.0, bytes_written=1000, first_request=5.0)
    for name, value in ours.items():
        setattr(mine, name, value)
    return mine, floor


def test_each_goal_is_met_or_missed_beside_its_figure() -> None:
    rows = [
        _pair("inspect", "care", wall=10.5, cpu=11.5, bytes_written=1400, first_request=5.6),
        _pair("lm-eval", "normad", first_request=5.3),
    ]
    lines = [" ".join(line.split()) for line in goal_lines(rows, judge_later=True)]
    assert lines[:3] == [
        "inspect care wall 1.05x (goal: at most 1.10x) met",
        "inspect care CPU 1.15x (goal: at most 1.10x) missed",
        "inspect care log bytes 1.40x (goal: at most 1.50x) met",
    ]
    assert lines[3:] == [
        "lm-eval normad first request +0.30 s (goal: at most floor + 0.5 s) met",
        "inspect care first request +0.60 s (goal: at most floor + 0.5 s) missed",
    ]
    assert not any("culturesynth" in line for line in lines)  # not run: no line


def test_inspect_ratios_need_the_judge_taken_out() -> None:
    lines = goal_lines([_pair("inspect", "culturesynth")], judge_later=False)
    assert len(lines) == 3 and all("needs --inspect-judge-later" in line for line in lines)


@pytest.mark.slow
def test_the_inspect_floor_has_our_tasks_names_and_prompts(tmp_path: Path) -> None:
    """Two tasks of one name (as CARE's nine are all `care`) become two floor tasks, each
    sample's messages as the model received them (a system message stays one)."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import generate, system_message

    def task(prompts: list[str]) -> Task:
        samples = [Sample(input=p, target="x") for p in prompts]
        return Task(dataset=samples, solver=[system_message("Be brief."), generate()], name="t")

    eval([task(["a", "b"]), task(["c"])], model="mockllm/model", log_dir=str(tmp_path),
         display="none")  # fmt: skip
    shapes = full_scale.inspect_shapes(tmp_path)
    brief = ["system", "Be brief."]
    assert sorted((s["name"], sorted(s["prompts"])) for s in shapes) == [
        ("t", [[brief, ["user", "a"]], [brief, ["user", "b"]]]),
        ("t", [[brief, ["user", "c"]]]),
    ]


def test_the_lm_eval_floor_has_as_many_tasks_as_our_run(tmp_path: Path) -> None:
    """`--tasks normad` is a group of four tasks: the floor is a group of four too, the samples
    split evenly and sent in our order; lm-eval indexes it as one group."""
    from lm_eval.tasks import TaskManager

    prompts = [f"p{i}" for i in range(10)]
    folder = full_scale._floor_task(tmp_path / "floor", 10, prompts, tasks=4)
    rows = {
        name: [line.split('"')[3] for line in (folder / f"{name}.jsonl").read_text().splitlines()]
        for name in ("floor_gen_0", "floor_gen_1", "floor_gen_2", "floor_gen_3")
    }
    assert list(rows.values()) == [
        ["p0", "p1"],
        ["p2", "p3", "p4"],
        ["p5", "p6"],
        ["p7", "p8", "p9"],
    ]
    manager = TaskManager(include_path=[str(folder)], include_defaults=False)
    assert sorted(manager.all_groups) == ["floor_gen"]
    assert sorted(manager.all_subtasks) == sorted(rows)
    one = full_scale._floor_task(tmp_path / "one", 3, prompts)  # one task of ours: one task
    assert sorted(p.name for p in one.iterdir()) == ["floor_gen.jsonl", "floor_gen.yaml"]


def test_a_stopped_measurement_leaves_no_process_behind(tmp_path: Path) -> None:
    """Ctrl-C (or SIGTERM, which main turns into an exit) while a harness runs: the child and
    what it started are stopped, not left retrying against the stubs the script shut down."""
    import os
    import signal
    import time

    pidfile = tmp_path / "grandchild"
    child = (  # the harness's process starts one of its own, as `inspect eval` may
        "import subprocess, sys, time; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        f"open({str(pidfile)!r}, 'w').write(str(p.pid)); time.sleep(60)"
    )

    def interrupt(*_: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        with pytest.raises(KeyboardInterrupt):
            full_scale._measure(
                [sys.executable, "-c", child], dict(os.environ), Run("x", "y", 1), None
            )
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    grandchild = Path(f"/proc/{pidfile.read_text()}/stat")
    for _ in range(50):  # SIGKILL is delivered at once; a zombie (Z) is stopped too
        try:
            stat = grandchild.read_text(encoding="utf-8")
        except FileNotFoundError:  # reaped
            break
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"{grandchild.parent.name} still runs")

"""What a judged task learns from Inspect's public hooks (`inspect_ai.hooks`), never from its
stack: the eval's `--epochs-reducer` when a task starts (a task builder never sees it), and the
end of a task, where a run that scored nothing says so once (a metric cannot tell Inspect's live
display from the final computation)."""

from __future__ import annotations

import asyncio
import logging
import sys
import weakref

from inspect_ai.hooks import Hooks, TaskEnd, TaskStart, hooks
from inspect_ai.log import EvalLog

from inspect_culture.judging.reasons import HOW_TO_JUDGE, all_unscored_alarm, judge_later_note

log = logging.getLogger(__name__)

ALL_UNSCORED = "all_unscored"  # the metric a judged task reports when no sample was scored

# Each running eval's --epochs-reducer names, by its event loop (an eval runs in its own loop,
# and its tasks share the one flag): read by the first solver of a judged task.
_REDUCERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[str]] = (
    weakref.WeakKeyDictionary()
)
_SAID: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, set[str]] = weakref.WeakKeyDictionary()
# A judge_later run that scored nothing gets a calm note, not the alarm of a failed judge.
_judge_later_seen = False


def note_judge_later() -> None:
    global _judge_later_seen
    _judge_later_seen = True


def epochs_reducers() -> list[str]:
    """The running eval's `--epochs-reducer` names ([] when none was given, or outside one)."""
    try:
        return _REDUCERS.get(asyncio.get_running_loop(), [])
    except RuntimeError:
        return []


def first_time(what: str) -> bool:
    """True the first time the running eval asks about `what`."""
    said = _SAID.setdefault(asyncio.get_running_loop(), set())
    if what in said:
        return False
    said.add(what)
    return True


def say_if_nothing_scored(finished: EvalLog) -> None:
    """Once a judged task has ended: the alarm on stderr when no sample was scored (a
    judge_later run's note instead), nothing when any was."""
    global _judge_later_seen
    scores = finished.results.scores if finished.results else []
    if not any(ALL_UNSCORED in score.metrics for score in scores):
        return
    task = finished.eval.task.split("/")[-1]
    if _judge_later_seen:
        _judge_later_seen = False
        print(judge_later_note(task, HOW_TO_JUDGE["Inspect"]), file=sys.stderr, flush=True)
        return
    banner = all_unscored_alarm(task)
    log.info(banner)
    print(banner, file=sys.stderr, flush=True)


class JudgedTaskHooks(Hooks):
    async def on_task_start(self, data: TaskStart) -> None:
        _REDUCERS[asyncio.get_running_loop()] = list(data.spec.config.epochs_reducer or ())

    async def on_task_end(self, data: TaskEnd) -> None:
        say_if_nothing_scored(data.log)


_watching = False


def watch_judged_tasks() -> None:
    """Subscribe `JudgedTaskHooks` once a judged task is built, not when this package loads:
    Inspect loads our entry point for every eval, and names each hook subscribed by then on its
    first lines; an eval of ours gets the hooks all the same (they are looked up per event)."""
    global _watching
    if not _watching:
        _watching = True
        hooks(name="inspect_culture", description="inspect-culture's judged tasks")(JudgedTaskHooks)

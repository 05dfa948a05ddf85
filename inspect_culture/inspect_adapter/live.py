"""Live or final metrics, and the honest-exit banner. Inspect calls a metric with the same
arguments for its live display and for the log; only Inspect's internals tell them apart
(`compat.is_live_refresh`): if a release changes them, every computation is the final one."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Collection, Sized

from inspect_culture.inspect_adapter.compat import is_live_refresh
from inspect_culture.judging.reasons import HOW_TO_JUDGE, all_unscored_alarm, judge_later_note

log = logging.getLogger(__name__)
ALL_UNSCORED = "all_unscored"  # the metric a judged task reports when no sample was scored
# A judge_later run's final metrics get a calm note, not the alarm of a run whose judge failed
_judge_later_seen = False


def note_judge_later() -> None:
    global _judge_later_seen
    _judge_later_seen = True


def judged_metrics(
    task: str,
    scores: Sized,
    compute: Callable[..., dict[str, float]],
    dropped: Collection[str],
    bootstrap: bool = True,
) -> dict[str, float]:
    """A judged task's metrics less `dropped` (Inspect counts unscored samples itself), without
    bootstrap on a live refresh (cheap); none scored: `all_unscored` = 1, and said at the end."""
    global _judge_later_seen
    refresh = is_live_refresh()
    if not len(scores):
        if _judge_later_seen and not refresh:
            _judge_later_seen = False
            print(judge_later_note(task, HOW_TO_JUDGE["Inspect"]), file=sys.stderr, flush=True)
        elif not refresh:
            banner = all_unscored_alarm(task)
            log.info(banner)  # into the eval log's messages
            print(banner, file=sys.stderr, flush=True)
        return {"n_scored": 0.0, ALL_UNSCORED: 1.0}
    live = bootstrap and refresh
    values = compute(resamples=1) if live else compute()
    return {k: v for k, v in values.items() if k not in dropped and not (live and "_ci_" in k)}

"""A judged task's metrics in Inspect: the same full computation for Inspect's live display and
for the log (a metric cannot tell them apart without Inspect's internals, and the bootstrap of a
judged task costs milliseconds); a run that scored nothing says so once it ends (`eval_hooks`)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sized

ALL_UNSCORED = "all_unscored"  # the metric a judged task reports when no sample was scored


def judged_metrics(
    scores: Sized,
    compute: Callable[..., dict[str, float]],
    dropped: Collection[str],
) -> dict[str, float]:
    """A judged task's metrics less `dropped` (Inspect counts unscored samples itself); none
    scored: `all_unscored` = 1, which `eval_hooks` turns into the alarm when the task ends."""
    if not len(scores):
        return {"n_scored": 0.0, ALL_UNSCORED: 1.0}
    return {k: v for k, v in compute().items() if k not in dropped}

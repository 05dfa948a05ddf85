"""A second process that draws half of the report's figures.

Figures are a third of `culture-evals report`'s time (matplotlib's layout and its PNG and PDF
writers), while a second core sits idle. The helper starts with the command and imports
matplotlib while the runs are read, so it is warm when the tables are done. Anything that goes
wrong with it (no second core, no process to be had, a figure that cannot be pickled, a crash)
only means the command draws those figures itself: the files are the same either way. Only the
`culture-evals` command starts one (`cli.run`), never `cli.main()` called from Python: a spawned
process re-imports the caller's `__main__`, which a script without a `__main__` guard would run.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
from collections.abc import Callable, Sequence
from multiprocessing.pool import AsyncResult
from typing import Any

# a worker that died mid-figure never answers; after this long the command draws it itself
_LONGEST_FIGURE_S = 120


def _warm(modules: tuple[str, ...]) -> None:
    """Import what drawing needs and render once, so the first real figure pays no start-up."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    for module in modules:
        importlib.import_module(module)
    figure = Figure(figsize=(1, 1))
    FigureCanvasAgg(figure)
    figure.subplots().plot([0, 1])
    for kind in ("png", "pdf"):
        figure.savefig(io.BytesIO(), format=kind)


class DrawingHelper:
    """One warm worker process; `close()` it when the report is written."""

    def __init__(self, warm: Sequence[str] = ()) -> None:
        # spawn, not fork: the reader's threads (Inspect's async file access) must not be copied;
        # the process starts now and imports `warm` while the runs are read
        self._pool = multiprocessing.get_context("spawn").Pool(
            1, initializer=_warm, initargs=(tuple(warm),)
        )
        self._failed = False

    @classmethod
    def start(cls, warm: Sequence[str] = ()) -> DrawingHelper | None:
        """A helper where a second core can run it; None on one core or where no process can
        be started (no semaphores, a process limit): the command then draws every figure."""
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if (cores or 1) < 2:
            return None
        try:
            return cls(warm)
        except Exception:  # noqa: BLE001 (no helper is only slower)
            return None

    def submit(self, draw: Callable[..., Any], *args: Any) -> AsyncResult[Any] | None:
        """`draw(*args)` handed over (a module-level function, so it pickles by name), or None
        where the helper no longer takes work."""
        if self._failed:
            return None
        try:
            return self._pool.apply_async(draw, args)
        except Exception:  # noqa: BLE001 (a closed pool: `result` says so)
            return None

    def result(self, pending: AsyncResult[Any] | None) -> Any:
        """The figure drawn, or None where the helper failed (pickling, a crash, too slow). On the
        first failure the process is stopped, so it cannot still be writing a file that the
        command then draws itself, and every later figure is drawn by the command at once."""
        if pending is None or self._failed:
            return None
        try:
            return pending.get(timeout=_LONGEST_FIGURE_S)
        except Exception:  # noqa: BLE001 (the caller draws it itself)
            self._failed = True
            self._pool.terminate()
            return None

    def close(self) -> None:
        """Stops the process at once: whatever it had left is not needed."""
        self._pool.terminate()

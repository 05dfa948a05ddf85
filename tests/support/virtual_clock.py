"""An asyncio event loop on a virtual clock, for proofs that code under timers always ends.

When no callback is ready, the loop jumps its clock to the next timer instead of sleeping, so
an hour of Retry-After holds runs in milliseconds. When no callback is ready and no timer is
set, every task waits on something nothing will ever set: `Hang` is raised, where a real loop
would wait forever. `horizon` bounds the virtual time a run may take."""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class Hang(Exception):
    """Every task waits and nothing is scheduled that could wake one, or time ran out."""


class _JumpingSelector(selectors.SelectSelector):
    def __init__(self, loop: VirtualClockLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[Any]:
        if timeout is None:
            raise Hang(f"at t={self._loop.time():.3f} s every task waits and no timer is set")
        if timeout > 0:
            self._loop.advance(timeout)
        return super().select(0)


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """`time()` is virtual and only moves when the loop would otherwise sleep."""

    def __init__(self, horizon: float = float("inf")) -> None:
        self._virtual_now = 0.0
        self.horizon = horizon
        super().__init__(selector=_JumpingSelector(self))

    def time(self) -> float:
        return self._virtual_now

    def advance(self, seconds: float) -> None:
        self._virtual_now += seconds
        if self._virtual_now > self.horizon:
            raise Hang(f"still running at t={self._virtual_now:.1f} s, past {self.horizon:g} s")


def run_virtual(make: Coroutine[Any, Any, T], horizon: float = float("inf")) -> tuple[T, float]:
    """Run a coroutine on a fresh virtual-clock loop: its result and the virtual seconds taken."""
    loop = VirtualClockLoop(horizon)
    try:
        result = loop.run_until_complete(make)
        return result, loop.time()
    finally:
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.close()

"""Shared lm-eval plumbing: every declared metric receives the same per-doc outcome and one
cached call to the benchmark's metric function computes them all."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

AGG_PREFIX = "agg_"


def aggregation_resolver(
    metric_names: Sequence[str], compute: Callable[[list[tuple]], dict[str, float]]
) -> Callable[[str], Callable[[list[Any]], float]]:
    """A module `__getattr__` resolving `agg_<metric>` for `!function` references."""

    @lru_cache(maxsize=8)
    def cached(items: tuple[tuple, ...]) -> dict[str, float]:
        return compute(list(items))

    def aggregation(name: str) -> Callable[[list[Any]], float]:
        def aggregate(items: list[Any]) -> float:
            return cached(tuple(tuple(item) for item in items)).get(name, math.nan)

        aggregate.__name__ = f"{AGG_PREFIX}{name}"
        return aggregate

    names = set(metric_names)

    def module_getattr(attribute: str) -> Callable[[list[Any]], float]:
        if attribute.startswith(AGG_PREFIX) and attribute[len(AGG_PREFIX) :] in names:
            return aggregation(attribute[len(AGG_PREFIX) :])
        raise AttributeError(attribute)

    return module_getattr

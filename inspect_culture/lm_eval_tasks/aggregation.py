"""Shared lm-eval plumbing: each headline metric's `agg_<metric>` receives the same per-doc
outcome records, and one cached call to the benchmark's metric function computes them all."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any


def cached_metrics(
    compute: Callable[[list[Any]], dict[str, float]],
) -> Callable[[list[Any], str], float]:
    """`metric(items, name)`: `compute` runs once per task, not once per metric (the items are
    keyed by their JSON text); a name the items give no value for is NaN."""

    @lru_cache(maxsize=8)
    def cached(key: str) -> dict[str, float]:
        return compute(json.loads(key))

    def metric(items: list[Any], name: str) -> float:
        key = json.dumps(items, sort_keys=True, ensure_ascii=False)
        return cached(key).get(name, math.nan)

    return metric

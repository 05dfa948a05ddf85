"""Shared lm-eval plumbing: each headline metric's `agg_<metric>` receives the same per-doc
outcome records, and one cached call to the benchmark's metric function computes them all."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any


class OutcomeMetrics:
    """`compute` over the items as `outcome` records (or as they are, without `outcome`);
    `value(items, name)` runs it once per task, not once per metric (the items are keyed by
    their JSON text), and is NaN for a name the items give no value for."""

    def __init__(self, compute: Callable[[list[Any]], dict[str, float]], outcome: Any = None):
        self.compute, self.outcome = compute, outcome
        self._cached = lru_cache(maxsize=8)(lambda key: self(json.loads(key)))

    def __call__(self, items: list[Any]) -> dict[str, float]:
        return self.compute([self.outcome.from_record(i) for i in items] if self.outcome else items)

    def value(self, items: list[Any], name: str) -> float:
        key = json.dumps(items, sort_keys=True, ensure_ascii=False)
        return self._cached(key).get(name, math.nan)

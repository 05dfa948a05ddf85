"""Seeded percentile bootstrap, so an interval is reproducible from the same outputs."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0


# index elements drawn at once: (1000, 19,360) at once is 155 MB and five times slower
_CHUNK_ELEMENTS = 1 << 20
# The latest draws are kept (compactly), at most this many index elements in all: a seeded
# draw depends only on (size, resamples, seed), and a report bootstraps many statistics of the
# same questions, a few sizes in turn (NormAd's cells of 2,633 questions between its clusters'
# smaller ones, CultureSynth-7's rates of 16,594): drawing them was most of the bootstrap's
# time. 1 << 24 elements keep at most 32 MB.
_KEEP_ELEMENTS = 1 << 24
_kept: OrderedDict[tuple[int, int, Any, int], list[np.ndarray]] = OrderedDict()
_kept_lock = threading.Lock()  # a metric may bootstrap in any thread


def resampled(
    size: int,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> np.ndarray:
    """`statistic` of (k, size) resample indices, over `resamples` rows drawn in chunks: the
    seeded draws are the very ones a single (resamples, size) draw gives, in the same order."""
    return _resampled(size, statistic, resamples, seed, np.int64)


def _resampled(
    size: int,
    statistic: Callable[[np.ndarray], np.ndarray],
    resamples: int,
    seed: Any,
    kept_as: type | None,
) -> np.ndarray:
    """`resampled`; `kept_as`: the dtype a kept draw's chunks are given in (None: as kept, an
    unsigned type that serves only to index, and halves a mean's time: no int64 copy)."""
    rows = max(1, _CHUNK_ELEMENTS // max(size, 1))
    parts = [statistic(indices) for indices in _draws(size, resamples, seed, rows, kept_as)]
    return np.concatenate(parts) if parts else np.empty(0)


def _draws(
    size: int, resamples: int, seed: Any, rows: int, kept_as: type | None
) -> Iterator[np.ndarray]:
    """The seeded (<= rows, size) index chunks, int64 as `Generator.integers` draws them; the
    latest draws are kept (`_KEEP_ELEMENTS`) and given again: the same values, as `kept_as`."""
    key = (size, resamples, seed, rows)
    seeded = isinstance(seed, (int, np.integer))  # an unseeded draw is never the same
    with _kept_lock:
        if (kept := _kept.get(key) if seeded else None) is not None:
            _kept.move_to_end(key)
    if kept is not None:
        yield from (chunk if kept_as is None else chunk.astype(kept_as) for chunk in kept)
        return
    keep = seeded and 0 < size * resamples <= _KEEP_ELEMENTS
    compact = np.uint16 if size <= 1 << 16 else np.uint32  # indices are below `size`
    rng, chunks = np.random.default_rng(seed), []
    for start in range(0, resamples, rows):
        indices = rng.integers(0, size, size=(min(rows, resamples - start), size))
        if keep:
            chunks.append(indices.astype(compact))
        yield indices
    if keep:
        with _kept_lock:
            _kept[key] = chunks
            while sum(k[0] * k[1] for k in _kept) > _KEEP_ELEMENTS:
                _kept.popitem(last=False)  # the least recently used


def forget_kept_draw() -> None:
    """Draw afresh next time (a benchmark timing a cold report; memory back)."""
    with _kept_lock:
        _kept.clear()


def bootstrap_means(
    values: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """Means of `resamples` resamples (with replacement, same size) of `values`."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return np.empty(0)
    return _resampled(data.size, lambda indices: data[indices].mean(axis=1), resamples, seed, None)


def percentile_interval(statistics: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """Central `level` interval of bootstrap statistics (numpy's linear interpolation)."""
    if not 0 < level < 1:
        raise ValueError(f"level={level!r} must lie strictly between 0 and 1")
    data = np.asarray(statistics, dtype=float)
    if data.size == 0:
        return (float("nan"), float("nan"))
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(data, [tail, 100 - tail])
    return (float(low), float(high))


def bootstrap_mean_interval(
    values: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> tuple[float, float]:
    return percentile_interval(bootstrap_means(values, resamples=resamples, seed=seed))

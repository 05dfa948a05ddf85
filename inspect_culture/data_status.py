"""`culture-evals data info|verify`: each benchmark's source, mirror, cache and records."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_culture.benchmark_registry import Benchmark, benchmarks
from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError
from inspect_culture.datasets_hub.paths import DATA_DIR_ENV, MIRROR_RULE, mirror_dir
from inspect_culture.datasets_hub.resolve import (
    dataset_cache_path,
    locate,
    mirror_path,
    mirror_relpath,
)
from inspect_culture.datasets_hub.sources import PackagedSource


def _selected(names: Sequence[str] | None) -> list[Benchmark]:
    known = {b.name: b for b in benchmarks()}
    chosen = list(names) if names else list(known)
    if unknown := [name for name in chosen if name not in known]:
        raise SystemExit(f"unknown dataset(s): {', '.join(unknown)}; known: {', '.join(known)}")
    return [known[name] for name in chosen]


def data_info(names: Sequence[str] | None = None) -> str:
    lines = [f"offline mirror ({DATA_DIR_ENV}): {mirror_dir() or '(not set)'}"]
    for benchmark in _selected(names):
        source = benchmark.load_source()
        lines += [
            f"{benchmark.name}: {source.description}",
            f"  source:    {source.describe()}",
            f"  url:       {source.url()}",
            f"  license:   {source.license}",
        ]
        if isinstance(source, PackagedSource):  # no mirror, cache or download
            lines.append(f"  available: yes (packaged: {source.path('')}; {_row_count(benchmark)})")
            continue
        found = locate(source)  # under any of the names its mirror accepts
        rule = MIRROR_RULE[0].lower() + MIRROR_RULE[1:]
        if found:
            available = f"yes ({found.origin}: {found.path}; {_row_count(benchmark)})"
        elif mirror_dir() is None:
            available = "no (downloads on first use)"
        else:
            available = f"no (put {source.filename} at {mirror_path(source)}; {rule})"
        lines += [
            f"  mirror:    {mirror_path(source) or f'${DATA_DIR_ENV}/{mirror_relpath(source)}'}",
            f"  cache:     {dataset_cache_path(source)}",
            f"  available: {available}",
        ]
    return "\n".join(lines)


def _row_count(benchmark: Benchmark) -> str:
    try:
        return f"{benchmark.load_records().provenance['rows']} rows"
    except (DatasetUnavailableError, DataValidationError) as exc:
        return f"unreadable: {exc}"


def verify(names: Sequence[str] | None = None) -> tuple[str, bool]:
    """Load and validate every selected dataset (downloads only as `resolve_dataset_file` allows)."""
    lines, ok = [], True
    for benchmark in _selected(names):
        name = benchmark.name
        try:
            provenance = benchmark.load_records().provenance
        except (DatasetUnavailableError, DataValidationError) as exc:
            ok = False
            lines.append(f"{name}: FAILED\n  {exc}")
            continue
        lines.append(f"{name}: OK, with a warning" if "warning" in provenance else f"{name}: OK")
        lines += [f"  {key + ':':<10} {value}" for key, value in provenance.items()]
    return "\n".join(lines), ok

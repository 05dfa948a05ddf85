"""Text for `culture-evals data info|verify`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from inspect_culture.datasets_hub.care import load_care_all
from inspect_culture.datasets_hub.cqbench import load_cqbench_all
from inspect_culture.datasets_hub.culturesynth import load_culturesynth, locate_culturesynth
from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError
from inspect_culture.datasets_hub.loaded import LoadedDataset
from inspect_culture.datasets_hub.normad import load_normad
from inspect_culture.datasets_hub.paths import DATA_DIR_ENV, MIRROR_RULE, mirror_dir
from inspect_culture.datasets_hub.resolve import cache_path, locate, mirror_path, mirror_relpath
from inspect_culture.datasets_hub.sources import SOURCES, PackagedSource

LOADERS: dict[str, Callable[[], LoadedDataset]] = {
    "normad": load_normad,
    "care": load_care_all,
    "cqbench": load_cqbench_all,
    "culturesynth": load_culturesynth,
}


def _selected(names: Sequence[str] | None) -> list[str]:
    chosen = list(names) if names else list(SOURCES)
    unknown = [name for name in chosen if name not in SOURCES]
    if unknown:
        raise SystemExit(f"unknown dataset(s): {', '.join(unknown)}; known: {', '.join(SOURCES)}")
    return chosen


def data_info(names: Sequence[str] | None = None) -> str:
    root = mirror_dir()
    lines = [f"offline mirror ({DATA_DIR_ENV}): {root if root else '(not set)'}"]
    for name in _selected(names):
        source = SOURCES[name]
        lines += [
            f"{name}: {source.description}",
            f"  source:    {source.describe()}",
            f"  url:       {source.url()}",
            f"  license:   {source.license}",
        ]
        if isinstance(source, PackagedSource):  # no mirror, cache or download
            lines.append(f"  available: yes (packaged: {source.path('')}; {_row_count(name)})")
            continue
        # CultureSynth's mirror accepts more than the upstream file name.
        found = locate_culturesynth() if name == "culturesynth" else locate(source)
        available = (
            f"yes ({found.origin}: {found.path}; {_row_count(name)})" if found else _missing(name)
        )
        lines += [
            f"  mirror:    {mirror_path(source) or f'${DATA_DIR_ENV}/{mirror_relpath(source)}'}",
            f"  cache:     {cache_path(source)}",
            f"  available: {available}",
        ]
    return "\n".join(lines)


def _missing(name: str) -> str:
    source = SOURCES[name]
    if isinstance(source, PackagedSource) or mirror_dir() is None:
        return "no (downloads on first use)"
    rule = MIRROR_RULE[0].lower() + MIRROR_RULE[1:]
    return f"no (put {source.filename} at {mirror_path(source)}; {rule})"


def _row_count(name: str) -> str:
    try:
        return f"{LOADERS[name]().provenance['rows']} rows"
    except (DatasetUnavailableError, DataValidationError) as exc:
        return f"unreadable: {exc}"


def verify(names: Sequence[str] | None = None) -> tuple[str, bool]:
    """Load every selected dataset and validate every record; downloads only while
    `INSPECT_CULTURE_DATA_DIR` is unset and offline mode is off."""
    lines, ok = [], True
    for name in _selected(names):
        try:
            provenance = LOADERS[name]().provenance
        except (DatasetUnavailableError, DataValidationError) as exc:
            ok = False
            lines.append(f"{name}: FAILED\n  {exc}")
            continue
        lines.append(f"{name}: OK, with a warning" if "warning" in provenance else f"{name}: OK")
        lines += [f"  {key + ':':<10} {value}" for key, value in provenance.items()]
    return "\n".join(lines), ok

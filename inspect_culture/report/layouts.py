"""The tables of a report, in the papers' layouts: keys, columns and row groups. Published rows
(`published/*.json`) and the CSV name columns by these keys. Each benchmark's layouts live in
its report section (`report/tables/<benchmark>.py`); `LAYOUTS` gathers them from the registry."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from inspect_culture.report.model import Column


@dataclass(frozen=True)
class Layout:
    key: str
    benchmark: str
    title: str
    metric: str
    columns: tuple[Column, ...]
    group_label: str | None = None
    groups: tuple[str, ...] = ()  # allowed group keys, in print order
    group_labels: dict[str, str] | None = None
    secondary: bool = False
    decimals: int = 1


def all_layouts() -> dict[str, Layout]:
    """Every registered benchmark's layouts by key, in report order."""
    from inspect_culture.report.section import sections

    return {layout.key: layout for _, s in sections() for layout in s.layouts}


class _Layouts(Mapping[str, Layout]):
    """`all_layouts()` read on each use, so a benchmark registered later is found."""

    def __getitem__(self, key: str) -> Layout:
        return all_layouts()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(all_layouts())

    def __len__(self) -> int:
        return len(all_layouts())


LAYOUTS: Mapping[str, Layout] = _Layouts()

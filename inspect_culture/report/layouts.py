"""The tables of a report, in the papers' layouts: keys, columns and row groups. Published rows
(`published/*.json`) and the CSV name columns by these keys. Each benchmark's layouts live in
its report section (`report/tables/<benchmark>.py`); `section.all_layouts()` gathers them from the
registry."""

from __future__ import annotations

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

"""`culture-evals agreement`: each registry `agreement` module has `compare(a, b)` (the table and
the warnings) and may have `holds(path)` (whether `path` holds its runs)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from inspect_culture.benchmark_registry import benchmarks, import_dotted


def agreement_modules() -> dict[str, str]:
    return {b.name: b.agreement for b in benchmarks() if b.agreement}


def compare_runs(benchmark: str, a: str | Path, b: str | Path) -> tuple[str, list[str]]:
    """`auto`: the benchmark whose `holds` recognises A's runs, else the one that cannot tell."""
    modules = agreement_modules()
    if benchmark == "auto":
        tells = {
            name: getattr(import_dotted(module), "holds", None) for name, module in modules.items()
        }
        found = [name for name, holds in tells.items() if holds is not None and holds(a)]
        benchmark = (found or [name for name, holds in tells.items() if holds is None])[0]
    return import_dotted(modules[benchmark]).compare(a, b)


def decimal_cell(value: float, digits: int = 2) -> str:
    """A table cell: `value` to `digits` decimals; "-" where nothing was computed (NaN)."""
    return "-" if math.isnan(value) else f"{value:.{digits}f}"


def table_text(
    title: str, a: str, b: str, rows: Sequence[Sequence[str]], left: int, key: str
) -> str:
    """The printed comparison; the first `left` columns are left-aligned, the others right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            cell.ljust(width) if i < left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths))
        ).rstrip()
        for row in rows
    ]
    return "\n".join([title, f"A: {a}", f"B: {b}", "", *lines, "", key])


def judge_warnings(judge_a: str, judge_b: str, differ: int, who: str = "") -> list[str]:
    """What makes two runs compare more than their judges; `who` ("<target model>: ")."""
    warnings = [f"{who}both runs name the judge {judge_a}"] if judge_a == judge_b else []
    if differ:
        warnings.append(
            f"{who}the answers judged differ between the runs on {differ} question(s); the runs "
            "should differ only in the judge"
        )
    return warnings

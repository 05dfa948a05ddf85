"""`culture-evals agreement`: the benchmarks whose judged runs it compares, and the text table
both comparisons print. Each module named in `AGREEMENT` has `compare(a, b)`, returning the
table and the warnings; `holds(path)`, where present, says whether `path` holds its runs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from inspect_culture.registry import resolve

# benchmark -> module; `--benchmark auto` takes the first that holds A's runs, else the first.
AGREEMENT = {
    "culturesynth": "inspect_culture.run_files.culturesynth_agreement",
    "care": "inspect_culture.run_files.care_judge_agreement",
}


def agreement(benchmark: str, a: str | Path, b: str | Path) -> tuple[str, list[str]]:
    """The table comparing the judges of `a` and `b`, and the warnings to print after it."""
    if benchmark == "auto":
        found = (name for name in AGREEMENT if _holds(name, a))
        benchmark = next(found, next(iter(AGREEMENT)))
    return resolve(AGREEMENT[benchmark]).compare(a, b)


def _holds(benchmark: str, path: str | Path) -> bool:
    holds = getattr(resolve(AGREEMENT[benchmark]), "holds", None)
    return holds is not None and holds(path)


def number(value: float, digits: int = 2) -> str:
    return "-" if math.isnan(value) else f"{value:.{digits}f}"


def aligned(rows: Sequence[Sequence[str]], left: int) -> list[str]:
    """`rows` as text columns: the first `left` left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.ljust(width) if i < left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths))
        ).rstrip()
        for row in rows
    ]


def judge_warnings(judge_a: str, judge_b: str, differ: int, who: str = "") -> list[str]:
    """What makes two runs compare more than their judges: one judge named twice, answers that
    differ; `who` ("<target model>: ") says whose runs."""
    warnings = [f"{who}both runs name the judge {judge_a}"] if judge_a == judge_b else []
    if differ:
        warnings.append(
            f"{who}the answers judged differ between the runs on {differ} question(s); the runs "
            "should differ only in the judge"
        )
    return warnings

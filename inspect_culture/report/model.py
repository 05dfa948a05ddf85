"""What a report is made of: runs, tables of cells (value, 95% interval, n), warnings, skipped
inputs. Values are in display units (percent, rating scale), so every renderer prints the CSV's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class ReportDependencyError(RuntimeError):
    """A missing optional dependency of the report; the one-line message names the extra."""


@dataclass(frozen=True)
class Cell:
    """One number of a table; `None` where the run or the paper has none."""

    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int | None = None  # questions behind the value (stories for CQ-Bench VS)
    note: str | None = None  # printed in place of a missing value ("not recorded"), never 0

    @property
    def has_interval(self) -> bool:
        return self.ci_low is not None and self.ci_high is not None


@dataclass(frozen=True)
class Column:
    key: str  # stable: published rows and the CSV use it
    label: str  # as printed
    count: bool = False  # a count (printed as an integer, no interval), not a metric value


@dataclass(frozen=True)
class Row:
    """A model's numbers in one table: from the user's run(s), or published in a paper."""

    model: str  # display name; also the colour key of figures
    cells: Mapping[str, Cell]  # column key -> cell
    kind: str = "run"  # "run" | "published"
    harness: str | None = None  # "inspect" | "lm-eval"; None for published rows
    group: str | None = None  # a second row dimension (a context, a language, ...)
    setting: str = ""  # the run's settings in a few words (prompting, parser, judge, subset)
    source: str = ""  # published rows: "Paper (Author et al., year), Table N, p. M"
    runs: tuple[str, ...] = ()  # paths of the runs that fed this row


@dataclass(frozen=True)
class Table:
    """One table in a paper's layout. `rows` are in print order."""

    key: str  # file-safe id: a key of its benchmark's layouts
    benchmark: str  # the benchmark's title in the registry
    title: str
    metric: str  # what the cells hold, with its unit: "accuracy (%)"
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    group_label: str | None = None  # header of the `group` column, when rows have groups
    caption: str = ""  # how to read it: interval method, what n counts
    secondary: bool = False  # a supporting table (F1, unparsed rate, win/tie/loss ...)
    decimals: int = 1  # digits printed after the point (values and intervals)


# A generation-only run's judge: its cells are empty because nothing was judged, not because of
# a failing judge (docs/judge.md, judge_later)
NOT_JUDGED = "not judged (generation only)"


@dataclass(frozen=True)
class RunInfo:
    """What the report knows about one finished run, read from its results header."""

    path: Path
    harness: str  # "inspect" | "lm-eval"
    benchmark: str  # as `Table.benchmark`
    task: str  # the task as the harness names it: "<benchmark>", "<benchmark>_<variant>"
    setting: Mapping[str, Any]  # the parameters that define the numbers (context, language ...)
    model: str  # canonical: provider prefixes removed, so both harnesses name a model alike
    metrics: Mapping[str, float]  # the harness's own metric values, by our metric names
    samples: int | None  # questions scored or attempted, as the harness reports them
    limit: int | None = None  # --limit, when the run used one
    subset: str | None = None  # a documented subset (per_category=2, a language list ...)
    dataset: str | None = None  # "<repo>@<revision>"
    dataset_sha256: str | None = None
    dataset_rows: int | None = None
    judge: str | None = None  # the judge model, for judged benchmarks
    versions: Mapping[str, Any] = field(default_factory=dict)  # task, prompt and parser versions
    unscored: int | None = None  # samples left unscored (judge or parser gave nothing usable)
    records_source: Path | None = None  # where per-sample outcome records can be read
    rejudged: bool = False  # judge_repeats > 1: its intervals carry the judge's noise
    judges: tuple[str, ...] = ()  # each judge's model, in judge order (judge_1, judge_2, ...)
    judge_price: Any = None  # the judge_price the run recorded ("IN,OUT"), if any
    # lm-eval's totals by judge in its results file (`configs.<task>.metadata.judge_cost`): the
    # judge cost of a run written without --log_samples (its samples' records come first)
    judge_cost: Mapping[str, Mapping[str, int]] | None = None


@dataclass(frozen=True)
class Skipped:
    """An input the report could not use, and why, in one line."""

    path: Path
    reason: str
    by_design: bool = False  # a run of ours without a table: listed, not an error (exit 0)

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


@dataclass(frozen=True)
class Figure:
    key: str  # file stem under figures/
    title: str
    png: Path
    pdf: Path
    caption: str = ""


@dataclass
class Report:
    runs: list[RunInfo]
    tables: list[Table]
    warnings: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)

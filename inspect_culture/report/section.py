"""What the report needs of one benchmark: the `ReportSection` its registry entry's `report`
names, or a generic one (each run's headline metrics), so no other report module names one."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Any

from inspect_culture import benchmark_registry
from inspect_culture.benchmark_registry import Benchmark
from inspect_culture.report.model import Column, RunInfo, Table

TableBuilder = Callable[[Sequence[RunInfo], list[str]], list[Table]]
# (table, figures._Context) -> the saved figure; typed loosely so this module needs no figures
Drawer = Callable[[Table, Any], Any]
# (task, metadata, task_args) of an Inspect log
InspectReader = Callable[[str, Mapping[str, Any], Mapping[str, Any]], Any]
# (task, metadata) of an lm-eval task's config
LmEvalReader = Callable[[str, Mapping[str, Any]], Any]

# metadata the run's header reports apart (dataset, judge), not settings
_NOT_SETTINGS = {
    "dataset", "dataset_revision", "judge_model", "config_source", "provenance",
    "judge_cost", "jury_agreement",  # what an lm-eval run's judges cost and agreed: results
}  # fmt: skip


@dataclass(frozen=True)
class Layout:
    """One table in a paper's layout; published rows and the CSV name columns by their key."""

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


@dataclass(frozen=True)
class JurySpec:
    """A judged benchmark's "Judges" table: its key, the unit of a judge's mean, the kind of
    the judges' votes (`judging/jury_agreement.py`) and the scale of their means."""

    key: str
    unit: str
    votes: Any  # judging.jury_agreement.VoteKind
    scale: float = 1.0
    headline: str | None = None  # the metric whose interval re-judging widens (None: no interval)
    # each vote a judge can give, and its label: the rows and columns of the pairs table
    vote_values: tuple[float, ...] = ()
    vote_labels: tuple[str, ...] = ()

    @property
    def noise_key(self) -> str:
        """The key of the "Judge noise" table (re-judged runs; `tables/judges.py`)."""
        return f"{self.key.removesuffix('_judges')}_judge_noise"

    @property
    def pairs_key(self) -> str:
        """The key of the table (and heatmap) of each pair of judges' votes."""
        return f"{self.key.removesuffix('_judges')}_judge_pairs"


@dataclass(frozen=True)
class RecordSource:
    """Where a task family's outcome records sit: lm-eval's samples field `lm_eval_field`, Inspect's
    `Score.metadata` (or its `inspect_key`). `metrics` computes the breakdowns lm-eval lacks (the
    judge noise of a re-judged run too) over the records read back as `outcome`s."""

    prefix: str  # the task family: `task == prefix` or `task.startswith(prefix + "_")`
    lm_eval_field: str
    inspect_key: str | None = None
    metrics: Callable[[list[Any]], dict[str, float]] | None = None
    outcome: Any = None  # the spec's outcome type, with `from_record`

    def record_metrics(self, records: list[dict[str, Any]]) -> dict[str, float] | None:
        """`metrics` over the records as outcomes; None when the family has no `metrics`."""
        if self.metrics is None:
            return None
        return self.metrics([self.outcome.from_record(r) for r in records])


def generic_inspect_setting(
    task: str, metadata: Mapping[str, Any], task_args: Mapping[str, Any]
) -> dict[str, Any]:
    """Every task argument and metadata value but versions and provenance."""
    merged = {**metadata, **task_args}
    return {
        k: v for k, v in merged.items() if k not in _NOT_SETTINGS and not k.endswith("_version")
    }


def generic_lm_eval_setting(task: str, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The task name (it fixes the variant in lm-eval) and the `--metadata` values."""
    return {"task": task, **generic_inspect_setting(task, metadata, {})}


@dataclass(frozen=True)
class ReportSection:
    """One benchmark's part of the report."""

    # (runs of every benchmark, warnings) -> its tables; None: the generic table of its layout
    tables: TableBuilder | None
    layouts: tuple[Layout, ...] = ()
    published: str | None = None  # its papers' rows: a file name under report/published/
    figures: tuple[tuple[str, Drawer], ...] = ()  # (table key, drawer), in report order
    records: tuple[RecordSource, ...] = ()
    inspect_without_table: Mapping[str, str] = field(default_factory=dict)  # task -> why
    lm_eval_without_table: tuple[str, ...] = ()  # task-name prefixes
    inspect_setting: InspectReader = generic_inspect_setting
    inspect_subset: InspectReader = lambda task, metadata, task_args: None
    lm_eval_setting: LmEvalReader = generic_lm_eval_setting
    lm_eval_subset: LmEvalReader = lambda task, metadata: None
    judged: bool = False  # a judge model scores it, so runs with different judges differ
    jury: JurySpec | None = None  # its "Judges" table, for runs a jury judged
    generation: str = ""  # "module:GENERATION" of its spec; "" = greedy decoding

    def temperature(self) -> float | None:
        """The answers' sampling temperature, read only when a warning needs it."""
        return (
            benchmark_registry.import_dotted(self.generation).temperature
            if self.generation
            else None
        )


def pairs_figure(spec: JurySpec, heatmap: Callable[..., Any], name: str) -> tuple[str, Drawer]:
    """A jury's heatmap of each pair of judges' votes (`figures.heatmap`), from its pairs table;
    `name`: the benchmark as the title says it."""
    return figure(
        spec.pairs_key,
        heatmap,
        key=spec.pairs_key,
        title=f"{name}: each pair of judges' votes",
        what="Share (%) of the votes two judges both gave, by the first judge's vote (rows) and "
        "the second's (columns), one panel per pair and run; agreement lies on the diagonal.",
    )


def figure(table: str, kind: Callable[..., Any], **options: Any) -> tuple[str, Drawer]:
    """A section's figure: `kind` (`figures.bars` ...) with its options, drawn from `table`."""
    return table, partial(kind, **options)


def section(benchmark: Benchmark) -> ReportSection:
    """The benchmark's own section, or the generic one."""
    if benchmark.report:
        found = benchmark_registry.import_dotted(benchmark.report)
        if not isinstance(found, ReportSection):
            raise TypeError(f"{benchmark.report} is not a ReportSection")
        return found
    return generic_section(benchmark)


def sections() -> list[tuple[Benchmark, ReportSection]]:
    """Every benchmark with its section, in the registry's (the report's) order."""
    return [(b, section(b)) for b in benchmark_registry.benchmarks()]


def section_of(title: str) -> ReportSection | None:
    """The section of the benchmark a run or table names (`RunInfo.benchmark`)."""
    return next((s for b, s in sections() if b.title == title), None)


def inspect_owner(task: str) -> tuple[Benchmark, ReportSection] | None:
    """The benchmark one of whose Inspect tasks is `task`; None for a task not ours."""
    owner = next(
        (b for b in benchmark_registry.benchmarks() if task in b.inspect_task_names()), None
    )
    return None if owner is None else (owner, section(owner))


def lm_eval_owner(task: str) -> tuple[Benchmark, ReportSection] | None:
    """The benchmark whose lm-eval task names `task` starts with (the longest such name)."""
    owners = [
        b
        for b in benchmark_registry.benchmarks()
        if task == b.name or task.startswith(b.name + "_")
    ]
    owner = max(owners, key=lambda b: len(b.name), default=None)
    return None if owner is None else (owner, section(owner))


@cache
def generic_section(benchmark: Benchmark) -> ReportSection:
    """A table of each run's own headline metrics; no published rows, no figures."""
    layout = Layout(
        benchmark.name,
        benchmark.title,
        f"{benchmark.title}: each run's own metrics",
        "score",
        (),
        decimals=3,
    )
    return ReportSection(
        tables=None,
        layouts=(layout,),
        judged=bool(benchmark.judge_scorers or benchmark.lm_eval_judged),
    )


COST_SUFFIX = "_judge_cost"  # the key of a judged benchmark's "Judge cost" table


def judge_cost_key(benchmark: Benchmark) -> str:
    """The key of the benchmark's "Judge cost" table (`tables/judge_cost.py`): `care_judge_cost`."""
    return f"{benchmark.name}{COST_SUFFIX}"


def _cost_layout(benchmark: Benchmark) -> Layout:
    """The "Judge cost" table's layout: a row per run and judge; its columns are the table's."""
    title = f"{benchmark.title}: judge cost"
    metric = "judge calls and tokens (counts); cost in the price's currency"
    return Layout(
        judge_cost_key(benchmark),
        benchmark.title,
        title,
        metric,
        (),
        group_label="Judge",
        secondary=True,
        decimals=4,
    )


def all_layouts() -> dict[str, Layout]:
    """Every benchmark's layouts by key, in report order; read on each call for late ones."""
    every = sections()
    found = {layout.key: layout for _, s in every for layout in s.layouts}
    juries = [(b.title, s.jury) for b, s in every if s.jury]
    found |= {jury.key: _judges_layout(title, jury) for title, jury in juries}
    found |= {jury.noise_key: _noise_layout(title, jury) for title, jury in juries if jury.headline}
    found |= {
        jury.pairs_key: _pairs_layout(title, jury) for title, jury in juries if jury.vote_values
    }
    found |= {judge_cost_key(b): _cost_layout(b) for b, s in every if s.judged}
    return found


def _pairs_layout(benchmark: str, spec: JurySpec) -> Layout:
    """Each pair of judges' votes as a cross-table: rows the first judge's, columns the second's."""
    title = f"{benchmark}: each pair of judges' votes"
    columns = tuple(Column(label, label) for label in spec.vote_labels)
    return Layout(
        spec.pairs_key,
        benchmark,
        title,
        "share of the votes both judges gave (%)",
        columns,
        group_label="First judge's vote",
        groups=spec.vote_labels,
        secondary=True,
        decimals=1,
    )


def _noise_layout(benchmark: str, spec: JurySpec) -> Layout:
    """The "Judge noise" table's layout: a re-judged run's interval with and without the judge."""
    title = f"{benchmark}: how much of the interval judging makes"
    columns = (
        Column("with_judge", "With the judge's noise"),
        Column("questions_only", "Questions only"),
        Column("judge_share", "Judge share of width (%)"),
        Column("judge_variance_share", "Judge share of variance (%)"),
        Column("rejudged_needed", "Re-judged answers to separate", count=True),
    )
    return Layout(spec.noise_key, benchmark, title, spec.unit, columns, secondary=True, decimals=2)


def _judges_layout(benchmark: str, spec: JurySpec) -> Layout:
    """The "Judges" table's layout; its columns follow the largest jury (`tables/judges.py`)."""
    title = f"{benchmark}: the judges of each jury"
    return Layout(spec.key, benchmark, title, spec.unit, (), secondary=True, decimals=2)

"""The one list of benchmarks, read by every module that needs "all benchmarks". Entries name
their parts by dotted path, so reading the list imports no benchmark (`lm_eval --tasks care_zh`
loads CARE's modules only). Parts: docs/architecture.md; toy entries: tests/extend, tests/report."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


def import_dotted(path: str) -> Any:
    """`package.module:attribute` (or `package.module`) to the object; imports on demand."""
    module, _, attribute = path.partition(":")
    found = importlib.import_module(module)
    return getattr(found, attribute) if attribute else found


@dataclass(frozen=True)
class InspectTask:
    """One `@task` of a benchmark's Inspect task file, as `culture-evals list` shows it."""

    name: str
    description: str
    module: str = ""  # the task file, when not the benchmark's `inspect_module`


@dataclass(frozen=True)
class JudgedFamily:
    """Judged lm-eval tasks (names matching `pattern`): `module` holds `judge_filter`,
    `process_results`, `agg_<metric>`; a constrained judge is probed with `probe_format`."""

    pattern: str
    module: str
    label: str
    probe_format: str
    probe_args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Benchmark:
    name: str  # the key of its source, its folders and its report section
    title: str  # as the papers name it
    source: str  # "module:ATTRIBUTE" of its upstream source
    load_all: str  # "module:function" returning every record as one LoadedDataset
    inspect_tasks: tuple[InspectTask, ...]
    package: str = ""  # its folder; "" = inspect_culture.benchmarks.<name>
    inspect_module: str = ""  # its Inspect task file; "" = inspect_culture.<name>
    lm_eval_folder: str = ""  # under the lm-eval include path; "" = <name>
    lm_eval_options: tuple[str, ...] = ()  # the `--metadata` keys its lm-eval tasks read
    lm_eval_judged: tuple[JudgedFamily, ...] = ()
    judge_scorers: tuple[str, ...] = ()  # Inspect scorers `inspect score --scorer` may name
    report: str = ""  # "module:ATTRIBUTE" of its report section; "" = the generic one
    # the module `culture-evals agreement` compares two judges' runs with: `compare(a, b)`, and
    # `holds(path)` when `--benchmark auto` can tell its runs apart
    agreement: str = ""
    contract: str = ""  # "module:ATTRIBUTE" of its SimpleBenchmark: the generic adapters run it

    def __post_init__(self) -> None:
        for part, default in (
            ("package", f"inspect_culture.benchmarks.{self.name}"),
            ("inspect_module", f"inspect_culture.{self.name}"),
            ("lm_eval_folder", self.name),
        ):
            if not getattr(self, part):
                object.__setattr__(self, part, default)

    def load_source(self) -> Any:
        return import_dotted(self.source)

    def load_records(self) -> Any:
        return import_dotted(self.load_all)()

    def simple(self) -> Any:
        """Its `SimpleBenchmark` (benchmarks/contract.py), for the generic adapters."""
        from inspect_culture.benchmarks.contract import SimpleBenchmark

        found = import_dotted(self.contract) if self.contract else None
        if not isinstance(found, SimpleBenchmark):
            raise ValueError(f"{self.name}: its registry entry names no SimpleBenchmark contract")
        return found

    def inspect_task_names(self) -> tuple[str, ...]:
        return tuple(task.name for task in self.inspect_tasks)

    def inspect_objects(self) -> dict[str, Any]:
        """Its Inspect tasks and judge scorers by name (imports its task files)."""
        tasks = [(t.name, t.module or self.inspect_module) for t in self.inspect_tasks]
        scorers = [(name, self.inspect_module) for name in self.judge_scorers]
        return {name: import_dotted(f"{module}:{name}") for name, module in tasks + scorers}


_BENCHMARKS: dict[str, Benchmark] = {}


def register(benchmark: Benchmark) -> Benchmark:
    """Add a benchmark (the four below register here; a test registers a toy fifth)."""
    if benchmark.name in _BENCHMARKS and _BENCHMARKS[benchmark.name] != benchmark:
        raise ValueError(f"a different benchmark named {benchmark.name!r} is registered")
    _BENCHMARKS[benchmark.name] = benchmark
    return benchmark


def unregister(name: str) -> None:
    _BENCHMARKS.pop(name, None)


def benchmarks() -> tuple[Benchmark, ...]:
    return tuple(_BENCHMARKS.values())


def benchmark(name: str) -> Benchmark:
    """The benchmark named `name`; unknown names are refused with the known ones."""
    try:
        return _BENCHMARKS[name]
    except KeyError:
        raise ValueError(f"unknown benchmark {name!r}; known: {', '.join(_BENCHMARKS)}") from None


for _entry in (
    Benchmark(
        name="normad",
        title="NormAd-ETI",
        source="inspect_culture.benchmarks.normad.source:NORMAD",
        load_all="inspect_culture.benchmarks.normad.data:load_normad",
        inspect_tasks=(
            InspectTask(
                "normad",
                "NormAd-ETI yes/no/neutral etiquette judgments; -T context=rot|value_country|"
                "country|none -T parser=strict|upstream",
            ),
        ),
        lm_eval_options=("context", "parser"),
        report="inspect_culture.report.tables.normad:SECTION",
    ),
    Benchmark(
        name="care",
        title="CARE",
        source="inspect_culture.benchmarks.care.data:CARE",
        load_all="inspect_culture.benchmarks.care.data:load_care_all",
        inspect_tasks=(
            InspectTask(
                "care",
                "CARE culture questions rated 1-10 by an LLM judge (--model-role grader=...); "
                "-T language=zh|ar|ja -T prompting=zero_shot|cot|role_play",
            ),
            InspectTask(
                "care_judge_agreement",
                "Evaluates a judge: rates CARE's human-rated responses, reports "
                "Pearson/Spearman/Kendall vs humans; -T language=zh|ar|ja",
                module="inspect_culture.care_agreement",
            ),
        ),
        lm_eval_options=("judge_mapping", "per_category", "language", "prompting", "jury_rule"),
        lm_eval_judged=(
            JudgedFamily(
                r"care_[a-z]{2}(_cot|_role_play)?",
                "inspect_culture.lm_eval_tasks.care.utils",
                "CARE",
                "inspect_culture.benchmarks.care.judging:care_rating_format",
            ),
        ),
        judge_scorers=("care_judge",),
        report="inspect_culture.report.tables.care:SECTION",
        agreement="inspect_culture.run_files.care_judge_comparison",
    ),
    Benchmark(
        name="culturesynth",
        title="CultureSynth-7",
        source="inspect_culture.benchmarks.culturesynth.source:CULTURESYNTH",
        load_all="inspect_culture.benchmarks.culturesynth.data:load_culturesynth",
        inspect_tasks=(
            InspectTask(
                "culturesynth",
                "CultureSynth-7 net win rate vs a baseline model, pairwise judge with the "
                "reference (--model-role grader=... and --model-role baseline=... or "
                "-T baseline_responses=FILE); -T language=zh -T swap=false",
            ),
            InspectTask(
                "culturesynth_answers",
                "CultureSynth-7 answers only (run the baseline model, then "
                "`culture-evals baseline export`)",
            ),
        ),
        lm_eval_options=("language", "baseline_responses", "swap", "seed"),
        lm_eval_judged=(
            JudgedFamily(
                r"culturesynth_(?!answers_)[a-z]+",
                "inspect_culture.lm_eval_tasks.culturesynth.utils",
                "CultureSynth-7",
                "inspect_culture.benchmarks.culturesynth.judging:pairwise_verdict_format",
            ),
        ),
        judge_scorers=("culturesynth_judge",),
        report="inspect_culture.report.tables.culturesynth:SECTION",
        agreement="inspect_culture.run_files.culturesynth_judge_comparison",
    ),
    Benchmark(
        name="cqbench",
        title="CQ-Bench",
        source="inspect_culture.benchmarks.cqbench.source:CQBENCH",
        load_all="inspect_culture.benchmarks.cqbench.data:load_cqbench_all",
        inspect_tasks=(
            InspectTask(
                "cqbench_ad",
                "CQ-Bench attitude detection; -T setting=random|political|social|religious|"
                "ethical|multiple -T reasoning=true -T shots=1 -T merged=true "
                "-T prompt_fidelity=upstream",
            ),
            InspectTask(
                "cqbench_vs",
                "CQ-Bench value selection (15 options); -T setting=... -T reasoning=true "
                "-T shots=1 -T skip_empty=true",
            ),
            InspectTask(
                "cqbench_ve",
                "CQ-Bench value extraction (two-step, judge-scored recall; --model-role "
                "grader=...); -T setting=...",
            ),
        ),
        lm_eval_options=(
            *("setting", "ve_summaries", "reasoning", "shots", "merged", "prompt_fidelity"),
            *("skip_empty", "judge_constraint"),
        ),
        lm_eval_judged=(
            JudgedFamily(
                r"cqbench_ve_(?!summary_)[a-z]+",
                "inspect_culture.lm_eval_tasks.cqbench.ve",
                "CQ-Bench VE",
                "inspect_culture.benchmarks.cqbench.judging:ve_scores_format",
                (2,),
            ),
        ),
        judge_scorers=("cqbench_ve_judge",),
        report="inspect_culture.report.tables.cqbench:SECTION",
    ),
):
    register(_entry)

"""`culture-evals report`: runs, tables, comparability warnings (none dropped), figures, files."""

from __future__ import annotations

import gc
import importlib.util
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from inspect_culture.judging.usage import Price
from inspect_culture.report.inputs import read_runs
from inspect_culture.report.model import Cell, Report, ReportDependencyError, Row, RunInfo, Table
from inspect_culture.report.published import published_settings
from inspect_culture.report.records import with_damage_named
from inspect_culture.report.render import write_outputs
from inspect_culture.report.section import COST_SUFFIX, section_of
from inspect_culture.report.tables import build_tables
from inspect_culture.report.tables.common import describe, of_benchmark

INSTALL = "pip install 'inspect-culture[report]'"
# what each output needs beyond the core dependencies
_NEEDS = {"figures": ("matplotlib",), "html": ("jinja2", "matplotlib"), "md": ("matplotlib",)}


def check_dependencies(formats: Sequence[str]) -> None:
    """Before reading anything: one line naming the missing extra."""
    if missing := sorted(
        {m for f in formats for m in _NEEDS.get(f, ()) if importlib.util.find_spec(m) is None}
    ):
        raise ReportDependencyError(
            f"the report's {', '.join(f for f in formats if f in _NEEDS)} output needs "
            f"{' and '.join(missing)}: {INSTALL}"
        )


def build_report(inputs: Sequence[str | Path], judge_price: Price | None = None) -> Report:
    """The report of the runs among `inputs`; `judge_price` prices every run's judge tokens
    (`--judge-price`; else each run's own judge_price, if it recorded one)."""
    with cycle_collector_paused():
        runs, skipped = read_runs(inputs)
        notes: list[str] = []
        runs = with_damage_named(runs, notes)  # a damaged samples line costs only itself
        tables = build_tables(runs, notes, judge_price)
        return Report(runs, tables, comparability_warnings(runs, tables) + notes, skipped)


@contextmanager
def cycle_collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused (reference counting frees as ever): a report
    makes millions of objects that live until it ends (every sample's record), and the
    collector's repeated passes over them were 15-20% of a full-scale report's CPU. On
    leaving, what was made joins the oldest generation unscanned (`gc.freeze`, `unfreeze`):
    resuming costs no pass over it, and a later full collection still frees any cycle."""
    if not gc.isenabled():  # paused already (an outer report call), or by the caller
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:  # leave anything someone else froze as it is
            gc.freeze()
            gc.unfreeze()
        gc.enable()


def needs_figures(formats: Sequence[str]) -> bool:
    """HTML and Markdown show the figures, so they draw them too."""
    return bool({"figures", "html", "md"} & set(formats))


def write_report(report: Report, out_dir: Path, formats: Sequence[str]) -> dict[str, Path]:
    """The outputs asked for."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with cycle_collector_paused():
        if needs_figures(formats):
            from inspect_culture.report.figures import draw_figures

            report.figures = draw_figures(report.tables, out_dir / "figures")
        written = write_outputs(report, out_dir, formats)
    if report.figures:
        written["figures"] = out_dir / "figures"
    return written


_TOLERANCE = 1e-6


def comparability_warnings(runs: Sequence[RunInfo], tables: Sequence[Table]) -> list[str]:
    """Where numbers side by side differ in judge, data, versions, subset, harness or settings."""
    warnings: list[str] = []
    for benchmark in dict.fromkeys(run.benchmark for run in runs):
        warnings += _differences(benchmark, of_benchmark(runs, benchmark))
    for table in tables:
        if table.key.endswith(COST_SUFFIX):  # a cached reply costs one run nothing, not another
            continue
        warnings += _harness_disagreements(table) + _published_differences(table, runs)
    return list(dict.fromkeys(warnings))


def _differences(benchmark: str, runs: Sequence[RunInfo]) -> list[str]:
    # each setting (a language, a context) reads its own file: files compare within one only
    by_setting: dict[str, list[RunInfo]] = defaultdict(list)
    for run in runs:
        by_setting[_setting(run)].append(run)
    sha256 = [
        w
        for group in by_setting.values()
        if (
            w := _spread(
                benchmark, "dataset file (sha256)", group, lambda r: (r.dataset_sha256 or "")[:12]
            )
        )
    ]
    checks: list[tuple[str, Callable[[RunInfo], object]]] = [
        ("dataset revision", lambda r: r.dataset),
        ("subset or --limit", _coverage),
    ]
    if _judged(benchmark):
        checks.insert(0, ("judge", lambda r: r.judge))
    # a version is compared among the runs that recorded it (older lm-eval YAML did not)
    versions = sorted({k for r in runs for k in r.versions})
    checks += [(v, lambda r, v=v: r.versions.get(v)) for v in versions]
    return sha256 + [w for name, key in checks if (w := _spread(benchmark, name, runs, key))]


def _setting(run: RunInfo) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(run.setting.items()) if k != "aggregate")


def _coverage(run: RunInfo) -> str:
    return describe(run, {}) or "full"  # no settings: the subset and limit alone


def _spread(
    benchmark: str, what: str, runs: Iterable[RunInfo], key: Callable[[RunInfo], object]
) -> str | None:
    """One warning when the runs take more than one value of `key` (unknown values ignored)."""
    by_value: dict[str, list[RunInfo]] = defaultdict(list)
    for run in runs:
        value = key(run)
        if value not in (None, ""):
            by_value[str(value)].append(run)
    if len(by_value) < 2:
        return None
    listed = "; ".join(
        f"{value} ({', '.join(dict.fromkeys(f'{r.model} [{r.harness}; {_setting(r)}]' for r in group))})"
        for value, group in sorted(by_value.items())
    )
    return (
        f"{benchmark}: the runs differ in {what}: {listed}. Their rows are not directly comparable."
    )


def _harness_disagreements(table: Table) -> list[str]:
    """The same model, group and setting in both harnesses with different numbers."""
    pairs: dict[tuple[object, ...], dict[str, Row]] = defaultdict(dict)
    for row in table.rows:
        if row.kind == "run" and row.harness:
            pairs[(row.model, row.group, row.setting)][row.harness] = row
    warnings = []
    for (model, group, _), rows in pairs.items():
        if not {"inspect", "lm-eval"} <= rows.keys():
            continue
        differing = []
        for column in table.columns:
            a, b = (rows[h].cells.get(column.key, Cell(None)).value for h in ("inspect", "lm-eval"))
            if a is None or b is None or math.isclose(a, b, rel_tol=_TOLERANCE, abs_tol=_TOLERANCE):
                continue
            differing.append(
                f"{column.label} {a:.{table.decimals}f} (Inspect) vs "
                f"{b:.{table.decimals}f} (lm-eval)"
            )
        if differing:
            where = f" [{group}]" if group else ""
            warnings.append(
                f"{table.title}: {model}{where} differs between the harnesses: "
                f"{'; '.join(differing)}. {_expectation(table.benchmark)}"
            )
    return warnings


def _judged(benchmark: str) -> bool:
    section = section_of(benchmark)
    return section is not None and section.judged


def _expectation(benchmark: str) -> str:
    """Sampled answers (temperature above 0) may differ between runs; greedy ones should not."""
    section = section_of(benchmark)
    temperature = section.temperature() if section is not None else None
    if temperature:
        return (
            f"{benchmark} samples its answers (temperature {temperature}), so two runs answer "
            "differently and their numbers should agree within the intervals, not exactly."
        )
    return (
        "Greedy decoding on the same model and data should give the same numbers: check that "
        "both runs used the same model revision, settings and dataset."
    )


def _published_differences(table: Table, runs: Sequence[RunInfo]) -> list[str]:
    fed = {path for row in table.rows if row.kind == "run" for path in row.runs}
    used = [r for r in runs if r.benchmark == table.benchmark and str(r.path) in fed]
    if not used or not any(row.kind == "published" for row in table.rows):
        return []
    paper = published_settings(table.key)
    warnings = []
    judges = paper.get("judge", ())
    if judges and _judged(table.benchmark):
        ours = sorted({r.judge for r in used if r.judge})
        if foreign := [j for j in ours if not any(_same_model(j, p) for p in judges)]:
            warnings.append(
                f"{table.title}: the published rows were judged by {', '.join(judges)}; your "
                f"runs by {', '.join(foreign)}. Judge ratings from different judges are not "
                "directly comparable."
            )
    if partial := sorted(
        {f"{r.model} [{r.harness}] ({_coverage(r)})" for r in used if _coverage(r) != "full"}
    ):
        warnings.append(
            f"{table.title}: these runs cover part of the test set, the published rows all of "
            f"it: {', '.join(partial)}."
        )
    promptings = paper.get("prompting", ())
    ours = sorted({str(r.setting["prompting"]) for r in used if r.setting.get("prompting")})
    known = {_plain(p) for p in promptings}
    if promptings and ours and any(_plain(p) not in known for p in ours):
        warnings.append(
            f"{table.title}: the published rows used {', '.join(promptings)} prompting; your "
            f"runs used {', '.join(ours)}."
        )
    return warnings


def _same_model(ours: str, theirs: str) -> bool:
    a, b = _plain(ours), _plain(theirs)
    return a == b or a.endswith(b) or b.endswith(a)


def _plain(name: str) -> str:
    return "".join(ch for ch in name.lower().rsplit("/", 1)[-1] if ch.isalnum())

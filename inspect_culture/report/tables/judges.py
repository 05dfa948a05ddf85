"""A benchmark's "Judges" tables: for each run a jury judged, each judge's mean and failures and
how far the judges agree (`judging/jury_agreement.py`, the function both harnesses use); for each
re-judged run, its interval with and without the judge's noise (`judging/noise.py`)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from inspect_culture.judging.jury import JURY_KEY
from inspect_culture.judging.jury_agreement import AGREEMENT_LABEL, AGREEMENT_NAME, jury_metrics
from inspect_culture.judging.noise import NOT_SEPARABLE, not_separable_text
from inspect_culture.report.model import Cell, Column, RunInfo, Table
from inspect_culture.report.records import with_record_metrics
from inspect_culture.report.section import JurySpec
from inspect_culture.report.tables.common import Rows, of_benchmark, records_or_warn, table


def judges_tables(
    benchmark: str, spec: JurySpec, all_runs: Sequence[RunInfo], warnings: list[str]
) -> list[Table]:
    """One row per jury-judged run (Inspect's own metrics; lm-eval's from its samples)."""
    rows, most = Rows(), 0
    for run in of_benchmark(all_runs, benchmark):
        figures = dict(run.metrics) if run.harness == "inspect" else _from_records(run, spec)
        if (judges := int(figures.get("n_judges") or 0)) < 2:
            continue
        most = max(most, judges)
        builder = rows.get(run, None, run.judge or "")
        for k in range(1, judges + 1):
            builder.put(f"judge_{k}_mean", Cell(figures.get(f"judge_{k}_mean")), run)
            builder.put(f"judge_{k}_n_failed", Cell(figures.get(f"judge_{k}_n_failed")), run)
        builder.put("agreement", Cell(figures.get(AGREEMENT_NAME[spec.votes])), run)
    if not most:
        return []
    columns = tuple(
        column
        for k in range(1, most + 1)
        for column in (
            Column(f"judge_{k}_mean", f"Judge {k}"),
            Column(f"judge_{k}_n_failed", f"Judge {k} failed", count=True),
        )
    ) + (Column("agreement", AGREEMENT_LABEL[spec.votes]),)
    caption = (
        f"Each judge's mean ({spec.unit}) over the samples it scored, and the samples it did "
        f"not; {AGREEMENT_LABEL[spec.votes]} between the judges over the same answers (1: "
        "perfect agreement, 0: chance). Judge k is the k-th judge of the run's jury (the setting "
        'column names them in order; docs/judge.md, "Juries").'
    )
    return table(spec.key, rows, caption, columns=columns)


def _from_records(run: RunInfo, spec: JurySpec) -> dict[str, float]:
    records = records_or_warn(run, []) or []
    return jury_metrics([r.get(JURY_KEY) for r in records], spec.votes, spec.scale)


def judge_noise_tables(
    benchmark: str, spec: JurySpec, all_runs: Sequence[RunInfo], warnings: list[str]
) -> list[Table]:
    """One row per re-judged run: the headline metric with its two-level interval, with its
    questions-only interval, and the share of the width and of the variance judging makes;
    where the judge's noise is not separable from the question spread (`judging/noise.py`), no
    share but the re-judged answers that would separate them, and a warning in those words."""
    if spec.headline is None:
        return []
    name, rows = spec.headline, Rows()
    for run in of_benchmark(all_runs, benchmark):
        figures = run.metrics
        if f"{name}_ci_questions_only_low" not in figures and run.rejudged:  # lm-eval: records
            records = records_or_warn(run, warnings)
            figures = with_record_metrics(run, records).metrics if records else figures
        if f"{name}_ci_questions_only_low" not in figures:
            continue
        value, builder = figures[name], rows.get(run, None, run.judge or "")
        both = Cell(value, figures[f"{name}_ci_low"], figures[f"{name}_ci_high"])
        builder.put("with_judge", both, run)
        if (share := figures.get(f"{name}_ci_judge_share")) is None:
            needed = figures.get(f"{name}_judge_noise_rejudged_needed")
            builder.put("rejudged_needed", Cell(needed), run)
            model = f"{run.model} ({run.harness})"
            warnings.append(f"{benchmark} {name} of {model}: {not_separable_text(needed)}")
            continue
        questions = (figures[f"{name}_ci_questions_only_{end}"] for end in ("low", "high"))
        builder.put("questions_only", Cell(value, *questions), run)
        builder.put("judge_share", Cell(100.0 * share), run)
        variance = figures.get(f"{name}_ci_judge_variance_share", 1.0 - (1.0 - share) ** 2)
        builder.put("judge_variance_share", Cell(100.0 * variance), run)
    caption = (
        f"Runs that judged answers more than once (judge_repeats): the {name} with its 95% "
        "interval from a two-level bootstrap (questions, then judgings within a question), "
        "the interval from the questions alone, and the share judging makes of the width and "
        "of the variance (a share w of the width is 1 - (1 - w)^2 of the variance). Where the "
        f"judge's noise reaches the spread of the {name} over the questions, {NOT_SEPARABLE}: "
        "no share is shown, and the last column says about how many re-judged answers would "
        'separate them (docs/judge.md, "Judged again").'
    )
    return table(spec.noise_key, rows, caption)


def judge_pairs_tables(
    benchmark: str, spec: JurySpec, all_runs: Sequence[RunInfo], warnings: list[str]
) -> list[Table]:
    """For each run a jury judged and each pair of its judges (in judge order), the share of
    the votes both gave, by the first judge's vote (row group) and the second's (column)."""
    if not spec.vote_values:
        return []
    labels = dict(zip(spec.vote_values, spec.vote_labels, strict=True))
    rows = Rows()
    for run in of_benchmark(all_runs, benchmark):
        if run.harness == "inspect" and int(run.metrics.get("n_judges") or 0) < 2:
            continue  # Inspect's metrics say it had no jury: its samples are not read
        records = records_or_warn(run, []) or []  # the main table warns of unreadable ones
        for (a, b), counts in _pair_counts([r.get(JURY_KEY) for r in records], labels).items():
            total = sum(counts.values())
            for first in spec.vote_labels:
                builder = rows.get(run, first, f"judge {a} x judge {b}")
                for second in spec.vote_labels:
                    share = 100.0 * counts[first, second] / total
                    builder.put(second, Cell(share), run)
    caption = (
        "Each pair of a jury's judges: the share (%) of the votes both gave, by the first "
        "judge's vote (rows) and the second's (columns); agreement lies on the diagonal. A "
        "vote either judge did not give is left out."
    )
    return table(spec.pairs_key, rows, caption)


def _pair_counts(
    juries: Sequence[Any], labels: Mapping[float, str]
) -> dict[tuple[int, int], Counter[tuple[str, str]]]:
    """Per pair of judge positions (1-based, in judge order), how often they voted each pair of
    labels on the same answer (same vote position); a missing or unknown vote is left out."""
    pairs: dict[tuple[int, int], Counter[tuple[str, str]]] = defaultdict(Counter)
    for jury in juries:
        if not isinstance(jury, Mapping):
            continue
        votes = [list(j.get("votes") or []) for j in (jury.get("judges") or {}).values()]
        for a, b in combinations(range(len(votes)), 2):
            for va, vb in zip(votes[a], votes[b]):
                if va is None or vb is None:
                    continue
                la, lb = labels.get(float(va)), labels.get(float(vb))
                if la is not None and lb is not None:
                    pairs[a + 1, b + 1][la, lb] += 1
    return {pair: counts for pair, counts in sorted(pairs.items()) if counts}

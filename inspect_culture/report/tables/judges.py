"""A benchmark's "Judges" table: for each run a jury judged, each judge's mean and failures and
how far the judges agree (`judging/jury_agreement.py`, the function both harnesses use)."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_culture.judging.jury import JURY_KEY
from inspect_culture.judging.jury_agreement import AGREEMENT_NAME, VoteKind, jury_metrics
from inspect_culture.report.model import Cell, Column, RunInfo, Table
from inspect_culture.report.section import JurySpec
from inspect_culture.report.tables.common import Rows, of_benchmark, records_or_warn, table

_AGREEMENT_LABEL: dict[VoteKind, str] = {
    "interval": "Krippendorff's alpha",
    "nominal": "Fleiss' kappa",
}


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
    ) + (Column("agreement", _AGREEMENT_LABEL[spec.votes]),)
    caption = (
        f"Each judge's mean ({spec.unit}) over the samples it scored, and the samples it did "
        f"not; {_AGREEMENT_LABEL[spec.votes]} between the judges over the same answers (1: "
        "perfect agreement, 0: chance). Judge k is the k-th judge of the run's jury (the setting "
        'column names them in order; docs/judge.md, "Juries").'
    )
    return table(spec.key, rows, caption, columns=columns)


def _from_records(run: RunInfo, spec: JurySpec) -> dict[str, float]:
    records = records_or_warn(run, []) or []
    return jury_metrics([r.get(JURY_KEY) for r in records], spec.votes, spec.scale)

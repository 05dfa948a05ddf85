"""`results.csv`: every number of the report in tidy form and full precision, to re-plot."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from inspect_culture.report.model import Report
from inspect_culture.report.render import common

FIELDS = (
    "benchmark",
    "table",
    "model",
    "kind",
    "harness",
    "setting",
    "group",
    "metric",
    "metric_label",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "unit",
    "source",
    "runs",
)


def _number(value: float | None) -> str:
    """Shortest text that reads back as the same float (`repr`)."""
    return "" if value is None else repr(float(value))


def records(report: Report) -> Iterator[dict[str, str]]:
    """The CSV lines as dicts: cells without a value are left out, not written empty."""
    for section in common.sections(report):
        for table in section.tables:
            for row in table.rows:
                for col in table.columns:
                    cell = row.cells.get(col.key)
                    if cell is None or cell.value is None:
                        continue
                    yield {
                        "benchmark": table.benchmark,
                        "table": table.key,
                        "model": row.model,
                        "kind": row.kind,
                        "harness": row.harness or "",
                        "setting": row.setting,
                        "group": row.group or "",
                        "metric": col.key,
                        "metric_label": col.label,
                        "value": str(int(round(cell.value))) if col.count else _number(cell.value),
                        "ci_low": "" if col.count else _number(cell.ci_low),
                        "ci_high": "" if col.count else _number(cell.ci_high),
                        "n": "" if cell.n is None else str(cell.n),
                        "unit": "count" if col.count else table.metric,
                        "source": row.source,
                        "runs": ";".join(row.runs),
                    }


def write_csv(report: Report, path: Path) -> Path:
    """Write `results.csv` at `path` (UTF-8, parents created); returns `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(records(report))
    return path

"""The writers of `culture-evals report`: HTML, Markdown, LaTeX and a tidy full-precision CSV."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from inspect_culture.report.model import Report
from inspect_culture.report.render import common
from inspect_culture.report.render.html import write_html
from inspect_culture.report.render.latex import write_latex
from inspect_culture.report.render.markdown import write_markdown

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
    for section in common.tables_by_benchmark(report):
        for table in section.tables:
            for row in table.rows:
                for col in table.columns:
                    if (cell := row.cells.get(col.key)) is None or cell.value is None:
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


WRITERS: dict[str, tuple[str, Callable[[Report, Path], Path]]] = {
    "html": ("report.html", write_html),
    "md": ("report.md", write_markdown),
    "tex": ("tables.tex", write_latex),
    "csv": ("results.csv", write_csv),
}
FORMATS = (*WRITERS, "figures")


def _known(formats: Iterable[str]) -> tuple[str, ...]:
    """`formats`, refused when one is outside `FORMATS` rather than silently skipped."""
    names = tuple(formats)
    if unknown := [name for name in names if name not in FORMATS]:
        raise ValueError(
            f"unknown report format(s): {', '.join(unknown)}; allowed: {', '.join(FORMATS)}"
        )
    return names


def parse_formats(text: str) -> tuple[str, ...]:
    """`--format html,md` as ("html", "md"): case and spaces ignored, repeats dropped."""
    names = list(dict.fromkeys(part.strip().lower() for part in text.split(",") if part.strip()))
    if not names:
        raise ValueError(f"no report format given; allowed: {', '.join(FORMATS)}")
    return _known(names)


def write_outputs(report: Report, out_dir: Path, formats: Iterable[str]) -> dict[str, Path]:
    """Write each requested format into `out_dir`; "figures" is left to the caller."""
    formats = _known(formats)  # refused before anything is written
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for name in formats:
        if name in WRITERS and name not in written:
            filename, writer = WRITERS[name]
            written[name] = writer(report, out_dir / filename)
    return written

"""The output writers of `culture-evals report`: HTML, Markdown, LaTeX and CSV."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from inspect_culture.report.model import Report
from inspect_culture.report.render.csv import write_csv
from inspect_culture.report.render.html import write_html
from inspect_culture.report.render.latex import write_latex
from inspect_culture.report.render.markdown import write_markdown

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
    unknown = [name for name in names if name not in FORMATS]
    if unknown:
        raise ValueError(
            f"unknown report format(s): {', '.join(unknown)}; allowed: {', '.join(FORMATS)}"
        )
    return names


def parse_formats(text: str) -> tuple[str, ...]:
    """`--format html,md` as ("html", "md"): case and spaces ignored, repeats dropped."""
    names = [part.strip().lower() for part in text.split(",")]
    names = list(dict.fromkeys(name for name in names if name))
    if not names:
        raise ValueError(f"no report format given; allowed: {', '.join(FORMATS)}")
    return _known(names)


def write_outputs(report: Report, out_dir: Path, formats: Iterable[str]) -> dict[str, Path]:
    """Write each requested format into `out_dir`; "figures" is left to the caller."""
    formats = _known(formats)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for name in formats:
        if name in WRITERS and name not in written:
            filename, writer = WRITERS[name]
            written[name] = writer(report, out_dir / filename)
    return written

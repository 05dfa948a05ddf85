"""The one formatting of a table cell. Every writer (HTML, Markdown, LaTeX) prints a cell from
these pieces, so a number reads the same in each output and matches the CSV to `decimals`.

Text form: ``72.4 [68.1, 76.5] (n=120)``; a missing value is ``–``; a count column prints an
integer with neither interval nor n.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspect_culture.report.model import Cell, Column

MISSING = "–"  # en dash: the run or the paper has no number here


@dataclass(frozen=True)
class CellParts:
    """A cell cut into the pieces a writer may style apart (value, interval, n)."""

    value: str  # "72.4", "-3.0", "12" (counts) or MISSING
    interval: str | None = None  # "[68.1, 76.5]"
    n: str | None = None  # "n=120"

    @property
    def missing(self) -> bool:
        return self.value == MISSING

    @property
    def text(self) -> str:
        """The plain-text form used by Markdown and anywhere styling is not available."""
        return " ".join(
            p for p in (self.value, self.interval, f"({self.n})" if self.n else None) if p
        )


def format_number(value: float, decimals: int) -> str:
    """`value` with `decimals` digits; never "-0.0", which reads as a sign the data lacks."""
    text = f"{value:.{decimals}f}"
    if text.startswith("-") and float(text) == 0:
        text = text[1:]
    return text


def cell_parts(cell: Cell | None, column: Column, decimals: int) -> CellParts:
    """The pieces of one cell; `None` (the row has no cell for the column) reads as missing."""
    if cell is None or cell.value is None:
        return CellParts(MISSING)
    if column.count:
        return CellParts(str(int(round(cell.value))))  # whole, even when stored as a float
    interval = None
    if cell.has_interval:
        low = format_number(cell.ci_low, decimals)  # type: ignore[arg-type]
        high = format_number(cell.ci_high, decimals)  # type: ignore[arg-type]
        interval = f"[{low}, {high}]"
    n = f"n={cell.n}" if cell.n is not None else None
    return CellParts(format_number(cell.value, decimals), interval, n)


def format_cell(cell: Cell | None, column: Column, decimals: int) -> str:
    """The plain-text cell: ``72.4 [68.1, 76.5] (n=120)``."""
    return cell_parts(cell, column, decimals).text

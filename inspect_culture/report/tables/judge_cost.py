"""A judged benchmark's "Judge cost" table: for each run and each of its judges, the judge's
model, the calls it answered, those the cache answered (0 new tokens), the prompt and completion
tokens the provider reported, and the cost when a price is known. Read alike from both
harnesses' per-sample token records (`records.judge_tokens`, `judging/usage.py`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from inspect_culture.judging.cache import JudgeConfigError
from inspect_culture.judging.usage import Price, cost, parse_price
from inspect_culture.report.model import NOT_JUDGED, Cell, Column, RunInfo, Table
from inspect_culture.report.records import RecordsUnavailable, judge_tokens
from inspect_culture.report.tables.common import Rows, describe, of_benchmark, table

NOT_RECORDED = "not recorded"  # a run made before judges' tokens were recorded: never 0
COUNTS = (
    Column("calls", "Calls", count=True),
    Column("cached", "Cached (0 new tokens)", count=True),
    Column("prompt_tokens", "Prompt tokens", count=True),
    Column("completion_tokens", "Completion tokens", count=True),
)
UNREPORTED = Column("unreported", "Replies without a token count", count=True)
COST = Column("cost", "Cost")
_JUDGE_NUMBER = re.compile(r"judge_(\d+)")


def judge_cost_tables(
    key: str,
    benchmark: str,
    all_runs: Sequence[RunInfo],
    warnings: list[str],
    price: Price | None = None,
) -> list[Table]:
    """One row per judged run and judge; `price` (`--judge-price`) before the run's own."""
    rows, priced, unreported = Rows(), False, False
    for run in of_benchmark(all_runs, benchmark):
        if run.judge in (None, NOT_JUDGED):
            continue  # nothing judged: nothing spent
        try:
            totals = judge_tokens(run)
        except RecordsUnavailable as exc:
            warnings.append(f"{benchmark} judge cost of {run.model} ({run.harness}): {exc}")
            totals = None
        run_price = price or _recorded_price(run, benchmark, warnings)
        setting = _setting(run, run_price)
        if totals is None:
            builder = rows.get(run, run.judge or "", setting)
            for column in COUNTS:
                builder.put(column.key, Cell(None, note=NOT_RECORDED), run)
            continue
        for name, tokens in sorted(totals.items(), key=lambda item: _number(item[0])):
            builder = rows.get(run, _judge_label(run, name, len(totals)), setting)
            for column in (*COUNTS, UNREPORTED):
                builder.put(column.key, Cell(float(tokens.get(column.key, 0))), run)
            unreported = unreported or bool(tokens.get("unreported"))
            if run_price is not None:
                builder.put(COST.key, Cell(cost(tokens, run_price)), run)
                priced = True
    columns = (*COUNTS, *((UNREPORTED,) if unreported else ()), *((COST,) if priced else ()))
    caption = (
        "Each judge's calls to its provider, the replies the judge cache answered (no call, 0 "
        "new tokens), and the prompt and completion tokens the provider reported, summed over "
        "the run's samples and judgings; the cost is at the price given with --judge-price, "
        "else the run's own judge_price (per million prompt and completion tokens, in the "
        f"price's currency; the setting names it). {NOT_RECORDED.capitalize()}: a run made "
        "before judges' tokens were recorded."
    )
    return table(key, rows, caption, columns=columns)


def _recorded_price(run: RunInfo, benchmark: str, warnings: list[str]) -> Price | None:
    """The judge_price the run recorded; a malformed one is a warning (no cost shown)."""
    if run.judge_price in (None, ""):
        return None
    try:
        return parse_price(run.judge_price, "judge_price")
    except JudgeConfigError as exc:
        warnings.append(f"{benchmark} judge cost of {run.model} ({run.harness}): {exc}")
        return None


def _setting(run: RunInfo, price: Price | None) -> str:
    """The run's settings (as its benchmark names them alike in both harnesses), scope and
    the price its cost is at."""
    every = {name: None for name in sorted(run.setting) if name != "aggregate"}  # None: unset
    parts = [describe(run, every)]
    parts += [f"price {price.text()} per million"] if price is not None else []
    return "; ".join(part for part in parts if part)


def _judge_label(run: RunInfo, name: str, judges: int) -> str:
    """The judge's model (`judge 2: <model>` in a jury), as the run recorded its judges."""
    number = _number(name)
    if not 0 < number <= len(run.judges):
        return name  # a judge the run did not name: as its record names it
    model = run.judges[number - 1]
    return model if judges == 1 and len(run.judges) <= 1 else f"judge {number}: {model}"


def _number(name: str) -> int:
    """`judge_2` -> 2 (judge order); 0 for a name of another form."""
    match = _JUDGE_NUMBER.fullmatch(name)
    return int(match[1]) if match else 0

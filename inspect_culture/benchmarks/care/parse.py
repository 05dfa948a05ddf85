"""CARE verdicts (`rating-2`): the judge's one `[[n]]`, else None (unscored, never 0); two ratings
are ambiguous, so one planted in the answer cannot win (`rating-1` took the last)."""

from __future__ import annotations

import re
from typing import NamedTuple

_NUMBER = r"\s*(\d+(?:\.\d+)?)\s*"
_BRACKETED = re.compile(r"\[\[" + _NUMBER + r"\]\]")

NO_RATING = "no parsable rating in the judge output"
AMBIGUOUS = "ambiguous verdict"


class JudgedRating(NamedTuple):
    rating: float | None
    reason: str | None  # why it is unscored, in words


def read_rating(text: str | None) -> JudgedRating:
    """The judge's one rating within 1-10, or None and why."""
    distinct = sorted({float(value) for value in _BRACKETED.findall(text or "")})
    if not distinct:
        return JudgedRating(None, NO_RATING)
    if len(distinct) > 1:
        shown = ", ".join(f"{value:g}" for value in distinct)
        return JudgedRating(None, f"{AMBIGUOUS}: the judge output has different ratings ({shown})")
    value = distinct[0]
    return JudgedRating(value, None) if 1.0 <= value <= 10.0 else JudgedRating(None, NO_RATING)


def parse_rating(text: str | None) -> float | None:
    """The judge's one rating (`[[n]]`, 1 <= n <= 10, any repeats equal), else None."""
    return read_rating(text).rating


def judge_record(judge_text: str | None, error: str | None = None) -> JudgedRating:
    """One judge reply (or the reason the call failed) as a rating, shared by both harnesses."""
    return JudgedRating(None, error) if error else read_rating(judge_text)

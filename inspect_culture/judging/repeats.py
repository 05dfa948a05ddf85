"""Re-judging: the same answers judged again, so the interval can say how much of its width the
judge makes (`judging/noise.py`). Written once, so both harnesses pick the same answers, send
the same seeds and combine alike.

- `judge_repeats=k` judges each chosen answer k times; judging r sends the judge seed plus r-1,
  so each is its own request (and its own judge-cache entry).
- `rejudge_fraction=f` chooses about a fraction f of the answers, by a hash of the sample id: the
  same answers in both harnesses and in every run, whatever order the samples come in.
- A re-judged answer's value combines its judgings by the benchmark's jury rule (a jury's whole
  judging is repeated, each judging combined first); its judgings' values are kept in the
  outcome record (`judgments`) for the interval, and the first judging's jury details for the
  agreement between judges.
With k=1 nothing is repeated, and nothing is recorded."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_culture.judging.jury import JURY_KEY, JuryJudging, each_reason, jury_outcome
from inspect_culture.judging.protocol import Item, Judged, JudgeReply
from inspect_culture.judging.usage import as_number

JUDGMENTS_FIELD = "judgments"  # the outcome record's values of each judging (None: failed)
REPEATS_KEY = "repeats"  # the sample's details: each judging's value and reason
MAX_REPEATS = 20


@dataclass(frozen=True)
class Repeats:
    """How often answers are judged: k judgings of the chosen fraction, once for the rest."""

    k: int = 1
    fraction: float = 1.0

    def of(self, sample_id: object) -> int:
        """The judgings of one answer: k when the sample is chosen, else one."""
        return self.k if self.k > 1 and chosen(sample_id, self.fraction) else 1

    def calls(self, sample_ids: Iterable[object]) -> int:
        """Judgings in all of these answers (each judging makes the benchmark's judge requests)."""
        return sum(self.of(i) for i in sample_ids)

    def settings(self) -> dict[str, Any]:
        """What a run records of its re-judging (nothing without it)."""
        if self.k == 1:
            return {}
        return {"judge_repeats": self.k, "rejudge_fraction": self.fraction}


ONCE = Repeats()  # every answer judged once: no re-judging


def check_repeats(judge_repeats: object = 1, rejudge_fraction: object = 1.0) -> Repeats:
    """The options, checked once for both harnesses; ValueError names the allowed values."""
    text = judge_repeats.strip() if isinstance(judge_repeats, str) else None
    if text is not None and text.isascii() and text.isdigit():  # "²".isdigit() is true
        judge_repeats = int(text)
    if (
        isinstance(judge_repeats, bool)
        or not isinstance(judge_repeats, int)
        or not 1 <= judge_repeats <= MAX_REPEATS
    ):
        raise ValueError(
            f"judge_repeats={judge_repeats!r}: must be a whole number from 1 (judge once, the "
            f"default) to {MAX_REPEATS}"
        )
    fraction = _fraction(rejudge_fraction)
    if fraction < 1.0 and judge_repeats == 1:
        raise ValueError(
            f"rejudge_fraction={rejudge_fraction!r} re-judges nothing with judge_repeats=1: set "
            "judge_repeats to 2 or more"
        )
    return Repeats(judge_repeats, fraction)


def _fraction(value: object) -> float:
    fraction = as_number(value)
    if not 0.0 < fraction <= 1.0:
        raise ValueError(
            f"rejudge_fraction={value!r}: must be a number above 0 and at most 1 (the share of "
            "answers judged judge_repeats times; 1, the default, is every answer)"
        )
    return fraction


def chosen(sample_id: object, fraction: float) -> bool:
    """Whether a sample is among the re-judged fraction: its id's SHA-256 read as a number in
    [0, 1), below `fraction` (the same answers whatever the harness, order or process)."""
    if fraction >= 1.0:
        return True
    digest = hashlib.sha256(str(sample_id).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < fraction


def repeat_seed(seed: int | None, judging: int) -> int | None:
    """The judge seed of judging r (from 1): the run's seed plus r-1; None stays None."""
    return None if seed is None else seed + judging - 1


def judgings_outcome(
    judging: JuryJudging,
    item: Item,
    answer: str | None,
    per_judging: Sequence[Mapping[str, Sequence[JudgeReply]]],
    rule: str,
) -> Judged:
    """The answer's outcome from every judging's replies (each a jury's, or a lone judge's,
    by judge name): each judging combined as a jury's (`jury.jury_outcome`), then the judgings
    (`repeated_outcome`). Both harnesses call this, so they score alike."""
    outcomes = [jury_outcome(judging, item, answer, replies, rule) for replies in per_judging]
    return repeated_outcome(judging, item, answer, outcomes, rule)


def repeated_outcome(
    judging: JuryJudging, item: Item, answer: str | None, per_judging: Sequence[Judged], rule: str
) -> Judged:
    """The answer's outcome from its judgings: one is returned as it is; several combine by the
    benchmark's jury rule, each judging's value kept (`judgments`), the first one's jury."""
    if len(per_judging) == 1:
        return per_judging[0]
    named = {f"judging {r}": j for r, j in enumerate(per_judging, 1)}
    combined = judging.combine(item, answer, named, rule)
    values = [j.value for j in per_judging]
    reason = combined.reason
    if combined.value is None:
        reason = f"none of its {len(values)} judgings scored it ({each_reason(named)})"
    details = dict(combined.details)
    if JURY_KEY in per_judging[0].details:
        details[JURY_KEY] = per_judging[0].details[JURY_KEY]
    details[REPEATS_KEY] = {
        "n_judgings": len(values),
        "n_failed": sum(1 for v in values if v is None),
        "values": values,
        "reasons": [j.reason for j in per_judging],
    }
    return Judged({**combined.record, JUDGMENTS_FIELD: values}, combined.value, reason, details)

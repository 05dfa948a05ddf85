"""A jury of judges (PoLL: Verga et al. 2024, "Replacing Judges with Juries"): every judge
answers the same judge requests, each judge's outcome is computed as a lone judge's would be,
and the benchmark's rule combines them. Written once, so both harnesses combine alike.

The rules (docs/judge.md, "Juries"):
- a rating (CARE): the mean of the judges' ratings, or their median (`jury_rule="median"`);
- a pairwise game (CultureSynth-7): per answer order, the verdict more judges gave than any
  other; a split with no verdict ahead is a tie;
- a per-value score (CQ-Bench VE): per gold value, the score a strict majority of its judges
  gave, else their lower median (a value half the jury calls recalled is not recalled).
A judge that failed on a sample is left out of that sample's vote and counted; a sample no judge
scored stays unscored, with each judge's reason."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from inspect_culture.benchmarks.choices import BenchmarkOptionError
from inspect_culture.judging.cache import open_cache
from inspect_culture.judging.protocol import Item, Judged, JudgeReply, Judging
from inspect_culture.judging.usage import (
    HasRepeats,
    Price,
    VerdictLength,
    estimate_text,
    reference_estimate,
    verdict_length,
)

GRADER_ROLE = "grader"  # Inspect's judge role; a jury adds grader_2, grader_3, ...
# Inspect's role of the model whose answers CultureSynth-7's are judged against
BASELINE_ROLE = "baseline"
_JURY_ROLE = re.compile(r"grader_([2-9]|[1-9][0-9]+)")
RATING_RULES = ("mean", "median")
DEFAULT_RATING_RULE = "mean"
JURY_KEY = "jury"  # the sample's details: each judge's value, votes and reason, and the counts

_V = TypeVar("_V", bound=Hashable)


class JuryJudging(Judging, Protocol):
    """A benchmark's judging that a jury can share: what each judge voted, and the combination."""

    def votes(self, judged: Judged) -> list[Any]: ...

    def combine(
        self, item: Item, answer: str | None, per_judge: Mapping[str, Judged], rule: str
    ) -> Judged: ...


def rating_rule(rule: str) -> str:
    if rule not in RATING_RULES:
        raise BenchmarkOptionError(
            f"jury_rule={rule!r} is not supported; use one of {list(RATING_RULES)}"
        )
    return rule


class RepeatedJudgeError(ValueError):
    """A jury that names one judge twice: it would pay twice for the same verdicts."""


def refuse_repeated_judges(judges: Sequence[tuple[str, str, str]], repeats: str) -> None:
    """Every judge of a jury named once: `judges` holds each judge's label (its role or list
    entry), model name and endpoint, in order. The same model at the same endpoint asked twice
    is paid twice for what is one judge's verdict, and its agreement with itself is no jury's;
    asking one judge again on purpose is re-judging (`repeats`: the option, as the entry point
    writes it)."""
    seen: dict[tuple[str, str], str] = {}
    for label, model, endpoint in judges:
        first = seen.setdefault((model, endpoint.rstrip("/")), label)
        if first != label:
            raise RepeatedJudgeError(
                f"{first} and {label} are the same judge ({model} at the same endpoint): a jury "
                "asks each of its judges every judgment, so this one would be paid twice for one "
                f"judge's verdicts. Name different models; to judge each answer again on purpose "
                f"(self-consistency), name the model once and set {repeats}"
            )


def combined_rating(
    ratings: Sequence[float | None], rule: str = DEFAULT_RATING_RULE
) -> float | None:
    """The jury's rating of one answer: mean or median of the ratings given (None: none given)."""
    given = [float(r) for r in ratings if r is not None]
    if not given:
        return None
    return statistics.median(given) if rating_rule(rule) == "median" else sum(given) / len(given)


def majority_vote(votes: Sequence[_V | None], tie: _V) -> _V | None:
    """The vote more judges cast than any other; `tie` when the leaders are level; None: none."""
    counts = Counter(v for v in votes if v is not None).most_common()
    if not counts:
        return None
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return tie
    return counts[0][0]


def majority_score(scores: Sequence[float | None]) -> float | None:
    """The score a strict majority gave, else the lower median (a split is not a recall)."""
    given = sorted(float(s) for s in scores if s is not None)
    if not given:
        return None
    score, count = Counter(given).most_common(1)[0]
    if count * 2 > len(given):
        return score
    return statistics.median_low(given)


def unscored_reason(per_judge: Mapping[str, Judged], what: str) -> str:
    """Why no judge of the jury scored a sample: each judge's own reason, in words."""
    return f"no judge of the jury gave {what} ({each_reason(per_judge)})"


def each_reason(outcomes: Mapping[str, Judged]) -> str:
    """Each named outcome's reason for leaving the sample unscored, one after another."""
    return "; ".join(f"{name}: {j.reason or 'no verdict'}" for name, j in outcomes.items())


def jury_outcome(
    judging: JuryJudging,
    item: Item,
    answer: str | None,
    replies_by_judge: Mapping[str, Sequence[JudgeReply]],
    rule: str,
) -> Judged:
    """The sample's outcome from every judge's replies: one judge's outcome is returned as it is
    (a lone judge scores exactly as before); two or more are combined by the benchmark's rule,
    each judge's value, votes and reason kept under `details["jury"]`. A sample with no judge
    request (CultureSynth-7 without a baseline answer) is no jury's."""
    per_judge = {
        name: judging.outcome(item, answer, replies) for name, replies in replies_by_judge.items()
    }
    if len(per_judge) == 1 or not any(replies_by_judge.values()):  # a lone judge, or none asked
        return next(iter(per_judge.values()))
    combined = judging.combine(item, answer, per_judge, rule)
    failed = sum(1 for j in per_judge.values() if j.value is None)
    jury = {
        "rule": rule,
        "value": combined.value,  # None: the jury left the sample unscored
        "n_judges": len(per_judge),
        "n_judges_failed": failed,
        "judges": {
            name: {"value": j.value, "votes": judging.votes(j), "reason": j.reason}
            for name, j in per_judge.items()
        },
    }
    return Judged(
        combined.record, combined.value, combined.reason, {**combined.details, JURY_KEY: jury}
    )


def per_vote(
    per_judge: Mapping[str, Judged], votes: Callable[[Judged], Sequence[Any]]
) -> list[list[Any]]:
    """The judges' votes regrouped by position: row k holds every judge's k-th vote."""
    return by_position([list(votes(j)) for j in per_judge.values()])


def by_position(columns: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """Each judge's votes (one column each) as rows of the k-th votes; a short column: None."""
    width = max((len(c) for c in columns), default=0)
    return [[c[k] if k < len(c) else None for c in columns] for k in range(width)]


def judge_calls_text(
    task: str,
    calls_each: int,
    judges: Sequence[str],
    suffix: str = "",
    cached: int | None = None,
    tokens: tuple[int, int] | None = None,
    price: Price | None = None,
    verdict: VerdictLength | None = None,
) -> str:
    """What a run will ask, said before the first generation and by `--dry-run`: the calls each
    judge gets, and how many of all of them the judge cache answers (`cached`, 0 with the cache
    off). None: not known yet (the requests hold answers not generated): an upper bound.
    `tokens`: the (prompt, completion) tokens of the calls to make, all judges together
    (`usage.answers_estimate`), said with how a reply's tokens were had (`verdict`) and their
    cost at `price`."""
    total = calls_each * len(judges)
    if len(judges) == 1:
        head = f"{task}: {calls_each} judge calls to {judges[0]}{suffix}"
    else:
        head = (
            f"{task}: {calls_each} judge calls for each of {len(judges)} judges "
            f"({', '.join(judges)}): {total} in all{suffix}"
        )
    if cached is None:
        text = (
            f"{head}: at most {total} to make (a request the judge cache already answers is not "
            "sent; which ones depends on the answers, not generated yet)"
        )
    else:
        text = f"{head}: {total - cached} to make, {cached} cached"
    return text if tokens is None else f"{text}; {estimate_text(tokens, price, verdict)}"


def estimated_calls_text(
    task: str,
    calls_each: int,
    judges: Sequence[str],
    *,
    keys: Sequence[str] = (),
    suffix: str = "",
    cached: int | None = None,
    price: Price | None = None,
    judging: Judging | None = None,
    items: Iterable[Item] = (),
    repeats: HasRepeats | None = None,
    max_tokens: int | None = None,
    tokens: Callable[[int | None], tuple[int, int]] | None = None,
) -> str:
    """`judge_calls_text` as Inspect, lm-eval and `culture-evals judge` all say it: each reply's
    tokens measured by the check of the judges `keys` (`usage.remember_verdict`), else declared
    (`verdict_length` of `judging`; none without), and the calls' tokens: `tokens(each)` once
    the answers exist, else the `items`' before generation (`usage.reference_estimate`).
    `cached`: given once the answers exist; else the cache's state says (on: an upper bound;
    off: 0 cached)."""
    if cached is None:
        cached = None if open_cache() is not None else 0
    verdict = verdict_length(judging, max_tokens, keys) if judging is not None else None
    each = verdict.tokens if verdict is not None else None
    counted = tokens(each) if tokens is not None else None
    if tokens is None and judging is not None:
        counted = reference_estimate(judging, items, repeats, len(judges), max_tokens, each=each)
    return judge_calls_text(task, calls_each, judges, suffix, cached, counted, price, verdict)


def jury_roles_in_order(roles: Iterable[str]) -> list[str]:
    """Inspect's judge roles among `roles`, in judge order: `grader`, then `grader_<n>` by n."""
    named = set(roles)
    extra = sorted((int(m[1]), r) for r in named if (m := _JURY_ROLE.fullmatch(r)))
    return ([GRADER_ROLE] if GRADER_ROLE in named else []) + [role for _, role in extra]


def jury_label(models: Sequence[str]) -> str | None:
    """A run's judge as the report names it: the model, or the jury's models in order."""
    if not models:
        return None
    return models[0] if len(models) == 1 else f"jury of {len(models)}: {', '.join(models)}"


def model_names(value: object) -> list[str] | None:
    """`judge_models` as given (a list, or names separated by commas), stripped; None when it
    is neither, or names an empty or non-text model."""
    names = value.split(",") if isinstance(value, str) else value
    if not isinstance(names, list) or not names:
        return None
    cleaned = [n.strip() if isinstance(n, str) else n for n in names]
    return cleaned if all(isinstance(n, str) and n for n in cleaned) else None

"""CARE metrics for both harnesses: rated epochs averaged first, then questions in id order (a
stable interval); a question with no rated epoch is unscored, never 0."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import groupby
from typing import TypeVar

from inspect_culture.benchmarks.care.spec import AgreementOutcome, CareOutcome
from inspect_culture.judging.noise import interval_metrics
from inspect_culture.stats.bootstrap import bootstrap_mean_interval
from inspect_culture.stats.epochs import grouped, judgments_by_question, mean, per_question_means
from inspect_culture.stats.human_agreement import agreement_metrics

_Outcome = TypeVar("_Outcome", CareOutcome, AgreementOutcome)


def care_metrics(
    outcomes: Sequence[CareOutcome], *, seed: int = 0, resamples: int = 1000
) -> dict[str, float]:
    """Mean rating overall, per category and per geographic scope, with bootstrap intervals;
    when answers were re-judged, two-level intervals (`judging/noise.py`)."""
    questions = _per_question(outcomes, lambda o: o.rating)
    scored = [(o, m) for o, m in questions if m is not None]
    judged = judgments_by_question(outcomes, lambda o: o.rating)
    noise = [judged[o.question_id] for o, _ in scored] if judged else None
    unscored = len(questions) - len(scored)
    result = {
        "n_scored": float(len(scored)),
        "n_unscored": float(unscored),
        "unscored_rate": unscored / len(questions) if questions else 0.0,
    }
    ratings = [m for _, m in scored]
    result.update(_mean_with_interval("rating", ratings, noise, noise, seed, resamples))
    categories = [o.category for o, _ in scored]
    for category, values in sorted(grouped(categories, ratings).items()):
        of = None if noise is None else [g for c, g in zip(categories, noise) if c == category]
        # the judge's noise measured on every category's judgings, not on this one's alone
        result.update(_mean_with_interval(f"rating_{category}", values, of, noise, seed, resamples))
    scopes = [re.sub(r"[- ]", "_", o.geographic_scope.strip().lower()) for o, _ in scored]
    result |= {f"rating_scope_{s}": mean(v) for s, v in sorted(grouped(scopes, ratings).items())}
    return result


def judge_agreement(outcomes: Sequence[AgreementOutcome]) -> dict[str, float]:
    """Judge vs human ratings (`stats.human_agreement`), one pair per response (epochs averaged)."""
    questions = _per_question(outcomes, lambda o: o.judge_rating)
    return agreement_metrics([(m, o.human_rating, o.category) for o, m in questions])


def _per_question(
    outcomes: Sequence[_Outcome], rating: Callable[[_Outcome], float | None]
) -> list[tuple[_Outcome, float | None]]:
    """Each question (id order, its first outcome) with the mean of its rated epochs, or None."""
    ordered = sorted(outcomes, key=lambda o: o.question_id)
    rated = [(o.question_id, r) for o in ordered if (r := rating(o)) is not None]
    ids = [qid for qid, _ in rated]
    means = dict(zip(dict.fromkeys(ids), per_question_means([r for _, r in rated], ids)))
    return [(next(g), means.get(qid)) for qid, g in groupby(ordered, lambda o: o.question_id)]


def _mean_with_interval(
    name: str,
    values: list[float],
    judgments: list[list[list[float]]] | None,
    noise_from: list[list[list[float]]] | None,
    seed: int,
    resamples: int,
) -> dict[str, float]:
    if not values:
        return {}
    if judgments is not None:
        return {name: mean(values)} | interval_metrics(
            name, values, judgments, seed=seed, resamples=resamples, noise_from=noise_from
        )
    low, high = bootstrap_mean_interval(values, seed=seed, resamples=resamples)
    return {name: mean(values), f"{name}_ci_low": low, f"{name}_ci_high": high}

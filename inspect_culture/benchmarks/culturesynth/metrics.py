"""CultureSynth-7 metrics and Table 7's judge agreement, in percent; unscored outcomes are counted,
never a tie or loss; a question's scored epochs are averaged first, and counts are of questions."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence

from inspect_culture.benchmarks.culturesynth.spec import (
    MISSING_BASELINE,
    PairOutcome,
    language_slug,
    topic_slug,
)
from inspect_culture.judging.noise import interval_metrics
from inspect_culture.stats.bootstrap import bootstrap_mean_interval
from inspect_culture.stats.epochs import grouped, judgments_by_question, per_question_means


def net_win_rate(outcomes: Sequence[float]) -> float:
    """(wins - losses) / N x 100 over scored outcomes, the paper's §5.2."""
    return 100.0 * sum(outcomes) / len(outcomes) if outcomes else math.nan


def weighted_average(by_language: Mapping[str, Sequence[float]]) -> float:
    """Tables 3, 8: rates weighted by scored questions (an unweighted mean misses by up to 0.60)."""
    total = sum(len(values) for values in by_language.values())
    if not total:
        return math.nan
    return sum(len(v) * net_win_rate(v) for v in by_language.values() if v) / total


def _question_rate(scored: Sequence[PairOutcome], value: Callable[[PairOutcome], float]) -> float:
    """Percent: the mean over questions of each question's mean over its epochs."""
    means = per_question_means([value(o) for o in scored], [o.question_id for o in scored])
    return 100.0 * sum(means) / len(means)


def culturesynth_metrics(
    outcomes: Sequence[PairOutcome], *, resamples: int = 1000
) -> dict[str, float]:
    """Net win rate (interval seeded like the coin), per language and topic, and the rest."""
    seeds = {o.seed for o in outcomes}
    if len(seeds) > 1:
        raise ValueError(f"outcomes of runs with different seeds: {sorted(seeds)}")
    scored = [o for o in outcomes if o.outcome is not None]
    first: dict[str, PairOutcome] = {}  # a question's language and topic
    for o in scored:
        first.setdefault(o.question_id, o)
    ids = [o.question_id for o in scored]
    means = dict(zip(first, per_question_means([float(o.outcome or 0) for o in scored], ids)))
    missing = {o.question_id for o in outcomes if o.reason == MISSING_BASELINE}
    result: dict[str, float] = {
        "n_scored": float(len(means)),
        "n_unscored": float(len({o.question_id for o in outcomes}) - len(means)),
        "n_missing_baseline": float(len(missing - means.keys())),
    }
    if not scored:
        return result
    values = list(means.values())
    result |= {"net_win_rate": net_win_rate(values)}
    result |= _interval(
        means, judgments_by_question(scored, lambda o: o.outcome), seeds.pop(), resamples
    )
    result |= {
        "win_rate": _question_rate(scored, lambda o: o.outcome == 1),
        "tie_rate": _question_rate(scored, lambda o: o.outcome == 0),
        "loss_rate": _question_rate(scored, lambda o: o.outcome == -1),
    }
    by_language = grouped([language_slug(first[q].language) for q in means], values)
    by_topic = grouped([topic_slug(first[q].topic) for q in means], values)
    if clash := set(by_language) & set(by_topic):
        raise ValueError(f"topic and language share a metric name: {sorted(clash)}")
    result["weighted_average"] = weighted_average(by_language)
    if swapped := [o for o in scored if o.consistent is not None]:
        result["position_consistency"] = _question_rate(swapped, lambda o: bool(o.consistent))
    for groups in (by_language, by_topic):
        result |= {f"net_win_rate_{name}": net_win_rate(groups[name]) for name in sorted(groups)}
    return result


def _interval(
    means: Mapping[str, float],
    judged: Mapping[Hashable, list[list[float]]],
    seed: int,
    resamples: int,
) -> dict[str, float]:
    """The net win rate's interval, in percent: one-level, or two-level when re-judged. Sorted:
    the interval must not depend on the order the harness delivered the questions in."""
    if judged:
        pairs = sorted(
            (100.0 * means[q], [[100.0 * j for j in answer] for answer in judged[q]]) for q in means
        )
        values, judgments = [v for v, _ in pairs], [g for _, g in pairs]
        return interval_metrics("net_win_rate", values, judgments, seed=seed, resamples=resamples)
    low, high = bootstrap_mean_interval(
        sorted(100.0 * v for v in means.values()), seed=seed, resamples=resamples
    )
    return {"net_win_rate_ci_low": low, "net_win_rate_ci_high": high}


def strict_agreement(a: Mapping[str, int | None], b: Mapping[str, int | None]) -> dict[str, float]:
    """Table 7: % of questions both judges scored alike; unscored, unmatched counted; NaN: none."""
    common = a.keys() & b.keys()
    both = [k for k in common if a[k] is not None and b[k] is not None]
    agree = sum(1 for k in both if a[k] == b[k])
    return {
        "agreement": 100.0 * agree / len(both) if both else math.nan,
        "n_compared": float(len(both)),
        "n_agree": float(agree),
        "n_unscored": float(len(common) - len(both)),
        "n_unmatched": float(len(a.keys() ^ b.keys())),
    }


def strict_agreement_by(
    a: Mapping[str, int | None],
    b: Mapping[str, int | None],
    group_of: Callable[[str], str],
) -> dict[str, dict[str, float]]:
    """`strict_agreement` per group (`group_of(key)`), sorted by group."""
    groups: dict[str, set[str]] = defaultdict(set)
    for key in a.keys() | b.keys():
        groups[group_of(key)].add(key)
    return {
        group: strict_agreement(
            {k: a[k] for k in keys if k in a}, {k: b[k] for k in keys if k in b}
        )
        for group, keys in sorted(groups.items())
    }


def mean_agreement(per_group: Mapping[str, Mapping[str, float]]) -> float:
    """Unweighted mean of the groups' rates, as Table 7's "Average" (85.05); NaN ones skipped."""
    rates = [g["agreement"] for g in per_group.values() if not math.isnan(g["agreement"])]
    return sum(rates) / len(rates) if rates else math.nan

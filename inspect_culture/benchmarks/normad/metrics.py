"""NormAd-ETI metrics for both adapters: accuracy, its interval, unparsed rate and breakdowns
average a question's epochs first; precision, recall and F1 pool every epoch's judgment."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_culture.benchmarks.normad.spec import BREAKDOWNS, LABELS, NormadOutcome
from inspect_culture.stats import classification
from inspect_culture.stats.bootstrap import bootstrap_mean_interval
from inspect_culture.stats.epochs import grouped, mean, per_question_means


def normad_metrics(
    outcomes: Sequence[NormadOutcome], *, seed: int = 0, resamples: int = 1000
) -> dict[str, float]:
    """All NormAd metrics. Breakdown groups with no samples are left out, never reported as 0."""
    golds = [o.gold for o in outcomes]
    preds = [o.pred for o in outcomes]
    ids = [o.sample_id for o in outcomes]
    correct = per_question_means([float(g == p) for g, p in zip(golds, preds)], ids)
    low, high = bootstrap_mean_interval(correct, seed=seed, resamples=resamples)
    result = {
        "accuracy": mean(correct),
        "macro_f1": classification.macro_f1(golds, preds, LABELS),
        "unparsed_rate": mean(per_question_means([float(p is None) for p in preds], ids)),
        "accuracy_ci_low": low,
        "accuracy_ci_high": high,
    }
    for label, scores in classification.per_label_scores(golds, preds, LABELS).items():
        result |= {f"{n}_{label}": getattr(scores, n) for n in ("precision", "recall", "f1")}
    # per_question_means keeps first-seen order, so `questions` lines up with `correct`
    questions = {o.sample_id: o for o in outcomes}.values()
    for prefix, field in BREAKDOWNS.items():
        by_group = grouped([getattr(question, field) for question in questions], correct)
        result |= {f"accuracy_{prefix}_{g}": mean(v) for g, v in sorted(by_group.items())}
    return result

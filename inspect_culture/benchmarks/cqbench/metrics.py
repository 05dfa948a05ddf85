"""CQ-Bench metrics, one function per task for both harnesses. Epochs: a question's (a VE value's
scored) epochs are averaged first; counts are of questions or values; macro-F1 pools epochs."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from inspect_culture.benchmarks.cqbench.spec import AdOutcome, VeOutcome, VsOutcome, f1_score
from inspect_culture.stats import classification
from inspect_culture.stats.epochs import grouped, mean, per_question_means


def _questions(outcomes: Sequence[AdOutcome | VsOutcome]) -> tuple[list[Hashable], list[str]]:
    """Every outcome's question id; each question's category in first-seen order."""
    categories = {o.sample_id: o.category for o in outcomes}  # keeps first-seen order
    return [o.sample_id for o in outcomes], list(categories.values())


def ad_metrics(outcomes: Sequence[AdOutcome]) -> dict[str, float]:
    """accuracy (= micro-F1, the paper's AD "F1"), macro-F1, unparsed rate, per-category accuracy."""
    golds = [o.gold for o in outcomes]
    preds = [o.pred for o in outcomes]
    ids, categories = _questions(outcomes)
    correct = per_question_means([float(g == p) for g, p in zip(golds, preds)], ids)
    result = {
        "accuracy": mean(correct),
        "macro_f1": classification.macro_f1(golds, preds, sorted(set(golds))),
        "unparsed_rate": mean(per_question_means([float(p is None) for p in preds], ids)),
    }
    result |= {f"accuracy_{c}": mean(v) for c, v in sorted(grouped(categories, correct).items())}
    return result


def vs_metrics(outcomes: Sequence[VsOutcome]) -> dict[str, float]:
    """f1 = 2·mean(P)·mean(R)/(mean(P)+mean(R)) (the paper's number); skipped stories (upstream's
    `skip_empty`) count only in `empty_rate`."""
    ids, _ = _questions(outcomes)
    empty_rate = mean(per_question_means([float(o.empty) for o in outcomes], ids))
    counted = [o for o in outcomes if not o.skipped]
    if not counted:  # every story empty (and skipped), or none
        return {"n_stories": 0.0, "empty_rate": empty_rate}
    ids, categories = _questions(counted)
    precision = per_question_means([o.precision for o in counted], ids)
    recall = per_question_means([o.recall for o in counted], ids)
    mean_p, mean_r = mean(precision), mean(recall)
    result = {
        "precision": mean_p,
        "recall": mean_r,
        "f1": f1_score(mean_p, mean_r),
        "mean_story_f1": mean(per_question_means([o.f1 for o in counted], ids)),
        "empty_rate": empty_rate,
        "n_stories": float(len(precision)),
    }
    by_p, by_r = grouped(categories, precision), grouped(categories, recall)
    result |= {f"f1_{c}": f1_score(mean(by_p[c]), mean(by_r[c])) for c in sorted(by_p) if c}
    return result


def ve_metrics(outcomes: Sequence[VeOutcome]) -> dict[str, float]:
    """recall: pooled mean of gold-value scores; a value no epoch scored is counted, never 0."""
    stories: dict[Hashable, tuple[str, list[list[float]]]] = {}
    for o in outcomes:
        _, slots = stories.setdefault(o.sample_id, (o.category, [[] for _ in o.value_scores]))
        for slot, score in zip(slots, o.value_scores):
            if score is not None:
                slot.append(score)
    scored = [
        (category, sum(slot) / len(slot))
        for category, slots in stories.values()
        for slot in slots
        if slot
    ]
    n_values = sum(len(slots) for _, slots in stories.values())
    result = {"n_scored": float(len(scored)), "n_unscored": float(n_values - len(scored))}
    if scored:
        result["recall"] = mean([value for _, value in scored])
    by_category = grouped([c for c, _ in scored], [v for _, v in scored])
    result |= {f"recall_{c}": mean(values) for c, values in sorted(by_category.items())}
    return result

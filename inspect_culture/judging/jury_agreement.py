"""How far a jury's judges agree, from the `jury` details every jury-judged sample keeps
(`jury.py`): each judge's mean and failures, and chance-corrected agreement over the same answers
(Krippendorff's alpha for numeric votes, Fleiss' kappa for verdicts). Both harnesses call this,
so the figures are the same whichever computed them."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from inspect_culture.judging.jury import by_position
from inspect_culture.stats.chance_corrected_agreement import fleiss_kappa, krippendorff_alpha

VoteKind = Literal["interval", "nominal"]
AGREEMENT_NAME: dict[VoteKind, str] = {"interval": "judges_alpha", "nominal": "judges_kappa"}
AGREEMENT_LABEL: dict[VoteKind, str] = {
    "interval": "Krippendorff's alpha",
    "nominal": "Fleiss' kappa",
}


def judge_order(name: str) -> tuple[int, str]:
    """judge_2 before judge_10."""
    digits = re.findall(r"\d+", name)
    return (int(digits[-1]) if digits else 0, name)


def jury_metrics(
    juries: Sequence[Mapping[str, Any] | None], kind: VoteKind, scale: float = 1.0
) -> dict[str, float]:
    """`n_judges`, each judge's mean value over the samples it scored (times `scale`) and its
    failures, and the agreement of their votes, over the samples the jury scored (those an
    Inspect metric sees); {} when a jury scored none."""
    juries = [j for j in juries if j and j.get("value", 0) is not None]
    if not juries:
        return {}
    names = sorted({name for j in juries for name in j["judges"]}, key=judge_order)
    result: dict[str, float] = {"n_judges": float(len(names))}
    for name in names:
        entries = [j["judges"][name] for j in juries if name in j["judges"]]
        values = [e["value"] for e in entries if e["value"] is not None]
        result[f"{name}_mean"] = scale * sum(values) / len(values) if values else math.nan
        result[f"{name}_n_failed"] = float(len(entries) - len(values))
    units: list[list[Any]] = []
    for jury in juries:
        units += by_position([jury["judges"].get(name, {}).get("votes") or [] for name in names])
    agreement = krippendorff_alpha(units) if kind == "interval" else fleiss_kappa(units)
    result[AGREEMENT_NAME[kind]] = agreement
    return result


def with_jury(
    compute: Callable[..., dict[str, float]],
    juries: Sequence[Mapping[str, Any] | None],
    kind: VoteKind,
    scale: float = 1.0,
) -> Callable[..., dict[str, float]]:
    """`compute` (a benchmark's metrics) followed by `jury_metrics`: nothing added without a jury."""

    def both(**options: Any) -> dict[str, float]:
        return {**compute(**options), **jury_metrics(juries, kind, scale)}

    return both


def jury_text(label: str, metrics: Mapping[str, float]) -> str | None:
    """What a jury's run says of its judges (None without a jury's figures): each judge's mean
    and failures, and their agreement, as the metrics hold them."""
    judges = int(metrics.get("n_judges") or 0)
    if judges < 2:
        return None
    each = ", ".join(
        f"judge_{k} mean {metrics.get(f'judge_{k}_mean', math.nan):.4g} "
        f"({int(metrics.get(f'judge_{k}_n_failed', 0))} failed)"
        for k in range(1, judges + 1)
    )
    agreement = next(
        (
            f"; {AGREEMENT_LABEL[kind]} {metrics[name]:.3f}"
            for kind, name in AGREEMENT_NAME.items()
            if name in metrics
        ),
        "",
    )
    return f"{label}: jury of {judges}: {each}{agreement}"


def agreement_record(figures: Mapping[str, float]) -> dict[str, Any]:
    """`metadata.jury_agreement`: the jury's chance-corrected agreement (its statistic named),
    and each judge's mean and failures, as the log line says them; {} without a jury."""
    n = int(figures.get("n_judges") or 0)
    found = [(kind, name) for kind, name in AGREEMENT_NAME.items() if name in figures]
    if n < 2 or not found:
        return {}
    [(kind, name)] = found
    judges = {
        f"judge_{k}": {
            "mean": _number(figures.get(f"judge_{k}_mean")),
            "n_failed": int(figures.get(f"judge_{k}_n_failed") or 0),
        }
        for k in range(1, n + 1)
    }
    return {
        "statistic": AGREEMENT_LABEL[kind],
        "metric": name,
        "value": _number(figures[name]),
        "n_judges": n,
        "judges": judges,
    }


def _number(value: float | None) -> float | None:
    """A figure for a JSON file: NaN (undefined) as null."""
    return None if value is None or math.isnan(value) else float(value)

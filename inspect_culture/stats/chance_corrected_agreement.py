"""Agreement between judges of the same answers, chance-corrected: Krippendorff's alpha for
ratings (interval distance) and Fleiss' kappa for categorical verdicts. A judge that failed on
an answer is a missing value, not a disagreement."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence


def krippendorff_alpha(units: Sequence[Sequence[float | None]]) -> float:
    """Interval alpha = 1 - D_o / D_e (Krippendorff 2011, "Computing Krippendorff's alpha").

    `units`: one row per answer, one value per judge (None: that judge gave none). Only answers
    with two or more values are pairable. NaN when undefined: fewer than two pairable values, or
    no variation at all (D_e = 0).
    """
    pairable = [[float(v) for v in unit if v is not None] for unit in units]
    pairable = [values for values in pairable if len(values) >= 2]
    pooled = [v for values in pairable for v in values]
    n = len(pooled)
    if n < 2:
        return math.nan
    # observed: within each answer, the squared differences of its ordered pairs, over m_u - 1
    observed = sum(_ordered_pair_sq(values) / (len(values) - 1) for values in pairable) / n
    expected = _ordered_pair_sq(pooled) / (n * (n - 1))
    if expected == 0:
        return math.nan
    return 1.0 - observed / expected


def _ordered_pair_sq(values: Sequence[float]) -> float:
    """Sum over ordered pairs i != j of (v_i - v_j)^2, as 2 * n * sum((v - mean)^2)."""
    n = len(values)
    mean = sum(values) / n
    return 2.0 * n * sum((v - mean) ** 2 for v in values)


def fleiss_kappa(units: Sequence[Sequence[Hashable | None]]) -> float:
    """Fleiss' kappa (1971) over categorical verdicts: (P - P_e) / (1 - P_e).

    `units`: one row per answer, one verdict per judge (None: that judge gave none). An answer
    with fewer than two verdicts is left out; with a varying number of judges per answer, P_i
    uses each answer's own count and p_j the pooled verdicts (the usual generalization). NaN when
    undefined: no answer with two verdicts, or every verdict in one category (P_e = 1).
    """
    counted = [Counter(v for v in unit if v is not None) for unit in units]
    counted = [c for c in counted if sum(c.values()) >= 2]
    if not counted:
        return math.nan
    per_unit = []
    for counts in counted:
        m = sum(counts.values())
        per_unit.append((sum(k * k for k in counts.values()) - m) / (m * (m - 1)))
    observed = sum(per_unit) / len(per_unit)
    pooled: Counter[Hashable] = Counter()
    for counts in counted:
        pooled.update(counts)
    total = sum(pooled.values())
    expected = sum((k / total) ** 2 for k in pooled.values())
    if expected >= 1.0:
        return math.nan
    return (observed - expected) / (1.0 - expected)

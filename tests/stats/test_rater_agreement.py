"""Krippendorff's alpha and Fleiss' kappa on hand-computed cases and on the published examples
(Krippendorff 2011's reliability data; the Fleiss 1971 table as Wikipedia works it)."""

from __future__ import annotations

import math

import pytest

from inspect_culture.stats.chance_corrected_agreement import fleiss_kappa, krippendorff_alpha


def test_alpha_by_hand() -> None:
    # pooled 1,2,3,3: D_o = (2 / 1) / 4 = 0.5; D_e = 2*4*2.75 / (4*3) = 11/6; alpha = 1 - 3/11
    assert krippendorff_alpha([[1, 2], [3, 3]]) == pytest.approx(8 / 11)


def test_alpha_on_krippendorffs_published_example() -> None:
    """Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: four
    coders, twelve units, missing values; interval alpha = 0.849."""
    a = [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None]
    b = [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3]
    c = [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None]
    d = [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]
    units = list(zip(a, b, c, d))
    assert krippendorff_alpha(units) == pytest.approx(0.849, abs=5e-4)


def test_alpha_limits() -> None:
    assert krippendorff_alpha([[1, 1], [5, 5], [3, 3, None]]) == pytest.approx(1.0)
    assert math.isnan(krippendorff_alpha([[4, 4], [4, 4]]))  # no variation: undefined
    assert math.isnan(krippendorff_alpha([[4, None], [5]]))  # nothing pairable
    # a unit with one value adds nothing: same alpha with or without it
    assert krippendorff_alpha([[1, 2], [3, 3], [9, None]]) == pytest.approx(8 / 11)


def test_kappa_by_hand() -> None:
    # P_1 = (4-2)/2 = 1, P_2 = 0: P = 0.5; p_A = 3/4, p_B = 1/4: P_e = 10/16; kappa = -1/3
    assert fleiss_kappa([["A", "A"], ["A", "B"]]) == pytest.approx(-1 / 3)


def test_kappa_on_fleiss_worked_example() -> None:
    """Ten subjects, fourteen raters, five categories: P = 0.378, P_e = 0.213, kappa = 0.210."""
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    units = [[cat for cat, n in enumerate(row) for _ in range(n)] for row in table]
    assert fleiss_kappa(units) == pytest.approx(0.2099, abs=5e-4)


def test_kappa_missing_verdicts_and_limits() -> None:
    # a missing verdict is left out, not a disagreement: same as the two-judge units
    assert fleiss_kappa([["A", "A", None], ["A", "B", None]]) == pytest.approx(-1 / 3)
    assert fleiss_kappa([["A", "A"], ["B", "B"], [-1, -1]]) == pytest.approx(1.0)
    assert math.isnan(fleiss_kappa([["A", "A"], ["A", "A"]]))  # one category: undefined
    assert math.isnan(fleiss_kappa([["A", None], [None, None]]))

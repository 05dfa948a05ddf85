"""The main job's parity check: hand-made harness results, the differences it must name."""

from inspect_culture.benchmarks.care.spec import CATEGORY_SLUGS
from inspect_culture.local_model.main_job import HarnessRun, parity_differences, parity_line


def _metrics(rating: float, **changed: float) -> dict[str, float]:
    metrics = {"rating": rating, "rating_ci_low": rating - 1, "rating_ci_high": rating + 1}
    for slug in CATEGORY_SLUGS:
        metrics |= {f"rating_{slug}": rating, f"rating_{slug}_ci_low": rating - 1}
        metrics[f"rating_{slug}_ci_high"] = rating + 1
    return metrics | {"n_scored": 5.0, "n_unscored": 0.0} | changed


def test_identical_columns_are_one_line() -> None:
    runs = [
        HarnessRun(lang, h, _metrics(4.0), [])
        for lang in ("zh", "ja")
        for h in ("inspect", "lm-eval")
    ]
    assert parity_differences(runs) == []
    assert parity_line(runs).startswith("Parity: Inspect and lm-eval agree in all 14 cells")


def test_each_differing_cell_is_named() -> None:
    runs = [
        HarnessRun("zh", "inspect", _metrics(4.0), []),
        HarnessRun(
            "zh", "lm-eval", _metrics(4.0, rating_literacy=1.0, rating_literacy_ci_low=1.0), []
        ),
        HarnessRun("ja", "inspect", _metrics(4.0), []),
        HarnessRun("ja", "lm-eval", _metrics(4.0, n_unscored=1.0, rating_norms_ci_high=9.0), []),
    ]
    assert parity_differences(runs) == [
        "zh literacy: Inspect 4.0 [ 3.0,  5.0], lm-eval 1.0 [ 1.0,  5.0]",
        "ja norms: Inspect 4.0 [ 3.0,  5.0], lm-eval 4.0 [ 3.0,  9.0]",
        "ja scored/unscored: Inspect (5.0, 0.0), lm-eval (5.0, 1.0)",
    ]
    assert parity_line(runs).startswith("PARITY FAILED: 3 of 14 cells differ:")


def test_a_missing_column_is_a_difference() -> None:
    runs = [HarnessRun("zh", "inspect", _metrics(4.0), [])]
    assert len(parity_differences(runs)) == len(CATEGORY_SLUGS) + 2

"""scikit-learn computes F1 and weighted kappa, and is imported only where a metric is computed:
loading a task must not pay its import (about a second), the time to the first request."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from inspect_culture.run_files.care_judge_comparison import weighted_kappa

ROOT = Path(__file__).resolve().parents[2]

# every module a task or an lm-eval config loads that computes a classification metric
_PROBE = """
import sys
import inspect_culture.inspect_entry_point, inspect_culture.normad, inspect_culture.cqbench
import inspect_culture.lm_eval_tasks.normad.utils, inspect_culture.lm_eval_tasks.cqbench.utils
import inspect_culture.run_files.care_judge_comparison
from inspect_culture.benchmarks.normad.metrics import normad_metrics
from inspect_culture.benchmarks.normad.spec import NormadOutcome
loaded = sorted(m for m in sys.modules if m.split(".")[0] == "sklearn")
assert not loaded, f"loading the tasks imported {loaded[:3]}"
outcome = NormadOutcome("q1", "yes", "no", "rule", "cluster", "sub", "country")
normad_metrics([outcome], resamples=10)
assert "sklearn.metrics" in sys.modules, "the metric was not computed by scikit-learn"
"""


def test_scikit_learn_is_imported_by_the_metric_not_by_loading_a_task() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_rating_off_the_scale_is_named_not_a_key_error() -> None:
    with pytest.raises(ValueError, match=r"^ratings \[0, 11\] are not on the scale \[1, 2,"):
        weighted_kappa([0, 5], [11, 5])


def test_one_epochs_accuracy_is_scikit_learns() -> None:
    """Accuracy averages each question's epochs first (no library does that); with one epoch
    it is `accuracy_score`, an unparsed answer counted wrong."""
    import random

    from sklearn.metrics import accuracy_score

    from inspect_culture.benchmarks.normad.metrics import normad_metrics
    from inspect_culture.benchmarks.normad.spec import LABELS, NormadOutcome

    draw = random.Random(7)
    golds = [draw.choice(LABELS) for _ in range(60)]
    preds = [draw.choice([*LABELS, None]) for _ in golds]
    outcomes = [
        NormadOutcome(f"q{i}", g, p, "rule", "cluster", "sub", "country")
        for i, (g, p) in enumerate(zip(golds, preds))
    ]
    expected = accuracy_score(golds, [p or "unparsed" for p in preds])
    assert 0 < expected < 1
    assert normad_metrics(outcomes, resamples=10)["accuracy"] == pytest.approx(expected)

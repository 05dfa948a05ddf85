"""CARE judge-human agreement in both harnesses: the same judge prompts, the same ratings and
the same numbers (Pearson, Spearman and their bootstrap intervals, Kendall, the per-category
correlations and histograms) from Inspect's `care_judge_agreement` and lm-eval's tasks."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.care_agreement import care_judge_agreement
from tests.benchmarks.care.test_care_agreement import ratings_mirror  # noqa: F401
from tests.support.harness_runs import (
    inspect_eval_on_stub,
    inspect_metrics,
    lm_eval_all_metrics,
    run_lm_eval,
)
from tests.support.openai_stub import StubOpenAIServer

pytestmark = [pytest.mark.slow]


def _rater(prompt: str, body: dict[str, Any]) -> str:
    """A judge whose rating follows the prompt's hash; one prompt in six gets no rating."""
    h = int.from_bytes(hashlib.sha256(prompt.encode("utf-8")).digest()[:4], "big")
    return "I cannot rate this." if h % 6 == 0 else f"Fine.\nRating: [[{1 + h % 10}]]"


@pytest.mark.parametrize("language", [None, "zh"])
def test_agreement_parity(
    ratings_mirror: Path,  # noqa: F811 - the agreement tests' fixture, imported above
    tmp_path: Path,
    language: str | None,
) -> None:
    with StubOpenAIServer(responder=_rater) as server:
        log = inspect_eval_on_stub(care_judge_agreement(language=language), server, tmp_path)
        inspect_prompts = sorted(json.dumps(r["messages"]) for r in server.requests)
        server.requests.clear()
        task = "care_judge_agreement" + (f"_{language}" if language else "")
        results = run_lm_eval(server, [task])
        lm_prompts = sorted(json.dumps(r["messages"]) for r in server.requests)
    assert lm_prompts == inspect_prompts
    ours = inspect_metrics(log)
    lm = lm_eval_all_metrics(results, task)
    unscored = lm.pop("n_unscored")
    assert unscored == log.results.scores[0].unscored_samples > 0
    assert lm == pytest.approx(ours, nan_ok=True)
    assert {"pearson_ci_low", "pearson_ci_high", "spearman_ci_low", "spearman_ci_high"} <= set(ours)
    assert ours["pearson_ci_low"] <= ours["pearson"] <= ours["pearson_ci_high"]

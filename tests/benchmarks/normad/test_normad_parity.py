"""Same records, same model outputs: Inspect and lm-eval must report the same numbers."""

from pathlib import Path

import pytest

from inspect_culture.benchmarks.normad import spec
from tests.support.harness_runs import lm_eval_all_metrics, run_inspect_normad, run_lm_eval
from tests.support.openai_stub import StubOpenAIServer

pytestmark = [pytest.mark.slow, pytest.mark.compat]


def test_all_contexts_identical_metrics_and_prompts(
    normad_mirror: Path, inspect_stub_env: str, stub_server: StubOpenAIServer, tmp_path: Path
) -> None:
    inspect_metrics = {
        c: run_inspect_normad(stub_server, tmp_path / c, context=c) for c in spec.CONTEXTS
    }
    inspect_prompts = sorted(stub_server.prompts())
    stub_server.requests.clear()
    lm_results = run_lm_eval(stub_server, [f"normad_{c}" for c in spec.CONTEXTS])
    assert sorted(stub_server.prompts()) == inspect_prompts  # byte-identical model inputs
    for context in spec.CONTEXTS:
        lm = lm_eval_all_metrics(lm_results, f"normad_{context}")
        ours = inspect_metrics[context]
        assert lm["accuracy"] == ours["accuracy"]
        assert lm["macro_f1"] == ours["macro_f1"]
        assert lm == pytest.approx(ours)  # every breakdown, interval and rate too
    # the stub's answers include unparsable ones, so the comparison covers that path
    assert any(m["unparsed_rate"] > 0 for m in inspect_metrics.values())


def test_upstream_parser_parity(
    normad_mirror: Path, inspect_stub_env: str, stub_server: StubOpenAIServer, tmp_path: Path
) -> None:
    ours = run_inspect_normad(stub_server, tmp_path, context="none", parser="upstream")
    lm = lm_eval_all_metrics(
        run_lm_eval(stub_server, ["normad_none"], metadata={"parser": "upstream"}), "normad_none"
    )
    assert lm == pytest.approx(ours)
    assert ours["unparsed_rate"] == 0.0  # upstream never leaves an answer unparsed

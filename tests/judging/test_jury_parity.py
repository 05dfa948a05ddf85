"""A jury through both harnesses against one stub server, whose two judges rate by different
rules: the same prompts, the same per-judge verdicts, and the same numbers (the jury's rating,
its interval, each judge's mean and failures, and Krippendorff's alpha) in Inspect's metrics and
in lm-eval's."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import get_model

from inspect_culture.care import care
from inspect_culture.judging.options import JudgeConfigError, resolve_jury_settings
from tests.support.harness_runs import inspect_eval_on_stub, lm_eval_all_metrics, run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = [pytest.mark.slow]


def _two_judges(prompt: str, body: dict[str, Any]) -> str:
    """judge_a rates 1 + h % 10; judge_b rates 10 - h % 5, and gives no verdict for h % 4 == 0."""
    if not prompt.startswith("Please serve as"):
        return care_responder(prompt, body)
    h = int.from_bytes(hashlib.sha256(prompt.encode("utf-8")).digest()[:4], "big")
    if body["model"] == "judge_a":
        return f"Rating: [[{1 + h % 10}]]"
    return "I decline." if h % 4 == 0 else f"Rating: [[{10 - h % 5}]]"


def test_care_jury_parity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    with StubOpenAIServer(responder=_two_judges) as server:
        roles = {
            "grader": get_model("openai-api/stub/judge_a", base_url=server.base_url),
            "grader_2": get_model("openai-api/stub/judge_b", base_url=server.base_url),
        }
        log = inspect_eval_on_stub(
            care(language="zh", per_category=3, jury_rule="median"),
            server,
            tmp_path,
            model_roles=roles,
        )
        inspect_prompts = sorted(json.dumps(r["messages"]) + r["model"] for r in server.requests)
        server.requests.clear()
        metadata = {
            "judge_models": ["judge_a", "judge_b"],
            "judge_base_url": server.base_url,
            "per_category": 3,
            "jury_rule": "median",
        }
        results = run_lm_eval(server, ["care_zh"], metadata=metadata)
        lm_prompts = sorted(json.dumps(r["messages"]) + r["model"] for r in server.requests)
    assert log.status == "success", log.error
    assert lm_prompts == inspect_prompts  # each judge asked the same, in both harnesses
    ours = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    lm = lm_eval_all_metrics(results, "care_zh", "judged")
    lm.pop("n_unscored"), lm.pop("unscored_rate")
    assert lm == pytest.approx(ours, nan_ok=True)
    assert ours["n_judges"] == 2 and ours["judge_2_n_failed"] > 0
    assert {"judge_1_mean", "judge_2_mean", "judges_alpha", "rating_ci_low"} <= set(ours)
    # lm-eval's table has no rows for them: the run says the jury's figures, Inspect's numbers
    judges = ", ".join(
        f"judge_{k} mean {ours[f'judge_{k}_mean']:.4g} ({int(ours[f'judge_{k}_n_failed'])} failed)"
        for k in (1, 2)
    )
    alpha = f"Krippendorff's alpha {ours['judges_alpha']:.3f}"
    assert f"care_zh: jury of 2: {judges}; {alpha}" in capsys.readouterr().err
    # each judge's verdicts kept in both harnesses' samples, alike
    inspect_juries = sorted(
        json.dumps(s.scores["care_judge"].metadata["jury"], sort_keys=True) for s in log.samples
    )
    lm_juries = sorted(
        json.dumps(json.loads(s["filtered_resps"][0])["jury"], sort_keys=True)
        for s in results["samples"]["care_zh"]
    )
    assert lm_juries == inspect_juries


def test_jury_settings_are_checked() -> None:
    both = resolve_jury_settings(
        {"judge_models": "a, b", "judge_base_url": "http://h:1/v1,http://h:2/v1"}
    )
    assert [(j.model, j.base_url) for j in both] == [("a", "http://h:1/v1"), ("b", "http://h:2/v1")]
    shared = resolve_jury_settings({"judge_models": ["a", "b"], "judge_base_url": "http://h:1/v1"})
    assert {j.base_url for j in shared} == {"http://h:1/v1"}
    with pytest.raises(JudgeConfigError, match="2 URLs for 3 judge_models"):
        resolve_jury_settings({"judge_models": "a,b,c", "judge_base_url": ["http://h/v1"] * 2})
    with pytest.raises(JudgeConfigError, match="not both"):
        resolve_jury_settings({"judge_models": ["a"], "judge_model": "b"})
    with pytest.raises(JudgeConfigError, match="is not a model name"):
        resolve_jury_settings({"judge_models": ["a", ""]})
    with pytest.raises(JudgeConfigError, match="must be a list of model names"):
        resolve_jury_settings({"judge_models": 3})


def test_credentials_in_any_jury_url_are_refused() -> None:
    from inspect_culture.judging.options import refuse_written_credentials

    for urls in ("http://h1/v1,http://u:p@h2/v1", ["http://h1/v1", "http://u:p@h2/v1"]):
        with pytest.raises(JudgeConfigError, match="carries credentials") as caught:
            refuse_written_credentials({"judge_models": "a,b", "judge_base_url": urls})
        assert "u:p" not in str(caught.value)
    refuse_written_credentials({"judge_base_url": "http://h1/v1,http://h2/v1"})  # none: fine

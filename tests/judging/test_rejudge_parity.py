"""Re-judging through both harnesses against one stub whose judge rates by its seed: the same
answers chosen, the same seeds sent, the same combined ratings, and the same two-level interval
with its questions-only bounds and judge share, in Inspect's metrics and in lm-eval's. With
judge_repeats=1 nothing changes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import get_model

from inspect_culture.care import care
from inspect_culture.judging.defaults import DEFAULT_SEED
from inspect_culture.judging.repeats import chosen
from tests.support.harness_runs import inspect_eval_on_stub, lm_eval_all_metrics, run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = [pytest.mark.slow]


def _rating(prompt: str, seed: int) -> int:
    h = int.from_bytes(hashlib.sha256(prompt.encode("utf-8")).digest()[:4], "big")
    return 1 + h % 7 + (seed - DEFAULT_SEED) % 4


def _seeded_judge(prompt: str, body: dict[str, Any]) -> str:
    """Rates 1 + h % 7 (the answer) + (seed - the default seed) % 4 (the judging): judging r of
    an answer rates it r - 1 higher than the first."""
    if not prompt.startswith("Please serve as"):
        return care_responder(prompt, body)
    return f"Rating: [[{_rating(prompt, body['seed'])}]]"


def _judge_calls(server: StubOpenAIServer) -> list[str]:
    return sorted(
        json.dumps(r["messages"]) + str(r.get("seed"))
        for r in server.run_requests()  # the check before generation apart
        if r["messages"][-1]["content"].startswith("Please serve as")
    )


OPTIONS = {"judge_repeats": 3, "rejudge_fraction": 0.5}


def rejudged_care(server: StubOpenAIServer, path: Path) -> Any:
    """CARE zh, three questions a category, half of the answers judged three times (Inspect)."""
    grader = get_model("openai-api/stub/judge", base_url=server.base_url)
    task = care(language="zh", per_category=3, **OPTIONS)
    return inspect_eval_on_stub(task, server, path, model_roles={"grader": grader})


def test_care_rejudging_parity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    options = OPTIONS
    with StubOpenAIServer(responder=_seeded_judge) as server:
        log = rejudged_care(server, tmp_path)
        inspect_calls = _judge_calls(server)
        server.requests.clear()
        metadata = {"judge_model": "judge", "judge_base_url": server.base_url, "per_category": 3}
        results = run_lm_eval(server, ["care_zh"], metadata={**metadata, **options})
        lm_calls = _judge_calls(server)
    assert log.status == "success", log.error
    ids = [str(s.id) for s in log.samples]
    rejudged = [i for i in ids if chosen(i, 0.5)]
    assert 0 < len(rejudged) < len(ids)  # the fraction chose some answers, not all
    assert len(inspect_calls) == len(ids) + 2 * len(rejudged)
    assert lm_calls == inspect_calls  # the same answers, the same seeds, in both harnesses
    for sample in log.samples:
        score = sample.scores["care_judge"]
        judgments = score.metadata.get("judgments", [])
        if str(sample.id) in rejudged:  # judgings 1-3 rate r - 1 higher: mean = first + 1
            first = judgments[0]
            assert judgments == [first, first + 1, first + 2]
            assert score.value == pytest.approx(first + 1)
        else:
            assert judgments == []
    ours = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    lm = lm_eval_all_metrics(results, "care_zh", "judged")
    lm.pop("n_unscored"), lm.pop("unscored_rate")
    assert lm == pytest.approx(ours, nan_ok=True)
    assert ours["rating_ci_low"] <= ours["rating_ci_questions_only_low"]
    assert ours["rating_ci_questions_only_high"] <= ours["rating_ci_high"]
    assert 0.0 < ours["rating_ci_judge_share"] < 1.0
    said = capsys.readouterr().err  # lm-eval's table has no room for it: the run says it
    share = round(100 * ours["rating_ci_judge_share"])
    assert f"care_zh: rating {ours['rating']:.4g}, 95% interval [" in said
    assert f"judging makes {share}% of its width" in said
    calls = len(ids) + 2 * len(rejudged)  # said by both before any generation
    assert f"care_zh: {calls} judge calls to judge" in said
    assert f"care_zh (zero_shot): {calls} judge calls to openai-api/stub/judge per epoch" in said
    inspect_repeats = sorted(
        json.dumps(s.scores["care_judge"].metadata.get("repeats"), sort_keys=True)
        for s in log.samples
    )
    lm_repeats = sorted(
        json.dumps(json.loads(s["filtered_resps"][0]).get("repeats"), sort_keys=True)
        for s in results["samples"]["care_zh"]
    )
    assert lm_repeats == inspect_repeats


def test_one_judging_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    with StubOpenAIServer(responder=_seeded_judge) as server:
        grader = get_model("openai-api/stub/judge", base_url=server.base_url)
        runs = [
            inspect_eval_on_stub(
                care(language="zh", per_category=2, **options),
                server,
                tmp_path / name,
                model_roles={"grader": grader},
            )
            for name, options in (("plain", {}), ("once", {"judge_repeats": 1}))
        ]
    plain, once = ({k: v.value for k, v in r.results.scores[0].metrics.items()} for r in runs)
    assert once == plain
    assert not any("questions_only" in k or "judge_share" in k for k in plain)
    for a, b in zip(runs[0].samples, runs[1].samples, strict=True):
        assert a.scores["care_judge"].metadata == b.scores["care_judge"].metadata
        assert "judgments" not in a.scores["care_judge"].metadata

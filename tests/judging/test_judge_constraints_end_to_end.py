"""The verdict constraint through both harnesses against the stub server: an engine that honours
it leaves no sample unscored and both harnesses send the same constrained judge requests and
report the same numbers; an engine that rejects or ignores it stops the run before generation,
with a message naming the option."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.benchmarks.care.judging import care_rating_format, read_rating
from inspect_culture.care import care
from inspect_culture.judging.constraints import PROBE_MESSAGES, reply_text
from inspect_culture.judging.options import JudgeConfigError
from tests.support.harness_runs import (
    inspect_eval_on_stub,
    lm_eval_all_metrics,
    run_lm_eval,
    stub_grader,
)
from tests.support.openai_stub import (
    StubOpenAIServer,
    care_responder,
    constrained_reply,
    honouring_constraints,
)

pytestmark = pytest.mark.slow
CONSTRAINT_FIELDS = ("structured_outputs", "grammar", "response_format")


def _is_probe(body: dict[str, Any]) -> bool:
    return [dict(m) for m in body["messages"]] == [dict(m) for m in PROBE_MESSAGES]


def _judge_requests(server: StubOpenAIServer) -> list[str]:
    """Constrained judge requests (the probe aside): messages and constraint, canonical JSON."""
    return sorted(
        json.dumps(
            {
                "messages": [
                    {"role": m["role"], "content": m["content"]} for m in body["messages"]
                ],
                **{k: body[k] for k in CONSTRAINT_FIELDS if k in body},
                "max_tokens": body.get("max_tokens"),
                "temperature": body.get("temperature"),
            },
            sort_keys=True,
            ensure_ascii=False,
        )
        for body in server.requests
        if any(k in body for k in CONSTRAINT_FIELDS) and not _is_probe(body)
    )


def _inspect_metrics(log: Any) -> dict[str, float]:
    assert log.status == "success", log.error
    return {k: v.value for k, v in log.results.scores[0].metrics.items()}


def _lm_metadata(server: StubOpenAIServer, constraint: str, **extra: Any) -> dict[str, Any]:
    return {
        "judge_model": "judge",
        "judge_base_url": server.base_url,
        "judge_constraint": constraint,
        **extra,
    }


@pytest.mark.parametrize("constraint", ["regex", "json_schema"])
def test_care_constrained_parity_and_no_unscored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, constraint: str
) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    responder = honouring_constraints(care_responder)  # unconstrained, 1 in 7 has no rating
    with StubOpenAIServer(responder=responder) as inspect_server:
        log = inspect_eval_on_stub(
            care(language="zh", per_category=2, judge_constraint=constraint),
            inspect_server,
            tmp_path,
            model_roles={"grader": stub_grader(inspect_server)},
        )
    with StubOpenAIServer(responder=responder) as lm_server:
        results = run_lm_eval(
            lm_server, ["care_zh"], _lm_metadata(lm_server, constraint, per_category=2)
        )
    ours = _inspect_metrics(log)
    theirs = lm_eval_all_metrics(results, "care_zh", "judged")
    assert log.results.scores[0].unscored_samples == 0
    assert theirs.pop("n_unscored") == 0 and theirs.pop("unscored_rate") == 0
    assert theirs == pytest.approx(ours)
    assert ours["n_scored"] == 10
    # one probe per run, before any generation; then the same constrained judge requests
    for server in (inspect_server, lm_server):
        assert _is_probe(server.requests[0])
        assert sum(_is_probe(body) for body in server.requests) == 1
    judged = _judge_requests(inspect_server)
    assert len(judged) == 10 and judged == _judge_requests(lm_server)
    # recorded with the results; every rating is the one the (stub) judge chose for its prompt
    assert log.eval.metadata["judge_constraint"] == constraint
    chosen = sorted(
        read_rating(reply_text(care_rating_format(), constraint, constrained_reply(p, body))).rating
        for p, body in zip(inspect_server.prompts(), inspect_server.requests)
        if any(k in body for k in CONSTRAINT_FIELDS) and not _is_probe(body)
    )
    scores = [sample.scores["care_judge"] for sample in log.samples]
    assert sorted(score.value for score in scores) == chosen
    for score in scores:
        assert score.metadata["judge_constraint"] == constraint
        assert score.value == read_rating(score.explanation).rating
    for sample in results["samples"]["care_zh"]:
        reply = json.loads(sample["filtered_resps"][0])
        assert reply["judge_constraint"] == constraint
        assert read_rating(reply["judge_text"]).rating is not None
    assert results["configs"]["care_zh"]["metadata"]["judge_constraint"] == constraint


def test_an_engine_that_ignores_the_constraint_stops_both_harnesses_before_generation(
    tmp_path: Path,
) -> None:
    with StubOpenAIServer(responder=care_responder) as server:  # ignores `grammar`
        log = inspect_eval_on_stub(
            care(language="ar", per_category=1, judge_constraint="grammar"),
            server,
            tmp_path,
            model_roles={"grader": stub_grader(server)},
        )
        assert all(_is_probe(body) for body in server.requests)  # nothing generated
        inspect_requests = len(server.requests)
        with pytest.raises(JudgeConfigError, match="ignored judge_constraint=grammar"):
            run_lm_eval(server, ["care_ar"], _lm_metadata(server, "grammar"))
        assert all(_is_probe(body) for body in server.requests)
        assert len(server.requests) == inspect_requests + 1
    assert log.status == "error"
    assert "ignored judge_constraint=grammar" in log.error.message
    assert "GBNF" in log.error.message


def test_an_engine_that_rejects_the_constraint_stops_both_harnesses_before_generation(
    tmp_path: Path,
) -> None:
    def fault(number: int, body: dict[str, Any]) -> int | None:
        return 400 if "structured_outputs" in body else None

    with StubOpenAIServer(responder=care_responder, fault=fault) as server:
        log = inspect_eval_on_stub(
            care(language="ja", per_category=1, judge_constraint="regex"),
            server,
            tmp_path,
            model_roles={"grader": stub_grader(server)},
        )
        with pytest.raises(JudgeConfigError, match="rejected judge_constraint=regex") as raised:
            run_lm_eval(server, ["care_ja"], _lm_metadata(server, "regex"))
        assert all(_is_probe(body) for body in server.requests)
    assert "injected 400" in str(raised.value)  # the server's own reason
    assert log.status == "error"
    assert "rejected judge_constraint=regex" in log.error.message


def test_bad_option_value_names_the_parameter(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="judge_constraint='vllm' is not supported; allowed"):
        care(language="zh", judge_constraint="vllm")
    with StubOpenAIServer() as server:
        with pytest.raises(JudgeConfigError, match="judge_constraint='on' is not supported"):
            run_lm_eval(server, ["care_zh"], _lm_metadata(server, "on"))
        assert server.requests == []


def test_a_rate_limited_constraint_probe_goes_on_with_a_warning(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The probe, like the plain preflight, reached endpoint, key and model when it gets a
    429: the judgments' own retries wait the limit out, so the eval goes on."""

    def fault(number: int, body: dict[str, Any]) -> int | None:
        return 429 if _is_probe(body) else None

    with StubOpenAIServer(responder=honouring_constraints(care_responder), fault=fault) as server:
        log = inspect_eval_on_stub(
            care(language="zh", per_category=1, judge_constraint="regex"),
            server,
            tmp_path,
            model_roles={"grader": stub_grader(server)},
            limit=2,
        )
    assert log.status == "success", log.error
    assert log.results.scores[0].unscored_samples == 0
    err = capfd.readouterr().err
    assert (
        "rate limiting (HTTP 429)" in err and "judge_constraint=regex could not be checked" in err
    )

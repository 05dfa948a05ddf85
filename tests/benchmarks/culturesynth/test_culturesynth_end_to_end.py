"""CultureSynth-7 end to end in both harnesses against the stub server: the same answers and
verdicts give the same numbers (hand-computed), the same judge prompts, swap and single-game
modes, missing baseline answers reported, and no judging without a baseline or a judge."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.benchmarks.culturesynth.metrics import culturesynth_metrics
from inspect_culture.benchmarks.culturesynth.prompts import coin_target_position
from inspect_culture.benchmarks.culturesynth.spec import UNSCORED_COUNTS, PairOutcome
from inspect_culture.datasets_hub.errors import DatasetUnavailableError
from inspect_culture.judging.defaults import DEFAULT_SEED
from inspect_culture.run_files.lm_eval_outputs import outcome_record
from tests.support.culturesynth_data import (
    MISSING,
    QUESTIONS,
    is_judge_call,
    judge_reply,
    question_of,
    write_culturesynth_jsonl,
    write_stub_baseline,
)
from tests.support.harness_runs import (
    inspect_eval_on_stub,
    lm_eval_all_metrics,
    run_lm_eval,
    stub_grader,
)
from tests.support.openai_stub import StubOpenAIServer, honouring_constraints

pytestmark = [pytest.mark.slow, pytest.mark.compat]

# The stub judge rules by RULINGS (tests/support/culturesynth_data.py); MISSING has no baseline.
# scored: +1, 0, -1, 0, +1 -> net (2 - 1) / 5 = 20 %; zh (1 + 0 - 1) / 3 = 0; ja 0; fr 100
EXPECTED_SWAP = {
    "n_scored": 5.0,
    "n_unscored": 2.0,
    "n_missing_baseline": 1.0,
    "net_win_rate": 20.0,
    "weighted_average": 20.0,
    "win_rate": 40.0,
    "tie_rate": 40.0,
    "loss_rate": 20.0,
    "position_consistency": 80.0,
    "net_win_rate_zh": 0.0,
    "net_win_rate_ja": 0.0,
    "net_win_rate_fr": 100.0,
    "net_win_rate_ss": 200.0 / 3,  # zh-0001 +1, ja-0001 0, fr-0001 +1: (1 + 0 + 1) / 3
    "net_win_rate_art": 0.0,  # zh-0002 tie
    "net_win_rate_pp": -100.0,  # zh-0003
}


def responder(prompt: str, body: dict[str, Any]) -> str:
    if is_judge_call(body):
        return judge_reply(prompt)
    return f"TARGET answer to {question_of(prompt)}"


@pytest.fixture
def mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "mirror"
    write_culturesynth_jsonl(root / "culturesynth" / "culturesynth.jsonl")
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(root))
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    return write_stub_baseline(tmp_path / "baseline.json", model="stub/gemma")


def _judge_requests(server: StubOpenAIServer) -> list[str]:
    """The run's judgments, the check before generation (one judgment, `server.checks`) apart."""
    checks = {id(body) for body in server.checks}
    return sorted(
        json.dumps(body["messages"], ensure_ascii=False)
        for body in server.requests
        if body["messages"][0]["role"] == "system" and id(body) not in checks
    )


def _run_inspect(server: StubOpenAIServer, log_dir: Path, **task_args: Any) -> dict[str, float]:
    """The metrics, and Inspect's count of unscored samples as `n_unscored`: unscored samples
    never reach an Inspect metric (`Score.unscored`)."""
    from inspect_culture.culturesynth import culturesynth

    log = inspect_eval_on_stub(
        culturesynth(**task_args), server, log_dir, model_roles={"grader": stub_grader(server)}
    )
    assert log.status == "success", log.error
    [score] = log.results.scores
    assert not set(UNSCORED_COUNTS) & score.metrics.keys()
    return {"n_unscored": score.unscored_samples, **{k: v.value for k, v in score.metrics.items()}}


def _same(ours: dict[str, float], theirs: dict[str, float]) -> None:
    """Both harnesses agree; lm-eval alone reports n_missing_baseline."""
    assert ours == pytest.approx({k: v for k, v in theirs.items() if k != "n_missing_baseline"})


def _lm_eval_metadata(server: StubOpenAIServer, baseline: Path, **extra: Any) -> dict[str, Any]:
    return {
        "judge_model": "judge",
        "judge_base_url": server.base_url,
        "baseline_responses": str(baseline),
        **extra,
    }


@pytest.mark.parametrize(("swap", "seed"), [(True, 5), (False, 0)])
def test_parity_known_answer_and_same_prompts(
    mirror: Path, tmp_path: Path, swap: bool, seed: int
) -> None:
    with StubOpenAIServer(responder=responder) as inspect_server:
        ours = _run_inspect(
            inspect_server, tmp_path / "logs", baseline_responses=str(mirror), swap=swap, seed=seed
        )
    with StubOpenAIServer(responder=responder) as lm_server:
        metadata = _lm_eval_metadata(lm_server, mirror, swap=swap, seed=seed)
        results = run_lm_eval(lm_server, ["culturesynth_all"], metadata)
    theirs = lm_eval_all_metrics(results, "culturesynth_all", "judged")
    _same(ours, theirs)
    judge_calls = _judge_requests(inspect_server)
    assert judge_calls == _judge_requests(lm_server)
    if swap:
        assert {k: theirs[k] for k in EXPECTED_SWAP} == EXPECTED_SWAP
        # the interval is the seeded bootstrap of these outcomes, with the task's seed
        seeded = culturesynth_metrics(
            [
                PairOutcome(f"q{i}", v, "zh", "SS", None, None, seed)
                for i, v in enumerate((1, 0, -1, 0, 1))
            ]  # fmt: skip
        )
        for key in ("net_win_rate_ci_low", "net_win_rate_ci_high"):
            assert ours[key] == theirs[key] == seeded[key]
        assert len(judge_calls) == 2 * (len(QUESTIONS) - 1)  # both orders, none for MISSING
    else:
        assert len(judge_calls) == len(QUESTIONS) - 1
        assert "position_consistency" not in ours
        # one game per question, the target where the seeded coin put it
        for call in judge_calls:
            user = json.loads(call)[1]["content"]
            expected = coin_target_position(question_of(user), 0)
            assert (user.index("TARGET") < user.index("BASELINE")) == (expected == "A")
        # zh-0002's judge always says [[A]]: the single game goes to whoever sits in A
        zh2 = 1.0 if coin_target_position("zh-0002", 0) == "A" else -1.0
        zh_expected = 100.0 * (1 + zh2 - 1) / 3
        assert ours["net_win_rate_zh"] == pytest.approx(zh_expected)
        assert ours["n_scored"] == 5 and theirs["n_missing_baseline"] == 1


def test_lm_eval_language_tasks_match_inspect(mirror: Path, tmp_path: Path) -> None:
    with StubOpenAIServer(responder=responder) as server:
        results = run_lm_eval(
            server, ["culturesynth_zh", "culturesynth_fr"], _lm_eval_metadata(server, mirror)
        )
    zh = lm_eval_all_metrics(results, "culturesynth_zh", "judged")
    fr = lm_eval_all_metrics(results, "culturesynth_fr", "judged")
    assert zh["net_win_rate"] == EXPECTED_SWAP["net_win_rate_zh"] and zh["n_scored"] == 3
    assert fr["net_win_rate"] == 100.0 and fr["n_missing_baseline"] == 1
    samples = results["samples"]["culturesynth_fr"]
    missing = next(s for s in samples if s["doc"]["id"] == MISSING)
    record = PairOutcome.from_record(outcome_record(missing, "net_win_rate") or {})  # the carrier's
    assert record.outcome is None and record.reason == "no baseline answer for this question"


def test_inspect_language_filter(mirror: Path, tmp_path: Path) -> None:
    with StubOpenAIServer(responder=responder) as server:
        ours = _run_inspect(
            server, tmp_path / "logs", baseline_responses=str(mirror), language="zh"
        )
    assert ours["n_scored"] == 3 and ours["net_win_rate"] == 0.0
    assert "net_win_rate_fr" not in ours


def test_no_baseline_or_no_judge_fails_before_generation(mirror: Path, tmp_path: Path) -> None:
    from inspect_culture.culturesynth import culturesynth
    from inspect_culture.judging.options import JudgeConfigError

    with StubOpenAIServer(responder=responder) as server:
        log = inspect_eval_on_stub(
            culturesynth(), server, tmp_path / "logs", model_roles={"grader": stub_grader(server)}
        )
        assert log.status == "error" and "--model-role baseline=" in str(log.error)
        with pytest.raises(DatasetUnavailableError, match="baseline_responses"):
            run_lm_eval(
                server, ["culturesynth_zh"], {"judge_model": "j", "judge_base_url": server.base_url}
            )
        with pytest.raises(JudgeConfigError):
            run_lm_eval(server, ["culturesynth_zh"], {"baseline_responses": str(mirror)})
        with pytest.raises(ValueError, match="swap"):
            run_lm_eval(
                server, ["culturesynth_zh"], _lm_eval_metadata(server, mirror, swap="maybe")
            )
        assert server.requests == []


def test_lm_eval_loader_uses_validate_defaults(mirror: Path) -> None:
    # swap and seed left out of --metadata: spec.validate's defaults, not the adapter's
    from inspect_culture.benchmarks.culturesynth import spec
    from inspect_culture.lm_eval_tasks.culturesynth import utils

    judge = {"judge_model": "j", "judge_base_url": "http://127.0.0.1:9", "judge_preflight": False}
    defaults = spec.validate()
    [doc, *_] = utils.load_judged_docs({"language": "zh"}, baseline_responses=str(mirror), **judge)[
        "test"
    ]
    assert (doc["swap"], doc["seed"]) == (defaults.swap, defaults.seed)
    given = {"swap": not defaults.swap, "seed": defaults.seed + 7}
    [doc, *_] = utils.load_judged_docs(
        {"language": "zh"}, baseline_responses=str(mirror), **judge, **given
    )["test"]
    assert (doc["swap"], doc["seed"]) == (given["swap"], given["seed"])


def test_inspect_baseline_role_is_cached_across_target_models(mirror: Path, tmp_path: Path) -> None:
    """The baseline model answers once; a second target model's run reuses those answers."""
    from inspect_ai.model import get_model

    from inspect_culture.culturesynth import culturesynth
    from inspect_culture.inspect_adapter.preflight import PREFLIGHT_PROMPT

    def baseline_responder(prompt: str, body: dict[str, Any]) -> str:
        return f"BASELINE answer to {question_of(prompt)}"

    with (
        StubOpenAIServer(responder=responder) as server,
        StubOpenAIServer(responder=baseline_responder) as baseline_server,
    ):
        for run in range(2):
            roles = {
                "grader": stub_grader(server),
                "baseline": get_model("openai-api/stub/gemma", base_url=baseline_server.base_url),
            }
            log = inspect_eval_on_stub(
                culturesynth(language="zh"), server, tmp_path / f"logs{run}", model_roles=roles
            )
            assert log.status == "success", log.error
            metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
            assert metrics["n_scored"] == 3 and metrics["net_win_rate"] == 0.0
            answers = [p for p in baseline_server.prompts() if p != PREFLIGHT_PROMPT]
            assert len(answers) == 3  # the second run asked the baseline nothing (bar its check)


@pytest.mark.parametrize("constraint", ["grammar", "json_schema"])
def test_constrained_judge_same_requests_and_numbers(
    mirror: Path, tmp_path: Path, constraint: str
) -> None:
    judge = honouring_constraints(responder)  # "garbage" rulings now end in a verdict too
    with StubOpenAIServer(responder=judge) as inspect_server:
        ours = _run_inspect(
            inspect_server,
            tmp_path / "logs",
            baseline_responses=str(mirror),
            judge_constraint=constraint,
        )
    with StubOpenAIServer(responder=judge) as lm_server:
        metadata = _lm_eval_metadata(lm_server, mirror, judge_constraint=constraint)
        results = run_lm_eval(lm_server, ["culturesynth_all"], metadata)
    theirs = lm_eval_all_metrics(results, "culturesynth_all", "judged")
    _same(ours, theirs)
    assert ours["n_scored"] == len(QUESTIONS) - 1 and ours["n_unscored"] == 1  # only MISSING

    def constrained(server: StubOpenAIServer) -> list[str]:
        keys = ("messages", "grammar", "response_format", "max_tokens")
        return sorted(
            json.dumps({k: body.get(k) for k in keys}, sort_keys=True, ensure_ascii=False)
            for body in server.requests
            if body["messages"][0]["role"] == "system"
        )

    sent = constrained(inspect_server)
    assert len(sent) == 2 * (len(QUESTIONS) - 1) and sent == constrained(lm_server)
    for request in map(json.loads, sent):
        if constraint == "grammar":
            assert request["grammar"].startswith("root ::=") and request["response_format"] is None
        else:
            assert request["response_format"]["type"] == "json_schema" and not request["grammar"]
    for sample in results["samples"]["culturesynth_all"]:
        reply = json.loads(sample["filtered_resps"][0])
        assert reply["judge_constraint"] == constraint
        for game in reply["games"]:  # JSON verdicts are read back in the paper's format
            assert re.search(r"\n\[\[[ABC]\]\]$", game["text"]), game["text"]


def _jury_responder(prompt: str, body: dict[str, Any]) -> str:
    """judge_a follows RULINGS; judge_b always prefers the answer shown first ([[A]])."""
    if is_judge_call(body):
        return judge_reply(prompt) if body["model"] == "judge_a" else "Both fine. [[A]]"
    return f"TARGET answer to {question_of(prompt)}"


def test_jury_parity(mirror: Path, tmp_path: Path) -> None:
    """A jury of two judges with different rules: each order's majority (a split is a tie), each
    judge's own net win rate and Fleiss' kappa are the same in both harnesses."""
    from inspect_ai.model import get_model

    from inspect_culture.culturesynth import culturesynth

    with StubOpenAIServer(responder=_jury_responder) as inspect_server:
        roles = {
            "grader": get_model("openai-api/stub/judge_a", base_url=inspect_server.base_url),
            "grader_2": get_model("openai-api/stub/judge_b", base_url=inspect_server.base_url),
        }
        log = inspect_eval_on_stub(
            culturesynth(baseline_responses=str(mirror)),
            inspect_server,
            tmp_path / "logs",
            model_roles=roles,
        )
    assert log.status == "success", log.error
    [score] = log.results.scores
    ours = {"n_unscored": score.unscored_samples, **{k: v.value for k, v in score.metrics.items()}}
    with StubOpenAIServer(responder=_jury_responder) as lm_server:
        metadata = {
            "judge_models": "judge_a,judge_b",
            "judge_base_url": lm_server.base_url,
            "baseline_responses": str(mirror),
        }
        results = run_lm_eval(lm_server, ["culturesynth_all"], metadata)
    theirs = lm_eval_all_metrics(results, "culturesynth_all", "judged")
    _same(ours, theirs)
    assert ours["n_judges"] == 2 and "judges_kappa" in ours
    # judge_b alone: [[A]] in both orders is a win then a loss, an inconsistent tie: 0 net
    assert ours["judge_2_mean"] == 0.0 and ours["judge_2_n_failed"] == 0


def _rejudging_responder(prompt: str, body: dict[str, Any]) -> str:
    """Judgings 1 and 2 (the judge seed, and seed + 1) follow RULINGS; judging 3 always prefers
    the answer shown first ([[A]]): in both orders a win then a loss, an inconsistent tie."""
    if is_judge_call(body):
        return "Both fine. [[A]]" if body["seed"] == DEFAULT_SEED + 2 else judge_reply(prompt)
    return f"TARGET answer to {question_of(prompt)}"


def test_rejudging_parity(mirror: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Three judgings of every answer: the majority keeps each ruling, and the question no
    ruling scored becomes judging 3's tie (a failed judging is left out, as a jury's failed
    judge): +1, 0, -1, 0, +1, 0 -> net 1 / 6 = 16.7 %. Each answer's judgings are (ruling,
    ruling, 0), and the two-level interval with its questions-only bounds and judge share is
    the same in both harnesses."""
    from inspect_culture.culturesynth import culturesynth

    with StubOpenAIServer(responder=_rejudging_responder) as inspect_server:
        log = inspect_eval_on_stub(
            culturesynth(baseline_responses=str(mirror), judge_repeats=3),
            inspect_server,
            tmp_path / "logs",
            model_roles={"grader": stub_grader(inspect_server)},
        )
        inspect_sent = _judge_requests(inspect_server)
    assert log.status == "success", log.error
    [score] = log.results.scores
    ours = {"n_unscored": score.unscored_samples, **{k: v.value for k, v in score.metrics.items()}}
    with StubOpenAIServer(responder=_rejudging_responder) as lm_server:
        metadata = _lm_eval_metadata(lm_server, mirror, judge_repeats=3)
        results = run_lm_eval(lm_server, ["culturesynth_all"], metadata)
        lm_sent = _judge_requests(lm_server)
    calls = 3 * 2 * (len(QUESTIONS) - 1)  # 3 judgings, 2 orders, no baseline for one question
    assert lm_sent == inspect_sent and len(inspect_sent) == calls
    said = capsys.readouterr().err  # both harnesses count them before any generation
    assert f"culturesynth (every language): {calls} judge calls to" in said
    assert f"culturesynth_all: {calls} judge calls to judge" in said
    theirs = lm_eval_all_metrics(results, "culturesynth_all", "judged")
    _same(ours, theirs)
    assert ours["n_scored"] == 6.0 and ours["net_win_rate"] == pytest.approx(100.0 / 6)
    assert ours["net_win_rate_ci_low"] <= ours["net_win_rate_ci_questions_only_low"]
    assert 0.0 < ours["net_win_rate_ci_judge_share"] < 1.0
    for sample in log.samples:
        pair = sample.scores["culturesynth_judge"].metadata["pair"]
        if pair["question_id"] == MISSING:  # no baseline answer: nothing judged, nothing kept
            assert "judgments" not in pair
            continue
        first = pair["judgments"][0]
        if first is None:  # no ruling: judging 3's tie decides
            assert pair["judgments"] == [None, None, 0] and pair["outcome"] == 0
        else:
            assert pair["judgments"] == [first, first, 0] and pair["outcome"] == first

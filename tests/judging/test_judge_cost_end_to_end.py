"""What judging cost, end to end on the stub, whose `usage` counts tokens by its own rule
(`openai_stub.stub_tokens`, not the estimator's): lm-eval's results file carries each judge's
tokens and cost (`metadata.judge_cost`) and a jury's agreement (`metadata.jury_agreement`), each
samples line its judges' tokens; a cached verdict counts 0 new tokens; `culture-evals judge`
prints the totals and `--dry-run` an estimate, which lies within 25% of the prompt tokens the
stub then reports, for CARE and CultureSynth-7."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.benchmarks.care.judging import CareJudging
from inspect_culture.benchmarks.culturesynth.judging import CultureSynthJudging
from inspect_culture.cli import main
from inspect_culture.judging.usage import TOKENS_KEY, Price, cost
from tests.judging.test_jury_parity import _two_judges
from tests.support.culturesynth_data import (
    is_judge_call,
    judge_reply,
    question_of,
    write_culturesynth_jsonl,
    write_stub_baseline,
)
from tests.support.harness_runs import lm_eval_all_metrics, run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, body_text, care_responder, stub_tokens

pytestmark = pytest.mark.slow
CARE_JUDGE = "Please serve as"
PRICE = Price(2.5, 10.0)
ESTIMATE = re.compile(r"estimated (\d+) prompt \+ (\d+) completion tokens")
MEASURED = re.compile(
    r"estimated (\d+) prompt \+ (\d+) completion tokens \(completion measured from one judgment\)"
)
ASSUMED = "(completion assumed {} a verdict)"


def _results(folder: Path) -> dict[str, Any]:
    [path] = folder.rglob("results_*.json")
    return json.loads(path.read_text("utf-8"))


def _samples(folder: Path, task: str) -> list[dict[str, Any]]:
    [path] = folder.rglob(f"samples_{task}_*.jsonl")
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _is_judge(body: dict[str, Any]) -> bool:
    text = body_text(body)
    return text.startswith(CARE_JUDGE) or is_judge_call(body)


def _stub_counts(server: StubOpenAIServer, model: str) -> tuple[int, int]:
    """The prompt and completion tokens the stub reported for `model`'s judge calls (the check
    before generation, one judgment not counted in a run's totals, apart)."""
    checks = {id(b) for b in server.checks}
    bodies = [
        b for b in server.requests if _is_judge(b) and b["model"] == model and id(b) not in checks
    ]
    prompt = sum(stub_tokens(body_text(b)) for b in bodies)
    completion = sum(stub_tokens(server.responder(b["messages"][-1]["content"], b)) for b in bodies)
    return prompt, completion


def test_lm_eval_results_carry_each_judges_tokens_cost_and_the_jury_agreement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    with StubOpenAIServer(responder=_two_judges) as server:
        jury = {
            "judge_models": "judge_a,judge_b",
            "judge_base_url": server.base_url,
            "judge_price": "2.5,10",
        }
        results = run_lm_eval(server, ["care_zh"], jury, limit=12, output_path=tmp_path / "out")
        expected = {m: _stub_counts(server, m) for m in ("judge_a", "judge_b")}
    said = capsys.readouterr().err
    metadata = _results(tmp_path / "out")["configs"]["care_zh"]["metadata"]
    record = metadata["judge_cost"]
    assert record["price"] == {"prompt": 2.5, "completion": 10.0}
    for name, model in (("judge_1", "judge_a"), ("judge_2", "judge_b")):
        prompt, completion = expected[model]
        assert prompt > 12 * 100 and completion > 0  # counted by the stub, not 10/2 a call
        tokens = {"prompt_tokens": prompt, "completion_tokens": completion}
        assert record["judges"][name] == {
            "model": model, "calls": 12, "cached": 0, **tokens, "unreported": 0,
            "cost": pytest.approx(cost(tokens, PRICE)),
        }  # fmt: skip
        line = (
            f"{name} ({model}): 12 calls, 0 cached (0 new tokens), {prompt} prompt + "
            f"{completion} completion tokens, cost {cost(tokens, PRICE):.4f} at 2.5,10 per million"
        )
        assert line in said
    assert record["cost"] == pytest.approx(sum(j["cost"] for j in record["judges"].values()))
    agreement = metadata["jury_agreement"]
    figures = lm_eval_all_metrics(results, "care_zh", "judged")
    assert agreement["statistic"] == "Krippendorff's alpha" and agreement["n_judges"] == 2
    assert agreement["value"] == pytest.approx(figures["judges_alpha"])
    assert agreement["judges"]["judge_2"]["n_failed"] == figures["judge_2_n_failed"] > 0
    # each samples line: its judges' tokens, in the filtered response (not the metric fields)
    lines = _samples(tmp_path / "out", "care_zh")
    per_line = [json.loads(s["filtered_resps"][0])[TOKENS_KEY] for s in lines]
    assert sum(t["judge_1"]["prompt_tokens"] for t in per_line) == expected["judge_a"][0]
    assert all(t["judge_2"]["calls"] == 1 for t in per_line)
    # before generation: the calls and an estimate of their tokens, with its cost
    announced = next(line for line in said.splitlines() if "judge calls for each of 2" in line)
    assert ESTIMATE.search(announced) and "at 2.5,10 per million" in announced


def test_a_cached_verdict_counts_zero_new_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", str(tmp_path / "cache.sqlite"))
    with StubOpenAIServer(responder=care_responder) as server:
        judge = {"judge_model": "judge", "judge_base_url": server.base_url}
        run_lm_eval(server, ["care_zh"], judge, limit=6, output_path=tmp_path / "first")
        run_lm_eval(server, ["care_zh"], judge, limit=6, output_path=tmp_path / "again")
    first = _results(tmp_path / "first")["configs"]["care_zh"]["metadata"]["judge_cost"]
    again = _results(tmp_path / "again")["configs"]["care_zh"]["metadata"]["judge_cost"]
    assert first["judges"]["judge_1"]["calls"] == 6 and first["judges"]["judge_1"]["cached"] == 0
    assert first["judges"]["judge_1"]["prompt_tokens"] > 0
    assert again["judges"]["judge_1"] == {
        "model": "judge", "calls": 0, "cached": 6, "prompt_tokens": 0, "completion_tokens": 0,
        "unreported": 0,
    }  # fmt: skip
    assert again["price"] is None and "cost" not in again
    tokens = [
        json.loads(s["filtered_resps"][0])[TOKENS_KEY]
        for s in _samples(tmp_path / "again", "care_zh")
    ]
    assert all(t["judge_1"]["cached"] == 1 and t["judge_1"]["prompt_tokens"] == 0 for t in tokens)


def _culturesynth_responder(prompt: str, body: dict[str, Any]) -> str:
    if is_judge_call(body):
        return judge_reply(prompt)
    return f"TARGET answer to {question_of(prompt)}"


def _judged_later(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    server: StubOpenAIServer,
    task: str,
    metadata: dict[str, Any],
    **run: Any,
) -> tuple[tuple[int, int], str, dict[str, Any]]:
    """Generate without a judge, then `culture-evals judge --dry-run` and judge for real, both
    priced: the estimate, what the judging printed, and its results file's judge cost."""
    run_lm_eval(
        server, [task], {**metadata, "judge_later": True}, output_path=tmp_path / "gen", **run
    )
    args = [
        "--judge-model",
        "judge",
        "--judge-base-url",
        server.base_url,
        "--judge-price",
        "2.5,10",
    ]
    capsys.readouterr()
    gen = str(tmp_path / "gen")
    assert main(["judge", gen, "-o", str(tmp_path / "dry"), "--dry-run", *args]) == 0
    dry = capsys.readouterr().out
    found = ESTIMATE.search(dry)
    assert found is not None, dry
    assert "at 2.5,10 per million" in dry
    # --dry-run asks no judge: each reply the benchmark's declared verdict, and it says so
    assert ASSUMED.format(int(found[2]) // max(1, _calls_to_make(dry))) in dry, dry
    server.requests.clear()
    server.checks.clear()
    assert main(["judge", gen, "-o", str(tmp_path / "judged"), *args]) == 0
    printed = capsys.readouterr()
    record = _results(tmp_path / "judged")["configs"][task]["metadata"]["judge_cost"]
    return (int(found[1]), int(found[2])), printed.out + printed.err, record


def _calls_to_make(said: str) -> int:
    found = re.search(r"(\d+) to make", said)
    assert found is not None, said
    return int(found[1])


def _measured(printed: str) -> tuple[int, int]:
    """The estimate a judging printed before judging, its completion measured by the check."""
    found = MEASURED.search(printed)
    assert found is not None, printed
    return int(found[1]), int(found[2])


def _within(estimate: int, actual: int, share: float = 0.25) -> bool:
    return abs(estimate - actual) <= share * actual


def test_care_judge_prints_the_totals_and_the_dry_run_estimate_is_within_25_percent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    with StubOpenAIServer(responder=care_responder) as server:
        (prompt, completion), printed, record = _judged_later(
            tmp_path, capsys, server, "care_zh", {}, limit=20
        )
        reported = _stub_counts(server, "judge")
    totals = record["judges"]["judge_1"]
    assert (totals["prompt_tokens"], totals["completion_tokens"]) == reported
    assert totals["calls"] == 20 and totals["cost"] == pytest.approx(cost(totals, PRICE))
    assert (
        f"care_zh: judge cost: judge_1 (judge): 20 calls, 0 cached (0 new tokens), "
        f"{reported[0]} prompt + {reported[1]} completion tokens, cost" in printed
    )
    assert _within(prompt, totals["prompt_tokens"]), (prompt, totals)
    assert completion == 20 * CareJudging.verdict_tokens  # --dry-run: declared, said so
    # judging for real: the check's one judgment measured the reply; the total within 25%
    prompt, completion = _measured(printed)
    assert len(server.checks) == 1
    paid = totals["prompt_tokens"] + totals["completion_tokens"]
    assert _within(prompt + completion, paid), (prompt, completion, totals)


def test_culturesynth_dry_run_estimate_is_within_25_percent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_culturesynth_jsonl(tmp_path / "mirror" / "culturesynth" / "culturesynth.jsonl")
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path / "mirror"))
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    baseline = {"baseline_responses": str(write_stub_baseline(tmp_path / "b.json", model="g"))}
    with StubOpenAIServer(responder=_culturesynth_responder) as server:
        (prompt, completion), printed, record = _judged_later(
            tmp_path, capsys, server, "culturesynth_all", {**baseline, "swap": True}
        )
        reported = _stub_counts(server, "judge")
    totals = record["judges"]["judge_1"]
    assert (totals["prompt_tokens"], totals["completion_tokens"]) == reported
    games = totals["calls"]
    assert games == 12  # two orders of the 6 questions with a baseline answer
    assert "culturesynth_all: judge cost: judge_1 (judge): 12 calls" in printed
    assert _within(prompt, totals["prompt_tokens"]), (prompt, totals)
    assert completion == games * CultureSynthJudging.verdict_tokens  # --dry-run: declared
    prompt, completion = _measured(printed)  # judging for real: measured by the check
    assert len(server.checks) == 1
    paid = totals["prompt_tokens"] + totals["completion_tokens"]
    assert _within(prompt + completion, paid), (prompt, completion, totals)


@pytest.mark.parametrize("task", ["care_zh", "culturesynth_all"])
def test_lm_eval_estimate_before_generation_is_within_25_percent(
    task: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """lm-eval itself: the estimate said when the task loads, each reply measured by the check's
    one judgment, lies within 25% of the tokens the run then paid, prompt and completion
    together; the check is not among the run's calls."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    responder, extra = care_responder, {"per_category": 1}
    if task == "culturesynth_all":
        write_culturesynth_jsonl(tmp_path / "mirror" / "culturesynth" / "culturesynth.jsonl")
        monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path / "mirror"))
        baseline = write_stub_baseline(tmp_path / "b.json", model="g")
        responder, extra = _culturesynth_responder, {"baseline_responses": str(baseline)}
    with StubOpenAIServer(responder=responder) as server:
        judge = {"judge_model": "judge", "judge_base_url": server.base_url, **extra}
        run_lm_eval(server, [task], judge, output_path=tmp_path / "out")
        reported, checks = _stub_counts(server, "judge"), len(server.checks)
    prompt, completion = _measured(capsys.readouterr().err)
    totals = _results(tmp_path / "out")["configs"][task]["metadata"]["judge_cost"]
    paid = totals["judges"]["judge_1"]
    assert (paid["prompt_tokens"], paid["completion_tokens"]) == reported and checks == 1
    assert _within(prompt + completion, sum(reported)), (prompt, completion, reported)

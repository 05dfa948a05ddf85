"""The judge's real cost (issue 42, point 5), Inspect and the report: every Inspect judgment keeps
the tokens the provider reported in the score's metadata; a run's totals by judge equal the
stub's reported usage summed; a re-run answered by the judge cache records cached calls and 0 new
tokens; the report's "Judge cost" table gives the same totals for an Inspect run and an lm-eval
run of the same samples, prices them, says "not recorded" (never 0) for a run made before token
records, in every format; and a malformed --judge-price is refused in one line."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import GenerateConfig, get_model

from inspect_culture.care import care
from inspect_culture.cli import main
from inspect_culture.judging.usage import TOKENS_KEY, Price
from inspect_culture.report.build import build_report, write_report
from inspect_culture.report.records import clear_cache
from inspect_culture.run_files import inspect_outputs, lm_eval_outputs
from tests.support.harness_runs import inspect_eval_on_stub, run_lm_eval, stub_grader
from tests.support.openai_stub import StubOpenAIServer, care_responder, is_check

pytestmark = [pytest.mark.slow]

JUDGE = "judge"  # the stub grader's model (`stub_grader`), as both harnesses name it
CACHED = GenerateConfig(cache=True)  # Inspect's own cache of the grader's replies
COUNTS = ("calls", "cached", "prompt_tokens", "completion_tokens")


class UsageSeen:
    """What the stub answered each judge request, its reported `usage`, read off its replies
    (the stub's own figures, whatever it counts); the check before generation (one judgment,
    not counted in a run's totals) apart, in `checks`."""

    def __init__(self, server: StubOpenAIServer) -> None:
        self.usages: list[dict[str, int]] = []
        self.checks: list[dict[str, int]] = []
        answer = server._completion

        def recording(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
            status, payload = answer(path, body)
            if body.get("model") == JUDGE:
                (self.checks if is_check(body) else self.usages).append(dict(payload["usage"]))
            return status, payload

        server._completion = recording  # type: ignore[method-assign]

    def totals(self) -> dict[str, int]:
        """The judge's totals as a token record would sum them (no cache: every reply a call)."""
        return {
            "calls": len(self.usages),
            "cached": 0,
            "prompt_tokens": sum(u["prompt_tokens"] for u in self.usages),
            "completion_tokens": sum(u["completion_tokens"] for u in self.usages),
            "unreported": 0,
        }


@pytest.fixture
def stub() -> Iterator[tuple[StubOpenAIServer, UsageSeen]]:
    with StubOpenAIServer(responder=care_responder) as server:
        yield server, UsageSeen(server)


def _care(server: StubOpenAIServer, log_dir: Path, **task_args: Any) -> Any:
    task = care(language="zh", per_category=1, **task_args)
    log = inspect_eval_on_stub(task, server, log_dir, model_roles={"grader": stub_grader(server)})
    assert log.status == "success", log.error
    return log


def test_inspect_records_the_judges_tokens_and_a_cached_rerun_costs_none(
    tmp_path: Path, stub: tuple[StubOpenAIServer, UsageSeen]
) -> None:
    """The judge cache is on (conftest: a fresh one per test): the second run sends nothing."""
    server, seen = stub
    log = _care(server, tmp_path / "first")
    expected = seen.totals()
    assert expected["calls"] == len(log.samples) > 0 and expected["prompt_tokens"] > 0
    for sample in log.samples:  # each sample: one judge call, its tokens as the stub said
        [record] = sample.scores["care_judge"].metadata[TOKENS_KEY].values()
        assert record["calls"] == 1 and record["cached"] == 0 and record["prompt_tokens"] > 0
    assert inspect_outputs.judge_tokens(Path(log.location)) == {"judge_1": expected}

    seen.usages.clear()
    again = _care(server, tmp_path / "again")
    assert seen.usages == []  # every verdict from the judge cache
    cached = {**dict.fromkeys(expected, 0), "cached": expected["calls"]}
    assert inspect_outputs.judge_tokens(Path(again.location)) == {"judge_1": cached}


def test_a_reply_from_inspects_own_cache_costs_no_new_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stub: tuple[StubOpenAIServer, UsageSeen]
) -> None:
    """A grader whose config sets Inspect's `cache` (our judge cache off): Inspect answers the
    second run from its cache and counts no usage for it; neither do we (cached, 0 tokens)."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    server, seen = stub
    grader = get_model(f"openai-api/stub/{JUDGE}", base_url=server.base_url, config=CACHED)
    logs = []
    for run in ("first", "again"):
        task = care(language="zh", per_category=1)
        logs.append(
            inspect_eval_on_stub(task, server, tmp_path / run, model_roles={"grader": grader})
        )
        assert logs[-1].status == "success", logs[-1].error
    [first_paid] = [len(seen.usages)]
    tokens = [inspect_outputs.judge_tokens(Path(log.location)) for log in logs]
    assert tokens[0]["judge_1"]["calls"] == first_paid == len(logs[0].samples)
    assert tokens[1] == {
        "judge_1": {**dict.fromkeys(tokens[0]["judge_1"], 0), "cached": first_paid}
    }


def test_judge_cost_table_alike_for_both_harnesses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stub: tuple[StubOpenAIServer, UsageSeen]
) -> None:
    """The same samples judged in each harness (cache off, so each pays for every verdict): one
    row each, with the same calls and tokens, the stub's, and the cost at --judge-price."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    clear_cache()
    server, seen = stub
    _care(server, tmp_path / "inspect")
    paid = seen.totals()
    seen.usages.clear()
    metadata = {"judge_model": JUDGE, "judge_base_url": server.base_url, "per_category": 1}
    run_lm_eval(server, ["care_zh"], metadata, output_path=tmp_path / "lm")
    assert seen.totals() == paid  # the same prompts: the same reported tokens

    [samples] = list((tmp_path / "lm").rglob("samples_care_zh_*.jsonl"))
    assert lm_eval_outputs.judge_tokens(samples, "n_scored") == {"judge_1": paid}
    price = Price(2.5, 10.0)
    report = build_report([tmp_path / "inspect", tmp_path / "lm"], judge_price=price)
    [table] = [t for t in report.tables if t.key == "care_judge_cost"]
    assert [row.harness for row in table.rows] == ["inspect", "lm-eval"]
    assert {row.group for row in table.rows} == {JUDGE}
    dollars = (paid["prompt_tokens"] * 2.5 + paid["completion_tokens"] * 10.0) / 1e6
    for row in table.rows:
        assert {k: row.cells[k].value for k in COUNTS} == {k: paid[k] for k in COUNTS}
        assert row.cells["cost"].value == pytest.approx(dollars)
        assert "price 2.5,10 per million" in row.setting
    assert not [w for w in report.warnings if "judge cost" in w]
    written = write_report(report, tmp_path / "report", ["md", "html", "tex", "csv"])
    for name in ("md", "html", "tex"):
        assert "CARE: judge cost" in written[name].read_text(encoding="utf-8"), name
    with written["csv"].open(encoding="utf-8") as handle:
        lines = [r for r in csv.DictReader(handle) if r["table"] == "care_judge_cost"]
    shown = {(r["harness"], r["metric"]): r["value"] for r in lines}
    assert shown[("lm-eval", "prompt_tokens")] == str(paid["prompt_tokens"])
    assert float(shown[("inspect", "cost")]) == pytest.approx(dollars)


def _without_token_records(log_path: Path) -> None:
    """The log as a run made before judges' tokens were recorded would have it."""
    log = read_eval_log(str(log_path))
    for sample in log.samples or []:
        for score in (sample.scores or {}).values():
            (score.metadata or {}).pop(TOKENS_KEY, None)
    write_eval_log(log, str(log_path))


def test_a_run_without_token_records_shows_not_recorded(
    tmp_path: Path, stub: tuple[StubOpenAIServer, UsageSeen]
) -> None:
    clear_cache()
    server, _ = stub
    log = _care(server, tmp_path / "old", judge_price="1,2")
    _without_token_records(Path(log.location))
    assert inspect_outputs.judge_tokens(Path(log.location)) is None
    report = build_report([tmp_path / "old"])
    [table] = [t for t in report.tables if t.key == "care_judge_cost"]
    [row] = table.rows
    assert all(cell.value is None and cell.note == "not recorded" for cell in row.cells.values())
    assert "cost" not in {column.key for column in table.columns}  # nothing to price
    written = write_report(report, tmp_path / "report", ["md", "html", "tex", "csv"])
    for name in ("md", "html", "tex"):
        text = written[name].read_text(encoding="utf-8")
        assert "not recorded" in text, name
    with written["csv"].open(encoding="utf-8") as handle:  # no 0 written for it either
        assert not [r for r in csv.DictReader(handle) if r["table"] == "care_judge_cost"]


def test_the_price_a_run_recorded_prices_its_tokens(
    tmp_path: Path, stub: tuple[StubOpenAIServer, UsageSeen]
) -> None:
    """-T judge_price=IN,OUT on the run: the report prices with it when --judge-price is absent,
    and --judge-price wins over it."""
    clear_cache()
    server, seen = stub
    _care(server, tmp_path / "run", judge_price="1,2")
    paid = seen.totals()
    for given, (prompt, completion) in ((None, (1, 2)), (Price(3, 4), (3, 4))):
        clear_cache()
        report = build_report([tmp_path / "run"], judge_price=given)
        [table] = [t for t in report.tables if t.key == "care_judge_cost"]
        [row] = table.rows
        dollars = (paid["prompt_tokens"] * prompt + paid["completion_tokens"] * completion) / 1e6
        assert row.cells["cost"].value == pytest.approx(dollars)


@pytest.mark.parametrize("price", ["2.5", "2.5,ten", "-1,2", "1,2,3"])
def test_a_malformed_judge_price_is_one_line(tmp_path: Path, price: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["report", str(tmp_path), "-o", str(tmp_path / "out"), f"--judge-price={price}"])
    message = str(stopped.value.code)
    assert message.startswith("culture-evals report: --judge-price=")
    assert "IN,OUT" in message and "2.5,10" in message and "\n" not in message
    assert not (tmp_path / "out").exists()


def test_inspect_says_the_token_estimate_and_cost_before_generation(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stub: tuple[StubOpenAIServer, UsageSeen],
) -> None:
    """One judge, no jury: the call count is said (as lm-eval says it) with the estimate of
    the tokens, the reference answer standing in for the model's, each reply's completion
    measured from the check's one judgment, and its cost at -T judge_price; on the stub the
    estimate (prompt + completion) is within 25% of the tokens paid."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    server, seen = stub
    log = _care(server, tmp_path, judge_price="2.5,10")
    said = capsys.readouterr().err
    pattern = (
        rf"care_zh \(zero_shot\): {len(log.samples)} judge calls to openai-api/stub/{JUDGE} "
        r"per epoch.*; estimated (\d+) prompt \+ (\d+) completion tokens \(completion "
        r"measured from one judgment\), about ([\d.]+) at 2\.5,10 per million"
    )
    [(prompt, completion, dollars)] = re.findall(pattern, said)
    paid = seen.totals()
    [check] = seen.checks  # one judgment before generation, not in the run's totals
    assert int(completion) == len(log.samples) * check["completion_tokens"]
    total = paid["prompt_tokens"] + paid["completion_tokens"]
    assert abs(int(prompt) + int(completion) - total) <= 0.25 * total, (prompt, completion, paid)
    assert float(dollars) == pytest.approx(
        (int(prompt) * 2.5 + int(completion) * 10) / 1e6, abs=1e-4
    )


def test_inspect_culturesynth_estimate_is_within_a_quarter_of_the_tokens_paid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """CultureSynth-7: both answer orders of each question with a baseline answer; the
    reference stands in for the model's answer; prompt + completion within a quarter."""
    from inspect_culture.culturesynth import culturesynth
    from tests.support.culturesynth_data import (
        is_judge_call,
        judge_reply,
        question_of,
        write_culturesynth_jsonl,
        write_stub_baseline,
    )

    write_culturesynth_jsonl(tmp_path / "mirror" / "culturesynth" / "culturesynth.jsonl")
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path / "mirror"))
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    baseline = write_stub_baseline(tmp_path / "baseline.json", model="stub/gemma")

    def respond(prompt: str, body: dict[str, Any]) -> str:
        return (
            judge_reply(prompt)
            if is_judge_call(body)
            else f"TARGET answer to {question_of(prompt)}"
        )

    with StubOpenAIServer(responder=respond) as server:
        seen = UsageSeen(server)
        task = culturesynth(baseline_responses=str(baseline), judge_price="2.5,10")
        log = inspect_eval_on_stub(
            task, server, tmp_path, model_roles={"grader": stub_grader(server)}
        )
    assert log.status == "success", log.error
    said = capsys.readouterr().err
    pattern = (
        r"judge calls to openai-api/stub/judge .*; estimated (\d+) prompt \+ (\d+) completion "
        r"tokens \(completion measured from one judgment\)"
    )
    [(prompt, completion)] = re.findall(pattern, said)
    paid = seen.totals()
    assert paid["calls"] > 0 and len(seen.checks) == 1
    total = paid["prompt_tokens"] + paid["completion_tokens"]
    assert abs(int(prompt) + int(completion) - total) <= 0.25 * total, (prompt, completion, paid)
    assert inspect_outputs.judge_tokens(Path(log.location)) == {"judge_1": paid}


def test_an_lm_eval_run_without_samples_shows_its_results_files_totals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stub: tuple[StubOpenAIServer, UsageSeen]
) -> None:
    """Written without its samples file (no --log_samples): the totals its results file
    recorded (`configs.<task>.metadata.judge_cost`), the same as its samples summed."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    clear_cache()
    server, seen = stub
    metadata = {"judge_model": JUDGE, "judge_base_url": server.base_url, "per_category": 1}
    run_lm_eval(server, ["care_zh"], metadata, output_path=tmp_path / "lm")
    [samples] = list((tmp_path / "lm").rglob("samples_care_zh_*.jsonl"))
    assert lm_eval_outputs.judge_tokens(samples, "n_scored") == {"judge_1": seen.totals()}
    samples.unlink()
    report = build_report([tmp_path / "lm"])
    [table] = [t for t in report.tables if t.key == "care_judge_cost"]
    [row] = table.rows
    assert {k: row.cells[k].value for k in COUNTS} == {k: seen.totals()[k] for k in COUNTS}

"""CultureSynth-7's judge-cost estimate before generation: one rule builds the questions it reads
(`benchmarks/culturesynth/judging.estimate_items`), so Inspect and lm-eval print the same
estimate for the same data, also past the 500 questions an estimate reads before it scales, and
with questions the baseline file has no answer for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from inspect_culture.benchmarks.culturesynth.baseline_responses import (
    BaselineResponses,
    read_baseline_responses,
    write_baseline_responses,
)
from inspect_culture.benchmarks.culturesynth.judging import estimate_items
from inspect_culture.judging.options import metadata_options
from inspect_culture.judging.usage import reference_estimate
from tests.support.culturesynth_data import SAMPLE_ROWS, write_culturesynth_jsonl

ESTIMATE = re.compile(r"estimated (\d+) prompt \+ (\d+) completion tokens")
QUESTIONS = 1200  # past the 500 an estimate reads: a sample, spread evenly, then scaled


def _rows() -> list[dict[str, str]]:
    """Questions of varied length (so which ones the estimate reads changes its figure)."""
    rows = []
    for i in range(QUESTIONS):
        like = SAMPLE_ROWS[i % len(SAMPLE_ROWS)]
        words = " ".join(f"word{j}" for j in range(i % 41))
        rows.append({**like, "id": f"{like['language']}-{i:05d}", "question": f"Q{i} {words}?"})
    return rows


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The questions, and a baseline file without an answer for every seventh."""
    rows = _rows()
    write_culturesynth_jsonl(tmp_path / "mirror" / "culturesynth" / "culturesynth.jsonl", rows)
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path / "mirror"))
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    answers = {r["id"]: f"BASELINE {r['answer']}" for i, r in enumerate(rows) if i % 7}
    baseline = BaselineResponses(model="stub/gemma", responses=answers)
    return write_baseline_responses(baseline, tmp_path / "baseline.json")


def _lm_eval_estimate(
    baseline: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, int]:
    """What lm-eval's loader prints before generation (no judge check: the declared verdict)."""
    line = _lm_eval_line(baseline, monkeypatch, capsys)
    found = ESTIMATE.search(line)
    assert found is not None, line
    return int(found[1]), int(found[2])


def _lm_eval_line(
    baseline: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    """The line lm-eval's loader prints before generation, in a run that judges."""
    from inspect_culture.lm_eval_tasks.culturesynth import utils
    from inspect_culture.lm_eval_tasks.judge import batch

    monkeypatch.setattr(batch, "run_judges", lambda: True)  # as in a run that judges
    judge = {
        "judge_model": "j",
        "judge_base_url": "http://127.0.0.1:9/v1",
        "judge_preflight": False,
    }
    capsys.readouterr()
    utils.load_judged_docs({"language": None}, baseline_responses=str(baseline), **judge)
    [line] = [x for x in capsys.readouterr().err.splitlines() if "culturesynth_all:" in x]
    return line


def _inspect_estimate(baseline: Path) -> tuple[int, int]:
    """What Inspect's task estimates before generation, with the same judge settings."""
    from inspect_culture import culturesynth as task
    from inspect_culture.benchmarks.culturesynth import spec

    _, loaded = task._dataset(None, "culturesynth")
    options = metadata_options({"judge_model": "j", "judge_preflight": False}, judges=False)
    estimate = task._cost_estimate(
        spec.validate(), loaded.records, read_baseline_responses(str(baseline)), options
    )
    return reference_estimate(estimate.judging, estimate.items, estimate.repeats, 1, None)


def test_inspect_and_lm_eval_estimate_culturesynth_alike(
    data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ours = _inspect_estimate(data)
    theirs = _lm_eval_estimate(data, monkeypatch, capsys)
    assert ours == theirs
    assert ours[0] > 0 and ours[1] > 0


def test_the_rule_leaves_out_a_missing_baseline_and_stands_in_for_a_baseline_role() -> None:
    records = [{"id": "a", "answer": "ref a"}, {"id": "b", "answer": "ref b"}]
    from_file = estimate_items(records, {"a": "base a"})
    assert from_file == [{"id": "a", "answer": "ref a", "baseline_answer": "base a"}]
    by_role = estimate_items(records, None)  # the `baseline` role answers during the run
    assert [i["baseline_answer"] for i in by_role] == ["ref a", "ref b"]


CALLS = re.compile(r": (\d+) judge calls to \S+ .*?: (\d+ to make, \d+ cached); (.*)$")


def _inspect_line(baseline: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The line Inspect's task prints before generation: its count of judge calls (as the
    built task leaves out the questions without a baseline answer) and its estimate."""
    import asyncio

    from inspect_ai.model import get_model

    from inspect_culture import culturesynth as task
    from inspect_culture.benchmarks.culturesynth import spec
    from inspect_culture.inspect_adapter import judge

    built = task.culturesynth(baseline_responses=str(baseline), judge_preflight=False)
    judged = len(built.dataset) - len(built.metadata["questions_without_baseline"])
    _, loaded = task._dataset(None, "culturesynth")
    options = metadata_options({"judge_model": "j", "judge_preflight": False}, judges=False)
    estimate = task._cost_estimate(
        spec.validate(), loaded.records, read_baseline_responses(str(baseline)), options
    )
    grader = get_model("mockllm/model")

    async def say() -> None:  # once per running eval: a loop of its own
        judge._say_costs("culturesynth", [grader], judged * 2, estimate)

    capsys.readouterr()
    asyncio.run(say())
    [line] = [x for x in capsys.readouterr().err.splitlines() if "culturesynth:" in x]
    return line


def test_both_harnesses_print_one_estimate_with_a_question_lacking_a_baseline_answer(
    data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every seventh question has no baseline answer: neither harness counts a judge call or
    a token for it (it is counted as missing, not judged), so both print the same calls and
    the same estimate."""
    ours = CALLS.search(_inspect_line(data, capsys))
    theirs = CALLS.search(line := _lm_eval_line(data, monkeypatch, capsys))
    assert ours is not None and theirs is not None, (ours, line)
    judged = QUESTIONS - len(range(0, QUESTIONS, 7))
    assert int(ours[1]) == int(theirs[1]) == judged * 2  # both answer orders
    assert ours[2] == theirs[2] and ours[3] == theirs[3]
    assert "estimated" in ours[3]

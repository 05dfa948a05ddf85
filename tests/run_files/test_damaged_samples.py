"""A damaged lm-eval samples file costs only its damaged lines: a line cut short by a killed run
(or garbage in the middle) is skipped and named, file and line, and the rest of the run is
reported (`culture-evals report`) or judged (`culture-evals judge`) as usual."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.benchmarks.care.spec import CATEGORY_SLUGS
from inspect_culture.cli import main
from inspect_culture.lm_eval_tasks.care.utils import all_metrics
from inspect_culture.report.build import build_report
from tests.support.harness_runs import run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = pytest.mark.slow
SAMPLES = 6  # CARE zh questions run
JUDGE_PREFIX = "Please serve as"


@pytest.fixture(autouse=True)
def _offline_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_PREFLIGHT", "off")


def _care_run(out: Path, metadata: dict[str, Any]) -> tuple[Path, list[bytes]]:
    """A CARE zh lm-eval run (`--log_samples`) against the stub; its samples file and lines."""
    with StubOpenAIServer(responder=care_responder) as server:
        judge = {"judge_model": "judge", "judge_base_url": server.base_url}
        run_lm_eval(server, ["care_zh"], metadata or judge, limit=SAMPLES, output_path=out)
    [samples] = out.rglob("samples_care_zh_*.jsonl")
    lines = samples.read_bytes().splitlines()
    assert len(lines) == SAMPLES
    return samples, lines


def _cut(line: bytes, inside_a_character: bool) -> bytes:
    """The line as a killed writer leaves it: cut inside a multi-byte (Chinese) character, or
    half way between two ASCII bytes."""
    if not inside_a_character:
        return line[: len(line) // 2]
    start = next(i for i, byte in enumerate(line) if byte >= 0xC0)  # a character of 2+ bytes
    return line[: start + 1]


def _care_row_breakdowns(report: Any) -> dict[str, float | None]:
    [table] = [t for t in report.tables if t.key == "care"]
    [row] = [r for r in table.rows if r.kind == "run"]
    return {slug: row.cells[slug].value for slug in CATEGORY_SLUGS}


def _expected_breakdowns(lines: list[bytes]) -> dict[str, float | None]:
    """The per-category ratings of the given (intact) lines, by the benchmark's metric function."""
    metrics = all_metrics([json.loads(line)["n_scored"] for line in lines])
    return {slug: metrics.get(f"rating_{slug}") for slug in CATEGORY_SLUGS}


def _expected_breakdowns_of(written: list[dict[str, Any]]) -> dict[str, float | None]:
    metrics = all_metrics([line["n_scored"] for line in written])
    return {slug: metrics.get(f"rating_{slug}") for slug in CATEGORY_SLUGS}


def _assert_reported_without(
    tmp_path: Path, samples: Path, lines: list[bytes], bad: int, capsys: Any
) -> None:
    """The report of the run: breakdowns of every line but `bad` (1-based), which is named."""
    intact = lines[: bad - 1] + lines[bad:]
    expected = _expected_breakdowns(intact)
    assert any(v is not None for v in expected.values())  # something to lose
    report = build_report([samples.parent])
    assert _care_row_breakdowns(report) == pytest.approx(expected, nan_ok=True)
    [run] = report.runs
    assert run.samples == SAMPLES - 1
    [note] = [w for w in report.warnings if str(samples) in w]  # the file, and the line in it
    assert f"skipped line {bad} (" in note and f"other {SAMPLES - 1} samples" in note, note
    assert not any("left out" in warning for warning in report.warnings), report.warnings
    capsys.readouterr()
    assert main(["report", str(samples.parent), "-o", str(tmp_path / "rep"), "--format", "md"]) == 0
    assert note in capsys.readouterr().err


@pytest.mark.parametrize("inside_a_character", [True, False], ids=["mid-character", "mid-ascii"])
def test_report_skips_and_names_a_cut_last_line(
    tmp_path: Path, capsys: Any, inside_a_character: bool
) -> None:
    samples, lines = _care_run(tmp_path / "lm_eval", {})
    samples.write_bytes(b"\n".join([*lines[:-1], _cut(lines[-1], inside_a_character)]))
    _assert_reported_without(tmp_path, samples, lines, SAMPLES, capsys)


@pytest.mark.parametrize(
    "garbage",
    [b"\x00\x17garbage{", b'{"doc_id": 1, "n_scored": "{\'rating\': 7, "}'],
    ids=["not-json", "damaged-record"],
)
def test_report_skips_and_names_a_garbage_line_in_the_middle(
    tmp_path: Path, capsys: Any, garbage: bytes
) -> None:
    samples, lines = _care_run(tmp_path / "lm_eval", {})
    samples.write_bytes(b"\n".join([*lines[:1], garbage, *lines[2:]]) + b"\n")
    _assert_reported_without(tmp_path, samples, lines, 2, capsys)


def test_judge_judges_the_intact_lines_and_names_the_cut_one(tmp_path: Path, capsys: Any) -> None:
    samples, lines = _care_run(tmp_path / "gen", {"judge_later": True})
    samples.write_bytes(b"\n".join([*lines[:-1], _cut(lines[-1], inside_a_character=True)]))
    where = f"{samples}, line {SAMPLES}"
    with StubOpenAIServer(responder=care_responder) as server:
        args = ["--judge-model", "judge", "--judge-base-url", server.base_url]
        capsys.readouterr()
        assert (
            main(["judge", str(tmp_path / "gen"), "-o", str(tmp_path / "dry"), *args, "--dry-run"])
            == 0
        )
        assert where in capsys.readouterr().err
        assert main(["judge", str(tmp_path / "gen"), "-o", str(tmp_path / "judged"), *args]) == 0
        judged_calls = sum(p.startswith(JUDGE_PREFIX) for p in server.prompts())
    assert judged_calls == SAMPLES - 1
    assert where in capsys.readouterr().err
    [out] = (tmp_path / "judged").rglob("samples_care_zh_*.jsonl")
    written = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [line["doc_id"] for line in written] == list(range(SAMPLES - 1))
    [results] = (tmp_path / "judged").rglob("results_*.json")
    data = json.loads(results.read_text("utf-8"))
    assert data["n-samples"]["care_zh"]["effective"] == SAMPLES - 1
    assert data["results"]["care_zh"]["sample_len"] == SAMPLES - 1
    # the judged run reads as any: its breakdowns are those of the intact lines
    report = build_report([tmp_path / "judged"])
    assert report.runs[0].samples == SAMPLES - 1
    assert _care_row_breakdowns(report) == pytest.approx(_expected_breakdowns_of(written))

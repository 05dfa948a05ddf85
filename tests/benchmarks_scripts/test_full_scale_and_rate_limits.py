"""benchmarks/full_scale.py and benchmarks/rate_limits.py run at a tiny size and print their
tables, so the scripts cannot rot. No timing is asserted: the figures belong in
docs/performance.md, measured on a quiet machine."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_full_scale_runs_tiny(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "benchmarks/full_scale.py", "--scale", "0.002", "--benchmarks",
         "normad,care", "--work", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    for line in ("inspect normad: wall", "lm-eval care: wall", "culture-evals report over"):
        assert line in result.stdout, result.stdout
    samples = {
        (row[0], row[1]): int(row[2])
        for row in (line.split() for line in result.stdout.splitlines())
        if len(row) > 2 and row[0] in ("inspect", "lm-eval") and row[2].isdigit()
    }
    calls = {
        tuple(m.group(1, 2)): int(m.group(3))
        for m in re.finditer(r"^(inspect|lm-eval) (\w+): .* over (\d+) calls", result.stdout, re.M)
    }
    assert samples[("inspect", "care")] == samples[("lm-eval", "care")] == 9  # 9 tasks, 1 each
    for harness in ("inspect", "lm-eval"):
        assert calls[(harness, "normad")] == 0  # NormAd has no judge
        # one judgment a CARE answer, and the check of the judge before generation
        assert calls[(harness, "care")] == samples[(harness, "care")] + 1, result.stdout
    assert len(list((tmp_path / "inspect" / "care").glob("*.eval"))) == 9
    assert (tmp_path / "report" / "results.csv").is_file()
    again = subprocess.run(
        [sys.executable, "benchmarks/full_scale.py", "--work", str(tmp_path), "--report-only"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr[-3000:]
    assert re.search(r"report over every run in .*: median [\d.]+ s", again.stdout), again.stdout


@pytest.mark.slow
def test_full_scale_judges_inspect_later_in_a_step_of_its_own(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "benchmarks/full_scale.py", "--scale", "0.002", "--benchmarks", "care",
         "--harnesses", "inspect", "--inspect-judge-later", "--work", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    found = re.search(
        r"^inspect care: .* over (\d+) calls \(`inspect score` step", result.stdout, re.M
    )
    assert found, result.stdout
    assert int(found.group(1)) == 9  # one judgment a sample, all in the score step: no preflight
    from inspect_ai.log import read_eval_log

    logs = [read_eval_log(str(p)) for p in (tmp_path / "inspect" / "care").glob("*.eval")]
    judges = {
        (score.metadata or {}).get("judge_model")
        for log in logs
        for sample in log.samples or []
        for score in (sample.scores or {}).values()
    }
    assert len(logs) == 9 and judges == {"openai-api/stub/judge"}  # judged in place, every one


@pytest.mark.slow
def test_rate_limits_runs_tiny() -> None:
    result = subprocess.run(
        [sys.executable, "benchmarks/rate_limits.py", "--minute", "1", "--seconds", "2",
         "--scenarios", "tight", "--clients", "lm-eval-judge,lm-eval-judge-fixed-32"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith("  lm-eval")]
    assert [row[0] for row in rows] == ["lm-eval-judge", "lm-eval-judge-fixed-32"]
    failed = {row[0]: int(row[-3]) for row in rows}
    assert failed["lm-eval-judge"] == 0, result.stdout  # the adaptive judge loses none


@pytest.mark.slow
def test_rate_limits_storms_end_or_recover() -> None:
    """A storm that never clears leaves every judgment unscored, ours within one budget; a
    burst that clears scores every one, in both harnesses."""
    result = subprocess.run(
        [sys.executable, "benchmarks/rate_limits.py", "--scenarios", "storm-forever,storm-burst",
         "--storm-judgments", "12", "--storm-budget", "4", "--clients", "lm-eval-judge,care_judge"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    forever, burst = result.stdout.split("storm-burst:")
    rows = {
        (part, row[0]): row[1:]
        for part, text in (("forever", forever), ("burst", burst))
        for row in (line.split(None, 5) for line in text.splitlines())
        if row and row[0] in ("lm-eval-judge", "care_judge")
    }
    assert rows["forever", "lm-eval-judge"][1:3] == ["0", "12"], result.stdout
    assert rows["forever", "lm-eval-judge"][-1] == "within budget", result.stdout
    assert rows["forever", "care_judge"][1:3] == ["0", "12"], result.stdout
    for client in ("lm-eval-judge", "care_judge"):
        assert rows["burst", client][1:3] == ["12", "0"], result.stdout
        assert rows["burst", client][-1] == "every sample scored", result.stdout
        assert int(rows["burst", client][3]) > 0, result.stdout  # the burst did refuse some

"""benchmarks/judge_throughput.py runs (small) and prints its ratios: the full-size commands in
docs/judge-reference.md need a quiet machine, so the suite runs the script at a tenth of a
second."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_judge_throughput_runs_small() -> None:
    result = subprocess.run(
        [sys.executable, "benchmarks/judge_throughput.py", "--paths", "compare", "--n", "20",
         "--latency", "0.01", "--concurrency", "4", "--reps", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert "median ratio, lm-eval judge filter / LocalChatCompletion:" in result.stdout
    assert "median ratio, Inspect care_judge / model_graded_qa" in result.stdout

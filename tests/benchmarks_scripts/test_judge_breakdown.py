"""`judge_throughput.py --paths lm-eval-compare` (what `full_scale.py --judge` runs): the lm-eval
judge's wall against `LocalChatCompletion`, and its CPU a judgment broken down by where the code
lives, the parts adding up to the figure. No timing is asserted."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_lm_eval_compare_prints_the_wall_ratio_and_the_cpu_breakdown() -> None:
    result = subprocess.run(
        [sys.executable, "benchmarks/judge_throughput.py", "--paths", "lm-eval-compare", "--n",
         "20", "--latency", "0.01", "--concurrency", "4", "--reps", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    line = next(x for x in result.stdout.splitlines() if x.startswith("JUDGE_GOAL "))
    figures = json.loads(line.removeprefix("JUDGE_GOAL "))
    assert figures["wall_ratio"] > 0 and figures["cpu_ms"] > 0
    parts = dict(figures["breakdown"])
    total = parts.pop("total")
    assert total == figures["cpu_ms"]
    assert sum(parts.values()) == pytest.approx(total, rel=1e-6)
    fencing = next(ms for label, ms in parts.items() if "fences.py" in label)
    cache = next(ms for label, ms in parts.items() if "cache.py" in label)
    assert fencing > 0 and cache > 0, parts  # our judge's own work is seen, not lumped
    assert "CPU a judgment, lm-eval judge filter" in result.stdout

"""The scripts' install steps are never silent: a line every 10 s while a step runs, and the
step's own exit status."""

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _step(command: str) -> subprocess.CompletedProcess[str]:
    script = f"set -euo pipefail; source scripts/progress.sh; step 'waiting' {command}; echo done"
    return subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.slow
def test_a_long_step_says_it_is_still_running() -> None:
    result = _step("sleep 12")
    assert result.returncode == 0
    assert result.stdout.splitlines() == ["waiting ...", "  still waiting (10 s)", "done"]


def test_a_failing_step_fails_the_script() -> None:
    result = _step("false")
    assert result.returncode == 1 and "done" not in result.stdout

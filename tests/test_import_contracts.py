"""The dependency contracts (pyproject's [tool.importlinter]) hold today, and each adapter
contract catches a planted violation: a copy of the package with one import added must make
`lint-imports` fail, naming the contract."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).parent / "lint-imports"


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}  # the copy, not the installed package
    return subprocess.run(
        [str(LINT), "--no-cache"], cwd=tree, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_contracts_hold(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "inspect_culture", tmp_path / "inspect_culture")
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    done = _lint(tmp_path)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    ("importer", "imported", "contract"),
    [
        ("report", "inspect_culture.lm_eval_tasks", "The report imports no lm-eval adapter"),
        ("report", "inspect_culture.judge_command", "The report and culture-evals judge are independent"),
        ("judge_command", "inspect_culture.report", "The report and culture-evals judge are independent"),
        ("judge_command", "inspect_culture.care", "The report and culture-evals judge import no Inspect"),
        ("lm_eval_tasks", "inspect_culture.inspect_adapter", "The lm-eval adapter imports neither"),
        ("inspect_adapter", "inspect_culture.report", "The Inspect adapter imports neither"),
        ("inspect_adapter", "inspect_culture.cli", "The Inspect adapter imports neither"),
        ("run_files", "inspect_culture.inspect_adapter", "The run readers import neither harness adapter"),
        ("run_files", "inspect_culture.lm_eval_tasks", "The run readers import neither harness adapter"),
        ("judging", "inspect_culture.inspect_adapter", "Layers: entry points, harness adapters"),
        ("judging", "inspect_culture.lm_eval_tasks", "Layers: entry points, harness adapters"),
        ("benchmarks", "inspect_culture.inspect_adapter", "Layers: entry points, harness adapters"),
        ("benchmarks", "inspect_culture.lm_eval_tasks", "Layers: entry points, harness adapters"),
    ],
)  # fmt: skip
def test_a_planted_import_breaks_its_contract(
    tmp_path: Path, importer: str, imported: str, contract: str
) -> None:
    shutil.copytree(ROOT / "inspect_culture", tmp_path / "inspect_culture")
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    planted = tmp_path / "inspect_culture" / importer / "_planted.py"
    planted.write_text(f"import {imported}  # a violation, planted\n", "utf-8")
    done = _lint(tmp_path)
    assert done.returncode != 0, done.stdout[-2000:]
    broken = done.stdout.split("Broken contracts", 1)[-1]
    assert contract in " ".join(broken.split()), done.stdout[-2000:]
    assert f"inspect_culture.{importer}._planted" in broken

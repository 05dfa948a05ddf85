"""The timing-bound tests that tests/conftest.py runs alone (SERIAL_TESTS) or one at a time on one
worker (ONE_AT_A_TIME) and those run beside the main pass (BESIDE_TESTS) exist, and the
--serial-tests passes split the suite between them, with nothing lost."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import ALL, BESIDE_TESTS, ONE_AT_A_TIME, SERIAL_TESTS, holds_beside_lock

TESTS = Path(__file__).parent
ROOT = TESTS.parent


def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


@pytest.mark.parametrize(
    ("table", "name"),
    [
        (table, name)
        for table in (SERIAL_TESTS, ONE_AT_A_TIME, BESIDE_TESTS)
        for name in sorted(table)
    ],
)
def test_every_listed_test_is_found(table: dict[str, frozenset[str]], name: str) -> None:
    [path] = TESTS.rglob(name)  # one file of that name: a renamed file would run in parallel
    names = table[name]
    if names is not ALL:
        assert names <= _functions(path), names - _functions(path)


def _collected(*args: str) -> list[str]:
    done = _collect(*args)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


def _collect(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_the_two_passes_split_a_file_between_them() -> None:
    [path] = TESTS.rglob("test_judge_retries.py")
    target = str(path.relative_to(ROOT))
    every = _collected(target)
    alone = _collected(target, "--serial-tests=only")
    others = _collected(target, "--serial-tests=skip")
    assert sorted(alone + others) == sorted(every)
    assert {line.split("::")[1] for line in alone} == SERIAL_TESTS["test_judge_retries.py"]


def test_the_documented_commands_run_in_a_pass_of_their_own() -> None:
    """Beside the main pass, every one of them, in file order; in neither other pass."""
    [docs] = TESTS.rglob("test_documented_commands.py")
    [retries] = TESTS.rglob("test_judge_retries.py")
    targets = [str(docs.relative_to(ROOT)), str(retries.relative_to(ROOT))]
    every = _collected(*targets)
    beside = _collected(*targets, "--serial-tests=beside")
    assert beside == [line for line in every if line.startswith(targets[0])]
    alone = _collected(*targets, "--serial-tests=only")
    others = _collected(*targets, "--serial-tests=skip")
    assert sorted(beside + alone + others) == sorted(every)


def test_a_pass_imports_only_the_files_it_runs_tests_of() -> None:
    """Found in a folder (as the passes find every file), the documented commands' file is not
    even imported for the timing-bound pass (tests/conftest.py, pytest_ignore_collect): it was
    collected and its tests deselected, about 12 s of imports per pass over the whole suite."""
    [docs] = TESTS.rglob("test_documented_commands.py")
    folder = str(docs.parent.relative_to(ROOT))
    done = _collect(folder, "--serial-tests=only")
    assert done.returncode == 5, done.stdout[-3000:] + done.stderr[-3000:]  # none collected
    assert "deselected" not in done.stdout, done.stdout[-3000:]
    assert _collected(folder, "--serial-tests=beside")  # the pass that runs them finds them


def _item(path: Path, function: str) -> SimpleNamespace:
    return SimpleNamespace(path=path, originalname=function, name=function)


def test_llama_cpp_tests_hold_the_beside_lock_and_the_packaging_ones_do_not() -> None:
    """scripts/compat's two beside passes share one lock, held per llama.cpp test: the floor's
    packaging tests (fresh venvs, minutes) no longer keep the newest's llama.cpp tests waiting."""
    [smoke] = TESTS.rglob("test_local_model_smoke.py")
    [constraints] = TESTS.rglob("test_judge_constraints.py")
    [discovery] = TESTS.rglob("test_lm_eval_discovery.py")
    [retries] = TESTS.rglob("test_judge_retries.py")
    assert holds_beside_lock(_item(smoke, "test_main_job_scores_every_sample_in_both_harnesses"))
    assert holds_beside_lock(_item(constraints, "test_grammar_compiles_in_llama_cpp"))
    assert not holds_beside_lock(_item(constraints, "test_care_regex_admits_the_paper_format_only"))
    assert not holds_beside_lock(_item(discovery, "test_the_cards_command_runs"))
    assert not holds_beside_lock(_item(retries, "test_retry_after_is_waited_out"))

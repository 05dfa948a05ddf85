"""`benchmarks/judge_chaos.py` can fail, and shows it: each mutation breaks one property inside
the harness subprocesses (or the kill, or the cache) and the check of that property must fail
with its own `FAIL:` line; unmutated, no check but those the package still fails may fail.

Everything runs on 127.0.0.1 against the script's stub judge, on the tests' toy data and the
bundled CARE zh set: no network.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "judge_chaos.py"
# small and quick: 12 samples, a 2-s rate-limit window from 0.5 s, 2-s attempts (hangs)
FAST = (
    "--size", "12", "--seed", "3", "--window-start", "0.5", "--window", "2",
    "--retry-after", "1", "--judge-timeout", "2", "--credentials-check", "off",
)  # fmt: skip
# What the package still leaks (issue 23): a fresh judge reply that echoes the credentials is
# written unredacted (Inspect: the score's explanation in the .eval samples; lm-eval and
# `culture-evals judge`: `judge_text` in the samples file); only the cached copy is redacted.
# Every stub reply echoes the credentials and the kill check asserts that the resume pays fresh
# judgments, so a run that passes its kill check shows this leak every time.
PACKAGE_LEAK = (
    "the package writes a fresh judge reply unredacted (Inspect: Score.explanation from "
    "inspect_plumbing/judge.py::judge_reply; lm-eval: judge_text from "
    "lm_eval_tasks/judge/client.py::_call_with_retries via judge/batch.py::judged_filter)"
)


@functools.cache
def chaos(benchmark: str, harness: str, mutation: str | None = None) -> tuple[int, str]:
    """The script's exit code and output for one benchmark and harness (run once per session)."""
    command = [sys.executable, str(SCRIPT), *FAST, "--benchmark", benchmark, "--harness", harness]
    if mutation:
        command += ["--mutation", mutation]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=300
    )
    return done.returncode, done.stdout + done.stderr


def failed_checks(output: str) -> set[str]:
    """The names of the checks that failed (`  FAIL: <check>: detail`)."""
    return set(re.findall(r"^\s+FAIL: ([a-z -]+):", output, re.MULTILINE))


UNMUTATED = [("care", "inspect"), ("cqbench_ve", "lm-eval")]


@pytest.mark.parametrize(("benchmark", "harness"), UNMUTATED)
def test_unmutated_run_passes_every_check_but_the_package_leak(benchmark, harness):
    code, output = chaos(benchmark, harness)
    assert "Traceback" not in output, output[-3000:]
    assert failed_checks(output) <= {"secret leaked"}, output[-3000:]
    assert re.search(r"with an always-garbage judgment", output), output[-3000:]


@pytest.mark.xfail(strict=True, reason=PACKAGE_LEAK)
@pytest.mark.parametrize(("benchmark", "harness"), UNMUTATED)
def test_unmutated_run_exits_zero(benchmark, harness):
    code, output = chaos(benchmark, harness)
    assert code == 0, output[-3000:]


MUTATED = [
    # (mutation, benchmark, harness, the checks that must fail)
    ("score_zero", "care", "lm-eval", {"value out of range", "scored where unscored was due"}),
    ("score_zero", "culturesynth", "inspect", {"scored where unscored was due"}),
    ("blank_reason", "cqbench_ve", "inspect", {"unreadable reason"}),
    ("no_kill", "culturesynth", "lm-eval", {"kill not mid-judging"}),
    ("no_cache", "care", "lm-eval", {"paid twice"}),
    ("no_redaction", "care", "inspect", {"secret leaked"}),
]


@pytest.mark.parametrize(("mutation", "benchmark", "harness", "checks"), MUTATED)
def test_each_mutation_fails_its_check(mutation, benchmark, harness, checks):
    code, output = chaos(benchmark, harness, mutation)
    assert "Traceback" not in output, output[-3000:]
    assert code != 0, output[-3000:]
    assert checks <= failed_checks(output), output[-3000:]


def test_no_redaction_puts_the_key_where_the_package_redacts_it():
    """With the package's own leak (PACKAGE_LEAK) the unmutated run fails the leak check too, so
    the mutation must show a leak the package prevents: the judge cache stores replies redacted."""
    _, output = chaos("care", "inspect", "no_redaction")
    [leak] = re.findall(r"FAIL: secret leaked: (.*)", output)
    assert "judge_cache.sqlite: key" in leak, leak
    _, clean = chaos("care", "inspect")
    assert "judge_cache.sqlite" not in clean


@pytest.mark.xfail(
    strict=True, reason="the package does not yet refuse a grader URL with credentials"
)
def test_inspect_refuses_a_grader_url_with_credentials():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--credentials-check", "only", "--harness", "inspect"],
        cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]

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
# small and quick: 12 samples, a 1-s rate-limit window from 0.5 s, 1-s attempts (hangs); 4
# judgments at a time, so that the kill lands between waves and not on the first one
FAST = (
    "--size", "12", "--seed", "3", "--window-start", "0.5", "--window", "1",
    "--retry-after", "1", "--judge-timeout", "1", "--concurrency", "4",
    "--credentials-check", "off",
)  # fmt: skip
# What the package still leaks (issue 23): Inspect writes a fresh judge reply that echoes the
# key unredacted, as the score's explanation in the .eval samples (the cached copy is redacted;
# lm-eval's `judge_text` is redacted since 8345164). Every stub reply echoes the credentials and
# the kill check asserts that the resume pays fresh judgments, so the leak shows every time.
PACKAGE_LEAK = (
    "Inspect writes a fresh judge reply unredacted as the score's explanation (the reply of "
    "inspect_plumbing/judge.py::judge_reply, shown by the benchmarks' scorers)"
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


@pytest.mark.parametrize(
    ("benchmark", "harness"),
    [pytest.param(*UNMUTATED[0], marks=pytest.mark.xfail(strict=True, reason=PACKAGE_LEAK)),
     UNMUTATED[1]],
)  # fmt: skip
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

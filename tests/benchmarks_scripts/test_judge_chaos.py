"""`benchmarks/judge_chaos.py` can fail, and shows it: each mutation breaks one property inside
the harness subprocesses (or the kill, or the cache) and the check of that property must fail
with its own `FAIL:` line; unmutated, every check passes.

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


@pytest.mark.parametrize(("benchmark", "harness"), [("care", "inspect"), ("cqbench_ve", "lm-eval")])
def test_unmutated_run_passes_every_check(benchmark, harness):
    """Every stub reply echoes the credentials and the kill check asserts that the resume pays
    fresh judgments, so a fresh reply written unredacted shows here every time (it did before
    8345164 for lm-eval and 4bd6ee9 for Inspect)."""
    code, output = chaos(benchmark, harness)
    assert "Traceback" not in output, output[-3000:]
    assert not failed_checks(output), output[-3000:]
    assert code == 0, output[-3000:]
    assert re.search(r"[1-9]\d* with an always-garbage judgment", output), output[-3000:]


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


def test_no_redaction_leaks_where_the_package_redacts():
    """The key lands in the judge cache, which the package writes redacted, and in the log."""
    _, output = chaos("care", "inspect", "no_redaction")
    [leak] = re.findall(r"FAIL: secret leaked: (.*)", output)
    assert "judge_cache.sqlite: key" in leak, leak
    assert ".eval:samples/" in leak, leak


def test_inspect_refuses_a_grader_url_with_credentials():
    """Failed until 4bd6ee9: Inspect ran the grader with `user:password@` in its base URL and
    wrote it into the log header."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--credentials-check", "only", "--harness", "inspect"],
        cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "FAIL" not in done.stdout


# Storms (issue 40): every judge request answered 429 with Retry-After (forever), or the first
# 8 of them (a burst that clears: 4 holds of each of the 2 workers). 12 samples, 2 at a time: an
# lm-eval judge that spent one budget per wave of workers would take 6 budgets, not one. The
# storms wait out real seconds (Retry-After 1 s): an honest storm that never clears spends 2-s
# budgets (Inspect's 6 waves of 2 samples: 18 s; 4-s budgets took 30 s), the mutated one 4-s
# budgets, so that its 6 budgets stand well clear of the bound of one budget plus the margin.
STORM = (
    "--size", "12", "--concurrency", "2", "--credentials-check", "off", "--retry-after", "1",
    "--benchmark", "care",
)  # fmt: skip


@functools.cache
def storm(kind: str, harness: str, mutation: str | None = None) -> tuple[int, str]:
    budget = {
        "forever": ("--storm-budget", "4" if mutation else "2", "--judge-timeout", "1"),
        "burst": ("--storm-budget", "60", "--judge-timeout", "5", "--storm-requests", "8"),
    }
    command = [sys.executable, str(SCRIPT), *STORM, "--harness", harness, "--storm", kind,
               *budget[kind], *(("--mutation", mutation) if mutation else ())]  # fmt: skip
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=300
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("harness", ["lm-eval", "inspect"])
def test_a_storm_that_never_clears_ends_every_sample_unscored_within_the_budget(harness):
    """Failed before the pacer's fix (lm-eval: `culture-evals judge` waited forever)."""
    code, output = storm("forever", harness)
    assert "Traceback" not in output and not failed_checks(output), output[-3000:]
    assert code == 0 and re.search(r"storm forever: 12 samples, 0 scored", output), output[-3000:]


@pytest.mark.parametrize("harness", ["lm-eval", "inspect"])
def test_a_burst_of_429s_that_clears_scores_every_sample(harness):
    code, output = storm("burst", harness)
    assert "Traceback" not in output and not failed_checks(output), output[-3000:]
    assert code == 0 and re.search(r"storm burst: 12 samples, 12 scored", output), output[-3000:]


def test_a_judge_budget_per_wave_of_workers_fails_the_budget_check():
    """The mutation charges a queued judgment nothing for the holds it waits through."""
    code, output = storm("forever", "lm-eval", "wave_budget")
    assert code != 0 and "storm outlasted the budget" in failed_checks(output), output[-3000:]

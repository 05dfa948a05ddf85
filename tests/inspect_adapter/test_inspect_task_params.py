"""Every bool and int parameter of the judged and multiple-choice Inspect tasks refuses a value of
the wrong kind, as Inspect's CLI passes it (`-T name=value`, YAML-parsed: `abc` and `maybe` stay
strings), with a message naming the parameter and what is allowed; never "invalid literal"."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from inspect_culture.benchmarks.choices import check_bool
from inspect_culture.care import care, care_judge
from inspect_culture.cqbench import cqbench_ad, cqbench_ve, cqbench_ve_judge, cqbench_vs
from inspect_culture.culturesynth import culturesynth, culturesynth_judge
from inspect_culture.inspect_adapter.errors import ScorerSetupError, TaskSetupError
from inspect_culture.inspect_adapter.params import as_optional_int
from inspect_culture.judging.options import inspect_options

BOOL = "true, false"
CASES: list[tuple[Callable[..., Any], str, str, str]] = [
    # task, parameter, raw -T value, what the message must say is allowed
    (care, "per_category", "abc", "whole number >= 1"),
    (care, "per_category", "0", "whole number >= 1"),
    (care, "per_category", "2.5", "whole number >= 1"),
    (care, "per_category", "²", "whole number >= 1"),  # str.isdigit() is true for it
    (care, "per_category", "١٢", "whole number >= 1"),
    (care, "self_grade", "maybe", BOOL),
    (care, "judge_preflight", "maybe", BOOL),
    (care, "judge_timeout", "abc", "seconds > 0"),
    (care, "judge_timeout", "-5", "seconds > 0"),
    (culturesynth, "swap", "maybe", BOOL),
    (culturesynth, "seed", "abc", "integer"),
    (culturesynth, "self_grade", "2", BOOL),
    (culturesynth, "judge_preflight", "maybe", BOOL),
    (culturesynth, "judge_timeout", "0", "seconds > 0"),
    (cqbench_ad, "reasoning", "maybe", BOOL),
    (cqbench_ad, "shots", "abc", "integer"),
    (cqbench_ad, "shots", "³", "integer"),
    (cqbench_ad, "merged", "maybe", BOOL),
    (cqbench_vs, "reasoning", "1", BOOL),
    (cqbench_vs, "shots", "two", "integer"),
    (cqbench_vs, "skip_empty", "maybe", BOOL),
    (cqbench_ve, "self_grade", "maybe", BOOL),
    (cqbench_ve, "judge_preflight", "maybe", BOOL),
    (cqbench_ve, "judge_timeout", "never", "seconds > 0"),
    (care, "judge_repeats", "0", "whole number from 1"),
    (care, "judge_repeats", "²", "whole number from 1"),
    (care, "judge_repeats", "2.5", "whole number from 1"),
    (care, "rejudge_fraction", "0.5", "set judge_repeats to 2 or more"),
    (culturesynth, "judge_repeats", "true", "whole number from 1"),
    (culturesynth, "rejudge_fraction", "0", "above 0 and at most 1"),
    (cqbench_ve, "judge_repeats", "99", "to 20"),
    (cqbench_ve, "rejudge_fraction", "half", "above 0 and at most 1"),
]


@pytest.mark.parametrize(("task", "name", "raw", "allowed"), CASES)
def test_wrong_kind_is_refused_naming_the_parameter(
    task: Callable[..., Any], name: str, raw: str, allowed: str
) -> None:
    value = yaml.safe_load(raw)  # what Inspect's CLI hands the task for `-T name=raw`
    with pytest.raises(TaskSetupError) as raised:
        task(**{name: value})
    message = str(raised.value)
    assert name in message and allowed in message, message
    assert "invalid literal" not in message


@pytest.mark.parametrize(
    ("scorer", "name", "value"),
    [
        (care_judge, "judge_timeout", 0),
        (care_judge, "self_grade", "maybe"),
        (culturesynth_judge, "swap", "maybe"),
        (culturesynth_judge, "judge_timeout", "x"),
        (cqbench_ve_judge, "judge_timeout", -1),
        (care_judge, "judge_repeats", 0),
        (culturesynth_judge, "rejudge_fraction", 2),
        (cqbench_ve_judge, "judge_repeats", "x"),
    ],
)
def test_scorer_options_are_checked_too(scorer: Callable[..., Any], name: str, value: Any) -> None:
    """`inspect score -S name=value`: a bad option is reported as such (not a ValueError, which
    `inspect score` would turn into "scorer couldn't be loaded")."""
    with pytest.raises(ScorerSetupError, match=name) as raised:
        scorer(**{name: value})
    assert not isinstance(raised.value, ValueError)


def test_helpers_accept_what_the_cli_gives() -> None:
    assert check_bool("x", True) is True and check_bool("x", "false") is False
    assert as_optional_int("shots", 1) == 1 and as_optional_int("shots", "3") == 3
    assert as_optional_int("n", 4.0) == 4
    assert as_optional_int("per_category", None) is None
    assert as_optional_int("per_category", 2, minimum=1) == 2
    # judge_timeout: its declared check (`judging/options.py`), None (no limit) its default
    assert inspect_options({"judge_timeout": 600}).judge_timeout == 600.0
    assert inspect_options({"judge_timeout": "1.5"}).judge_timeout == 1.5
    assert inspect_options({}).judge_timeout is None
    for bad in (True, "inf", float("nan"), 0):
        with pytest.raises(ValueError, match="judge_timeout"):
            inspect_options({"judge_timeout": bad})
    with pytest.raises(ValueError, match="shots"):
        as_optional_int("shots", True)


@pytest.mark.slow
def test_inspect_eval_cli_names_the_parameter(tmp_path: Path) -> None:
    env = {**os.environ, "INSPECT_LOG_DIR": str(tmp_path)}
    done = subprocess.run(
        [str(Path(sys.executable).parent / "inspect"), "eval", "inspect_culture/care",
         "--model", "mockllm/model", "-T", "per_category=abc", "--display", "plain"],
        cwd=Path(__file__).parents[2], env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "per_category='abc'" in output and "whole number >= 1" in output, output[-2000:]
    assert "invalid literal" not in output and "Traceback" not in output

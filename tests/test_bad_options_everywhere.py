"""Every option of every benchmark, given a value it does not take, through every entry point:
Inspect's task and scorer parameters (`-T`, `-S`), lm-eval's `--metadata` (through each task's
loader, and the `lm_eval` command line), and `culture-evals judge --metadata`. Each is refused
with one line naming the option (and what it allows), never a traceback, never ignored. The
options come from the registry and the task signatures, so a new option is walked without an
edit here."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from inspect_culture import benchmark_registry
from inspect_culture.cli import main
from inspect_culture.inspect_adapter.roles import prerequisite_error
from inspect_culture.judging.options import JUDGE_KEYS, REPEAT_KEYS
from inspect_culture.lm_eval_tasks import include_path
from inspect_culture.lm_eval_tasks.cli_errors import ONE_LINE_ERRORS
from inspect_culture.lm_eval_tasks.judge import batch
from inspect_culture.lm_eval_tasks.judge.known_keys import JUDGING_OPTIONS
from tests.support.openai_stub import StubOpenAIServer, care_responder

# "bogus" is a value no option takes, but for these: any text names a model
BAD: dict[str, Any] = {"judge_model": 7, "judge_models": 7}
# options naming a file or folder: their refusal names the file given, which does not exist
FILE_OPTIONS = frozenset({"baseline_responses", "ve_summaries"})
CLOSED = "http://127.0.0.1:9/v1"  # a judge the checks never reach
JUDGE = {"judge_model": "j", "judge_base_url": CLOSED, "judge_preflight": False}


def bad_value(option: str) -> Any:
    return BAD.get(option, "bogus")


def assert_one_line_naming(message: str, option: str, value: Any) -> None:
    assert "\n" not in message.strip() and "Traceback" not in message, message
    named = str(value) if option in FILE_OPTIONS else option
    assert named in message, f"{option}={value!r}: {message}"


def test_the_file_options_are_options() -> None:
    """The one hand-written list here cannot go stale."""
    known = {key for b in benchmark_registry.benchmarks() for key in b.lm_eval_options}
    assert known >= FILE_OPTIONS


# --- Inspect: every parameter of every task and judge scorer ---------------------------------


def _inspect_cases() -> list[Any]:
    return [
        pytest.param(b.name, name, option, id=f"{name}-{option}")
        for b in benchmark_registry.benchmarks()
        for name, made in b.inspect_objects().items()
        for option in inspect.signature(made).parameters
    ]


@pytest.mark.parametrize(("benchmark", "name", "option"), _inspect_cases())
def test_inspect_refuses_each_bad_parameter_in_one_line(
    full_mirror: Path, benchmark: str, name: str, option: str
) -> None:
    """Inspect prints its PrerequisiteError (the task's and the scorer's setup errors) alone."""
    made = benchmark_registry.benchmark(benchmark).inspect_objects()[name]
    value = yaml.safe_load(str(bad_value(option)))  # what `-T option=value` hands the task
    with pytest.raises(prerequisite_error()) as raised:
        made(**{option: value})
    assert_one_line_naming(str(raised.value), option, value)


# --- lm-eval: every --metadata key a benchmark's tasks read, through their loaders -----------


def _lm_eval_cases() -> list[Any]:
    cases = []
    for b in benchmark_registry.benchmarks():
        judge_keys = (*JUDGE_KEYS, *REPEAT_KEYS) if b.lm_eval_judged else ()
        for option in dict.fromkeys((*b.lm_eval_options, *judge_keys)):
            cases.append(pytest.param(b.name, option, id=f"{b.name}-{option}"))
    return cases


def _lm_eval_tasks(benchmark: benchmark_registry.Benchmark) -> list[str]:
    from lm_eval.tasks import TaskManager

    folder = include_path() / benchmark.lm_eval_folder
    manager = TaskManager(include_path=[str(include_path())], include_defaults=False)
    return sorted(t for t in manager.all_subtasks if (folder / f"{t}.yaml").is_file())


@pytest.mark.parametrize(("benchmark", "option"), _lm_eval_cases())
def test_lm_eval_refuses_each_bad_option_in_one_line(
    full_mirror: Path, monkeypatch: pytest.MonkeyPatch, benchmark: str, option: str
) -> None:
    """The benchmark's tasks load in turn with the bad value until one refuses it; every
    refusal is of a kind the `lm_eval` command line prints as its message alone."""
    from lm_eval.tasks import TaskManager, get_task_dict

    monkeypatch.setattr(batch, "run_judges", lambda: True)  # as in a run that judges
    found = benchmark_registry.benchmark(benchmark)
    value = bad_value(option)
    metadata = {**(JUDGE if found.lm_eval_judged else {}), option: value}
    if option == "judge_models":
        metadata.pop("judge_model")
    refusals: list[str] = []
    for task in _lm_eval_tasks(found):
        manager = TaskManager(
            include_path=[str(include_path())], include_defaults=False, metadata=metadata
        )
        try:
            get_task_dict([task], manager)
            continue
        except Exception as exc:  # noqa: BLE001 - every refusal is checked below
            refusals.append(f"{task}: {type(exc).__name__}: {exc}")
            assert isinstance(exc, ONE_LINE_ERRORS), refusals[-1]
            assert "\n" not in str(exc).strip(), refusals[-1]
            named = str(value) if option in FILE_OPTIONS else option
            if named in str(exc):
                assert_one_line_naming(str(exc), option, value)
                return
    pytest.fail(f"no {benchmark} task refused {option}={value!r}: {refusals}")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("option", "allowed"), [("jury_rule", "mean, median"), ("judge_mapping", "paper, upstream")]
)
def test_the_lm_eval_command_line_says_a_bad_option_in_one_line(option: str, allowed: str) -> None:
    with StubOpenAIServer(responder=care_responder) as model:
        command = [
            sys.executable, "-m", "lm_eval", "--model", "local-chat-completions",
            "--model_args", f"model=m,base_url={model.base_url}/chat/completions,num_concurrent=1",
            "--tasks", "care_zh", "--include_path", str(include_path()), "--apply_chat_template",
            "--limit", "1", "--metadata", json.dumps({option: "foo"}),
        ]  # fmt: skip
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=300,
            env={**os.environ, "HF_DATASETS_OFFLINE": "1"},
        )  # fmt: skip
        assert model.requests == []  # before any generation
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    *_, last = [line for line in done.stderr.splitlines() if line.strip()]
    assert (
        last == f"BenchmarkOptionError: {option}='foo' is not supported; allowed values: {allowed}"
    )


# --- culture-evals judge: every key it takes, every benchmark option it does not -------------

JUDGE_LATER_KEYS = (*JUDGE_KEYS, *REPEAT_KEYS, *JUDGING_OPTIONS)


def _refused_by_judge(tmp_path: Path, metadata: dict[str, Any]) -> str:
    """`culture-evals judge --metadata`: its message, checked before any file is read (the run
    folder is empty: an option let through would end in "no results" instead)."""
    (tmp_path / "run").mkdir(exist_ok=True)
    args = ["judge", str(tmp_path / "run"), "-o", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as raised:
        main([*args, "--metadata", json.dumps(metadata)])
    message = str(raised.value.code)
    assert message.startswith("culture-evals judge: "), message
    return message


@pytest.mark.parametrize("option", JUDGE_LATER_KEYS)
def test_culture_evals_judge_refuses_each_bad_option_in_one_line(
    tmp_path: Path, option: str
) -> None:
    value = bad_value(option)
    metadata = {**JUDGE, option: value}
    if option == "judge_models":
        metadata.pop("judge_model")
    assert_one_line_naming(_refused_by_judge(tmp_path, metadata), option, value)


def _fixed_by_generation() -> list[str]:
    options = {key for b in benchmark_registry.benchmarks() for key in b.lm_eval_options}
    return sorted(options - set(JUDGE_LATER_KEYS))


@pytest.mark.parametrize("option", _fixed_by_generation())
def test_culture_evals_judge_refuses_what_generation_fixed(tmp_path: Path, option: str) -> None:
    """A benchmark option the saved docs and prompts hold: refused, not silently ignored."""
    message = _refused_by_judge(tmp_path, {**JUDGE, option: "x"})
    assert f"--metadata key {option!r} is fixed by the generation run" in message
    assert "jury_rule" in message and "\n" not in message  # what it does take


def test_culture_evals_judge_refuses_an_unknown_key(tmp_path: Path) -> None:
    message = _refused_by_judge(tmp_path, {**JUDGE, "bogus_key": 1})
    assert "unknown --metadata key 'bogus_key'. Known keys: " in message
    message = _refused_by_judge(tmp_path, {**JUDGE, "jury_rul": "median"})
    assert "unknown --metadata key 'jury_rul' (did you mean jury_rule?)" in message

"""One model named twice in a jury is refused before any generation, in every entry point, with
one line pointing to `judge_repeats` (the option for asking one judge again on purpose): a
jury asks each judge every judgment, so the same judge twice would be paid twice for one
judge's verdicts, with an "agreement" that is the judge's agreement with itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, get_model

from inspect_culture.care import care
from inspect_culture.cli import main
from inspect_culture.inspect_adapter.roles import prerequisite_error
from inspect_culture.judging.jury import RepeatedJudgeError, refuse_repeated_judges
from inspect_culture.judging.options import JudgeConfigError, resolve_jury_settings
from tests.support.harness_runs import registered_task_name, run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, care_responder


def _one_line_naming_repeats(message: str) -> None:
    assert "\n" not in message.strip(), message
    assert "same judge" in message and "judge_repeats" in message, message
    assert "self-consistency" in message, message


def test_the_check_names_both_judges_and_judge_repeats() -> None:
    judges = [("grader", "m/a", "http://h/v1"), ("grader_2", "m/b", ""), ("grader_3", "m/a", "")]
    refuse_repeated_judges(judges[:2], "judge_repeats")  # different models: a jury
    refuse_repeated_judges([judges[0], judges[2]], "judge_repeats")  # other endpoint: a jury
    with pytest.raises(RepeatedJudgeError) as raised:
        refuse_repeated_judges([*judges, ("grader_4", "m/b", "")], "-T judge_repeats=2")
    message = str(raised.value)
    _one_line_naming_repeats(message)
    assert message.startswith("grader_2 and grader_4 are the same judge (m/b ")
    assert "-T judge_repeats=2" in message
    # a trailing slash does not make another endpoint
    with pytest.raises(RepeatedJudgeError):
        refuse_repeated_judges([("a", "m", "http://h/v1/"), ("b", "m", "http://h/v1")], "x")


@pytest.mark.parametrize(
    "metadata",
    [
        {"judge_models": ["judge", "judge"]},
        {"judge_models": "judge, judge", "judge_base_url": "http://h:1/v1"},
        {"judge_models": ["a", "judge", "judge"], "judge_base_url": ["http://h:1/v1"] * 3},
    ],
)
def test_lm_eval_judge_models_twice_is_refused(metadata: dict[str, Any]) -> None:
    with pytest.raises(JudgeConfigError) as raised:
        resolve_jury_settings(metadata, env={})
    _one_line_naming_repeats(str(raised.value))
    assert "judge_models entry" in str(raised.value)


def test_lm_eval_the_same_name_at_two_endpoints_is_a_jury() -> None:
    urls = "http://h:1/v1,http://h:2/v1"
    jury = resolve_jury_settings({"judge_models": "judge,judge", "judge_base_url": urls}, env={})
    assert [j.base_url for j in jury] == urls.split(",")


@pytest.mark.slow
def test_lm_eval_run_refuses_before_generation_and_preflight() -> None:
    with (
        StubOpenAIServer(responder=care_responder) as model,
        StubOpenAIServer(responder=care_responder) as judge,
    ):
        metadata = {"judge_models": ["j", "j"], "judge_base_url": judge.base_url}
        with pytest.raises(JudgeConfigError, match="judge_repeats"):
            run_lm_eval(model, ["care_zh"], {**metadata, "per_category": 1})
        assert model.requests == [] and judge.requests == []


def _answers(answered: list[str]):
    def reply(messages: list[Any], *_: Any) -> ModelOutput:
        answered.append(messages[-1].text)
        return ModelOutput.from_content(model="mockllm", content="Fine.\nRating: [[6]]")

    return get_model("mockllm/model", custom_outputs=reply, memoize=False)


@pytest.mark.parametrize(
    ("roles", "self_grade", "first"),
    [
        ({"grader": "mockllm/judge", "grader_2": "mockllm/judge"}, False, "grader"),
        (
            {"grader": "mockllm/a", "grader_2": "mockllm/judge", "grader_3": "mockllm/judge"},
            False,
            "grader_2",
        ),
        ({"grader_2": "mockllm/model"}, True, "the evaluated model (self_grade)"),
    ],
)
def test_inspect_roles_bound_to_one_model_are_refused_before_generation(
    tmp_path: Path, roles: dict[str, str], self_grade: bool, first: str
) -> None:
    answered: list[str] = []
    [log] = inspect_eval(
        care(language="zh", per_category=1, self_grade=self_grade),
        model=_answers(answered),
        model_roles={role: get_model(name, memoize=False) for role, name in roles.items()},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error"
    message = log.error.message
    _one_line_naming_repeats(message)
    assert message.startswith(f"{first} and grader_"), message
    assert "-T judge_repeats=2" in message
    assert answered == []  # refused before the first generation


def test_inspect_refuses_one_model_twice_while_building_the_task(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """`inspect eval inspect_culture/care --model-role grader=X --model-role grader_2=X`: the
    task, built by the eval, refuses with Inspect's PrerequisiteError (its message alone) before
    a log exists; under `--display none` the line goes to stderr too."""
    roles = {"grader": "mockllm/judge", "grader_2": "mockllm/judge"}
    with pytest.raises(prerequisite_error()) as raised:
        inspect_eval(
            registered_task_name("care"),
            model="mockllm/model",
            model_roles=roles,
            task_args={"per_category": 1},
            log_dir=str(tmp_path),
            display="none",
        )
    _one_line_naming_repeats(str(raised.value))
    assert str(raised.value) in capfd.readouterr().err
    assert not any(tmp_path.iterdir())  # no log written


@pytest.mark.parametrize(
    "options",
    [
        ["--judge-models", "j,j"],
        ["--metadata", '{"judge_models": ["j", "j"]}'],
        ["--judge-models", "j, k , j", "--judge-base-url", "http://127.0.0.1:9/v1"],
    ],
)
def test_culture_evals_judge_refuses_one_model_twice(
    tmp_path: Path, options: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused before any file is read: the run folder need not even hold a run."""
    (tmp_path / "run").mkdir()
    with pytest.raises(SystemExit) as raised:
        main(["judge", str(tmp_path / "run"), "-o", str(tmp_path / "out"), *options])
    message = str(raised.value.code)
    assert message.startswith("culture-evals judge: judge_models entry ")
    _one_line_naming_repeats(message)
    assert capsys.readouterr().out == ""

"""The judge parameters of Inspect's judged tasks and scorers come from their declaration
(`judging/options.py`, `inspect_adapter/params.py`): Inspect sees the parameters it always saw
(names, defaults), takes them by registry name as `-T` does, records them in the log's task
arguments and in the scorer's, and re-creates the scorer from those (`inspect score`)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai import score as inspect_score
from inspect_ai.model import ModelOutput, get_model

from inspect_culture.care import care, care_judge
from inspect_culture.cqbench import cqbench_ve, cqbench_ve_judge
from inspect_culture.culturesynth import culturesynth, culturesynth_judge
from tests.support.harness_runs import registered_task_name

JUDGE_TASK = {
    "self_grade": False,
    "judge_constraint": "none",
    "judge_preflight": True,
    "judge_timeout": None,
    "judge_later": False,
    "judge_repeats": 1,
    "rejudge_fraction": 1.0,
    "judge_temperature": 0.0,  # an option added since (greedy, as before)
    "judge_price": None,  # added since: no price, tokens only (issue 42)
}
JUDGE_SCORER = {k: v for k, v in JUDGE_TASK.items() if k != "judge_preflight"}
CARE = {"language": "zh", "prompting": "zero_shot", "judge_mapping": "paper", "per_category": None}
CULTURESYNTH = {"language": None, "swap": True, "baseline_responses": None, "seed": 0}
PARAMETERS = [
    (care, {**CARE, "jury_rule": "mean", **JUDGE_TASK}),
    (care_judge, {"judge_mapping": "paper", "jury_rule": "mean", **JUDGE_SCORER}),
    (culturesynth, {**CULTURESYNTH, **JUDGE_TASK}),
    (culturesynth_judge, {"swap": True, "seed": 0, **JUDGE_SCORER}),
    (cqbench_ve, {"setting": "random", **JUDGE_TASK}),
    (cqbench_ve_judge, JUDGE_SCORER),
]


def test_inspect_sees_each_judged_task_and_scorer_parameter_with_its_default() -> None:
    for made, expected in PARAMETERS:
        parameters = inspect.signature(made).parameters
        assert {name: p.default for name, p in parameters.items()} == expected, made


def _judge(messages: list[Any], *_: Any) -> ModelOutput:
    return ModelOutput.from_content(model="mockllm", content="Fine.\nRating: [[7]]")


def test_judge_parameters_by_name_reach_the_log_and_inspect_score(
    full_mirror: Path, tmp_path: Path
) -> None:
    grader = get_model("mockllm/model", custom_outputs=_judge, memoize=False)
    given = {"language": "zh", "per_category": 1, "judge_repeats": "2", "judge_preflight": False}
    [log] = inspect_eval(
        registered_task_name("care"),
        task_args=given,  # as `-T` hands them over: by name, text where YAML reads text
        model=get_model("mockllm/model"),
        model_roles={"grader": grader},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert log.eval.task_args["judge_repeats"] == "2"
    assert log.eval.task_args["rejudge_fraction"] == 1.0  # the declared default, recorded
    [scorer] = log.eval.scorers or []
    assert scorer.options["judge_repeats"] == 2 and "judge_preflight" not in scorer.options
    repeated = [s.scores["care_judge"].metadata for s in log.samples]
    assert all(m["judge_repeats"] == 2 for m in repeated)
    # `inspect score LOG --scorer inspect_culture/care_judge`: the recorded arguments again
    rescored = inspect_score(log, care_judge(**scorer.options), model_roles={"grader": grader})
    assert [s.scores["care_judge"].metadata["judge_repeats"] for s in rescored.samples] == [
        2
    ] * len(log.samples)

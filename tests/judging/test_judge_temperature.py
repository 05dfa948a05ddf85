"""`judge_temperature`, one option declared once (`judging/options.py`): the judge is sampled at
the same temperature in Inspect (the grader's GenerateConfig), in lm-eval (the HTTP body) and in
`culture-evals judge` (the HTTP body, and the OpenAI Batch API's bodies, built by the same
`request_body`); 0 (greedy) stays the default; a sampled verdict never answers a greedy request
from the judge cache; a bad value is one line naming the option in every entry point."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ModelOutput, get_model

from inspect_culture.benchmarks.care.judging import care_rating_format
from inspect_culture.care import care, care_judge
from inspect_culture.cli import main
from inspect_culture.inspect_adapter.errors import ScorerSetupError, TaskSetupError
from inspect_culture.inspect_adapter.judge import judge_call, judge_config
from inspect_culture.inspect_adapter.judge_cache import request_key
from inspect_culture.judge_command import run as judge_command_run
from inspect_culture.judging.http_client import cache_key, request_body, run_sync
from inspect_culture.judging.options import (
    JudgeConfigError,
    inspect_options,
    metadata_options,
    resolve_judge_settings,
    resolve_jury_settings,
)
from inspect_culture.judging.protocol import JudgeRequest
from inspect_culture.lm_eval_tasks.judge import batch
from inspect_culture.lm_eval_tasks.judge.known_keys import check_metadata_keys
from tests.support.openai_stub import StubOpenAIServer

PROMPT = "Rate this answer."
MESSAGES = ({"role": "user", "content": PROMPT},)


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")


def _inspect_temperatures(given: dict[str, Any]) -> list[float | None]:
    """The temperature each call to an Inspect grader carried, with the -T values `given`."""
    seen: list[float | None] = []

    def grader_output(messages: list[Any], tools: Any, choice: Any, config: Any) -> ModelOutput:
        seen.append(config.temperature)
        return ModelOutput.from_content(model="mockllm", content="Rating: [[7]]")

    grader = get_model("mockllm/model", custom_outputs=grader_output, memoize=False)
    options = inspect_options(given)
    reply = asyncio.run(judge_call(grader, PROMPT, None, options))
    assert (reply.text, reply.error) == ("Rating: [[7]]", None)
    return seen


def _lm_eval_temperatures(metadata: dict[str, Any]) -> list[float]:
    """The temperature of each HTTP judge request lm-eval's filter sends with `metadata`."""
    check_metadata_keys("care_zh", metadata)  # a key every judged task takes
    with StubOpenAIServer(responder=lambda prompt, body: "Rating: [[7]]") as server:
        judge = {"judge_model": "j", "judge_base_url": server.base_url, "judge_preflight": False}
        options = metadata_options({**judge, **metadata})  # as a loader builds them
        [transport] = batch.transports("temperature_test", options)
        request = JudgeRequest(MESSAGES, care_rating_format())
        [reply] = run_sync(lambda: transport.send([request], 1))
        assert reply.text == "Rating: [[7]]"
        return [body["temperature"] for body in server.requests]


def _command_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: list[str]) -> Any:
    """What `culture-evals judge` hands the judging, from its flags."""
    got: dict[str, Any] = {}

    def judge_outputs(source: Path, output: Path, metadata: Any, **_: Any) -> Any:
        got.update(metadata)
        raise judge_command_run.JudgeLaterError("stop here")

    monkeypatch.setattr(judge_command_run, "judge_outputs", judge_outputs)
    with pytest.raises(SystemExit, match="stop here"):
        main(["judge", str(tmp_path), "-o", str(tmp_path / "out"), "--judge-model", "j", *flags])
    return got


def test_the_same_temperature_reaches_the_judge_in_every_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _inspect_temperatures({"judge_temperature": "0.7"}) == [0.7]
    assert _lm_eval_temperatures({"judge_temperature": "0.7"}) == [0.7]
    metadata = _command_metadata(tmp_path, monkeypatch, ["--judge-temperature", "0.7"])
    [settings] = resolve_jury_settings(metadata)
    body = request_body(settings, MESSAGES, None)  # the concurrent client's and the batch's
    assert (metadata["judge_temperature"], body["temperature"]) == (0.7, 0.7)


def test_greedy_stays_the_default_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _inspect_temperatures({}) == [0.0]
    assert _lm_eval_temperatures({}) == [0.0]
    metadata = _command_metadata(tmp_path, monkeypatch, [])
    assert "judge_temperature" not in metadata
    [settings] = resolve_jury_settings(metadata)
    assert request_body(settings, MESSAGES, None)["temperature"] == 0.0


def test_a_sampled_verdict_never_answers_a_greedy_request_from_the_cache() -> None:
    grader = get_model("mockllm/model")
    greedy, sampled = (inspect_options(t) for t in ({}, {"judge_temperature": 0.7}))
    keys = {request_key(grader, PROMPT, judge_config(grader, None, o)) for o in (greedy, sampled)}
    assert len(keys) == 2
    lm_eval = {"judge_model": "m", "judge_base_url": "http://127.0.0.1:9/v1"}
    judges = [resolve_judge_settings({**lm_eval, **t}, {}) for t in ({}, {"judge_temperature": 1})]
    assert len({cache_key(judge, MESSAGES) for judge in judges}) == 2


@pytest.mark.parametrize("value", [-1, "hot", True, "nan"])
def test_a_bad_temperature_is_one_line_naming_it_everywhere(tmp_path: Path, value: Any) -> None:
    said = []
    for made, error in ((care, TaskSetupError), (care_judge, ScorerSetupError)):
        with pytest.raises(error) as raised:
            made(judge_temperature=value)
        said.append(str(raised.value))
    with pytest.raises(JudgeConfigError) as refused:
        resolve_judge_settings({"judge_model": "m", "judge_temperature": value}, {})
    said.append(str(refused.value))
    metadata = json.dumps({"judge_model": "j", "judge_temperature": value})
    with pytest.raises(SystemExit) as stopped:
        main(["judge", str(tmp_path), "-o", str(tmp_path / "o"), "--metadata", metadata])
    said.append(str(stopped.value.code))
    for message in said:
        assert "\n" not in message and f"judge_temperature={value!r}: must be" in message, said


def test_a_negative_temperature_flag_is_refused_before_any_judging(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["judge", str(tmp_path), "-o", str(tmp_path / "o"), "--judge-model", "j",
              "--judge-temperature", "-1"])  # fmt: skip
    assert str(stopped.value.code).startswith("culture-evals judge: judge_temperature=-1.0: must")


@pytest.mark.slow
def test_culture_evals_judge_sends_the_temperature_on_a_saved_run(tmp_path: Path) -> None:
    """End to end: an lm-eval run generates only, `culture-evals judge --judge-temperature`
    judges it, and every judge request carries the temperature."""
    from tests.support.harness_runs import run_lm_eval
    from tests.support.openai_stub import care_responder

    with StubOpenAIServer(responder=care_responder) as server:
        run_lm_eval(server, ["care_zh"], {"judge_later": True}, limit=2, output_path=tmp_path / "g")
        server.requests.clear()
        args = ["--judge-model", "judge", "--judge-base-url", server.base_url]
        out = str(tmp_path / "judged")
        assert (
            main(["judge", str(tmp_path / "g"), "-o", out, *args, "--judge-temperature", "1"]) == 0
        )
        judged = [body for body in server.requests if body["model"] == "judge"]
    assert len(judged) >= 2 and {body["temperature"] for body in judged} == {1.0}

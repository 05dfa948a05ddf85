"""lm-eval: a judge that cannot answer, a bad judge option, an unknown --metadata key or an
unusable judge cache stops the run when the task loads, before the evaluated model (its own stub
server) is asked anything, with one message saying what to fix."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from inspect_culture.judging.http_client import PREFLIGHT_PROMPT
from inspect_culture.judging.options import (
    JudgeConfigError,
    JudgeOptions,
    metadata_options,
    resolve_judge_settings,
    resolve_jury_settings,
)
from inspect_culture.lm_eval_tasks import include_path
from inspect_culture.lm_eval_tasks.cqbench import utils as cqbench
from inspect_culture.lm_eval_tasks.judge import batch
from inspect_culture.lm_eval_tasks.normad import utils as normad
from tests.support.harness_runs import run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, care_responder, last_user_text

pytestmark = pytest.mark.slow
KEY = "sk-secret-echoed-7781"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(autouse=True)
def _fresh_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sees its own judges unchecked (the check is once per process and judge)."""
    monkeypatch.setattr(batch, "_CHECKED", set())
    monkeypatch.delenv("INSPECT_CULTURE_JUDGE_PREFLIGHT", raising=False)
    monkeypatch.delenv("INSPECT_CULTURE_JUDGE_API_KEY", raising=False)


def _checked(metadata: dict) -> JudgeOptions:
    """The options a loader builds in a run that judges, each judge checked by one request."""
    options = metadata_options(metadata)
    batch.check_judges(options)
    return options


def _refused(metadata: dict, task: str = "care_zh") -> tuple[str, StubOpenAIServer]:
    """Run the task on a model stub; the message it stopped with, and the model stub."""
    with (
        StubOpenAIServer(responder=care_responder) as model,
        pytest.raises(JudgeConfigError) as refused,
    ):
        run_lm_eval(model, [task], metadata, limit=2)
    assert model.requests == []  # nothing was generated
    return str(refused.value), model


def test_unreachable_judge_stops_before_generation() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    message, _ = _refused({"judge_model": "j", "judge_base_url": url})
    assert url in message and "'j'" in message
    assert "could not connect" in message and "judge_base_url (host, port)" in message
    assert "judge_preflight" in message and "INSPECT_CULTURE_JUDGE_PREFLIGHT=off" in message


def test_refused_key_stops_before_generation_without_showing_it(monkeypatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_API_KEY", KEY)
    with StubOpenAIServer(api_key="the-right-key") as judge:
        message, _ = _refused({"judge_model": "j", "judge_base_url": judge.base_url})
        assert judge.refused == ["/v1/chat/completions"]  # one request, no retry
    assert "HTTP 401 (unauthorized)" in message and "check INSPECT_CULTURE_JUDGE_API_KEY" in message
    assert KEY not in message


def test_unknown_model_stops_before_generation() -> None:
    with StubOpenAIServer(models={"gpt-judge"}) as judge:
        message, _ = _refused({"judge_model": "gtp-judge", "judge_base_url": judge.base_url})
    assert "HTTP 404" in message and "'gtp-judge'" in message
    assert "model list at that endpoint" in message


def test_endpoint_url_given_as_base_url_is_refused_without_a_request() -> None:
    with StubOpenAIServer() as judge:
        url = f"{judge.base_url}/chat/completions"
        message, _ = _refused({"judge_model": "j", "judge_base_url": url})
        assert judge.refused == [] and judge.requests == []
    assert "judge_base_url" in message
    assert "should end in /v1 (the API root), not /chat/completions" in message
    assert f"use {judge.base_url}" in message


def test_base_url_without_v1_is_caught_by_the_strict_stub() -> None:
    with StubOpenAIServer() as judge:
        url = judge.base_url.removesuffix("/v1")
        message, _ = _refused({"judge_model": "j", "judge_base_url": url})
        assert judge.refused == ["/chat/completions"]
    assert "HTTP 404" in message and "ending in /v1" in message


def test_a_working_judge_costs_one_one_token_request_per_process(tmp_path: Path) -> None:
    with StubOpenAIServer(responder=care_responder) as judge:
        metadata = {"judge_model": "j", "judge_base_url": judge.base_url}
        for _ in range(2):
            _checked(metadata)
        [check] = judge.requests
        assert last_user_text(check) == PREFLIGHT_PROMPT and check["max_tokens"] == 1


@pytest.mark.parametrize("switch", ["metadata", "environment"])
def test_preflight_can_be_switched_off(monkeypatch, switch: str) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    metadata = {"judge_model": "j", "judge_base_url": url}
    if switch == "metadata":
        metadata["judge_preflight"] = False
    else:
        monkeypatch.setenv("INSPECT_CULTURE_JUDGE_PREFLIGHT", "off")
    options = _checked(metadata)
    assert [judge.model for judge in options.judges] == ["j"]


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("judge_max_retries", -1, "judge_max_retries=-1: must be an integer >= 0"),
        ("judge_max_retries", 1.5, "judge_max_retries=1.5: must be an integer >= 0"),
        ("judge_timeout", -1, "judge_timeout=-1: must be a number of seconds > 0"),
        ("judge_timeout", 0, "judge_timeout=0: must be a number of seconds > 0"),
        ("judge_retry_budget", "soon", "judge_retry_budget='soon': must be a number of seconds"),
        ("judge_concurrency", 0, "judge_concurrency=0: must be an integer >= 1"),
        ("judge_max_tokens", 0, "judge_max_tokens=0: must be an integer >= 1"),
        ("judge_seed", "x", "judge_seed='x': must be an integer >= 0"),
        ("judge_base_url", "127.0.0.1:8000/v1", "must be an http:// or https:// URL"),
        ("judge_base_url", "ftp://host/v1", "must be an http:// or https:// URL"),
        ("judge_constraint", "regexp", "judge_constraint"),
        ("judge_preflight", "maybe", "judge_preflight='maybe': must be true or false"),
    ],
)
def test_every_judge_option_is_checked(key: str, value: object, says: str) -> None:
    with pytest.raises(JudgeConfigError, match=says.replace("(", r"\(").replace("+", r"\+")):
        _checked({"judge_model": "m", key: value})


def test_defaults_survive_a_one_minute_rate_limit_window() -> None:
    settings = resolve_judge_settings({"judge_model": "m"}, {})
    assert settings.retry_budget >= 60 and settings.max_retries >= 5


@pytest.mark.parametrize(
    ("load", "key", "hint"),
    [
        ("care", "per_categroy", "did you mean per_category?"),
        ("care", "judge_temprature", "Known keys:"),
        ("care", "dataset_revison", "did you mean dataset_revision?"),
        ("normad", "parsr", "did you mean parser?"),
        ("normad", "judge_modle", "did you mean judge_model?"),
        ("cqbench_ad", "prompt_fidelty", "did you mean prompt_fidelity?"),
        ("care", "shuffle", "Known keys:"),
        ("normad", "context_window", "Known keys:"),
    ],
)
def test_unknown_metadata_keys_are_refused_with_the_known_ones(
    load: str, key: str, hint: str
) -> None:
    from inspect_culture.lm_eval_tasks.care import utils as care

    loader, variant = {
        "care": (care.load_docs, {"language": "zh", "prompting": "zero_shot"}),
        "normad": (normad.load_docs, {"context": "rot"}),
        "cqbench_ad": (
            cqbench.load_docs,
            {"family": "ad", "setting": "social", "reasoning": False},
        ),
    }[load]
    with pytest.raises(JudgeConfigError, match=f"unknown --metadata key '{key}'") as refused:
        loader(variant, **{key: 1, "judge_model": "m", "judge_preflight": False})
    assert hint in str(refused.value) and "judge_model" in str(refused.value)


@pytest.mark.parametrize("load", ["care", "normad", "cqbench_ve"])
def test_an_inspect_only_judge_option_is_refused_naming_where_it_belongs(load: str) -> None:
    """`self_grade` (the evaluated model judging itself) is Inspect's: in lm-eval it did
    nothing, for every task of a run (one --metadata serves them all)."""
    from inspect_culture.lm_eval_tasks.care import utils as care
    from inspect_culture.lm_eval_tasks.cqbench import ve

    loader, variant = {
        "care": (care.load_docs, {"language": "zh", "prompting": "zero_shot"}),
        "normad": (normad.load_docs, {"context": "rot"}),
        "cqbench_ve": (ve.load_extraction_docs, {"setting": "social"}),
    }[load]
    with pytest.raises(JudgeConfigError) as refused:
        loader(variant, self_grade=True, judge_model="m", judge_preflight=False)
    assert str(refused.value).endswith(
        "self_grade is a judge option of the Inspect tasks (-T self_grade=...), not of lm-eval's "
        "--metadata, whose judge is judge_model at judge_base_url"
    )


def test_unknown_key_stops_the_lm_eval_run_before_generation() -> None:
    message, _ = _refused({"judge_model": "m", "judge_temprature": 0.2}, "normad_rot")
    assert "normad_rot: unknown --metadata key 'judge_temprature'" in message
    assert "parser" in message  # a known key of the task, listed


def test_any_unknown_key_is_refused_but_model_arguments_pass() -> None:
    """lm-eval merges `model_args` into every task's metadata; those keys are let through, any
    other unknown key is refused even when it looks like nothing we know."""
    message, _ = _refused({"judge_model": "m", "shuffle": True}, "normad_rot")
    assert "normad_rot: unknown --metadata key 'shuffle'" in message
    # one --metadata serves every task of a run: another benchmark's option is not a mistake
    from inspect_culture.lm_eval_tasks.judge.known_keys import check_metadata_keys

    check_metadata_keys("normad_rot", {"per_category": 1, "swap": True}, options=("parser",))
    with pytest.raises(JudgeConfigError, match="did you mean per_category"):
        check_metadata_keys("normad_rot", {"per_categroy": 1}, options=("parser",))
    with StubOpenAIServer(responder=care_responder) as model:
        # as `lm_eval` and `simple_evaluate` merge them: model arguments in the task metadata
        merged = {"judge_later": True, "model": "stub-model", "num_concurrent": 4}
        results = run_lm_eval(model, ["care_zh"], merged, limit=2)
        assert len(model.requests) == 2
    assert results["results"]["care_zh"]["n_unscored,judged"] == 2


@pytest.mark.parametrize("where", ["under_a_file", "proc", "directory", "not_sqlite"])
def test_unusable_cache_stops_before_generation(tmp_path: Path, monkeypatch, where: str) -> None:
    (tmp_path / "file").write_text("not a database, just text\n" * 10)
    path = {
        "under_a_file": tmp_path / "file" / "judge.sqlite",
        "proc": Path("/proc/judge_cache.sqlite"),
        "directory": tmp_path,
        "not_sqlite": tmp_path / "file",
    }[where]
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", str(path))
    with StubOpenAIServer() as judge:
        message, _ = _refused({"judge_model": "j", "judge_base_url": judge.base_url})
        assert judge.requests == []  # the cache is checked before the judge
    assert f"The judge cache {path} cannot be used" in message
    assert "INSPECT_CULTURE_JUDGE_CACHE" in message


def test_lm_eval_cli_stops_with_one_message(tmp_path: Path) -> None:
    """The real command line; it also merges --model_args into the loaders' metadata, which
    the key check must let through."""
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    with StubOpenAIServer(responder=care_responder) as model:
        command = [
            sys.executable, "-m", "lm_eval", "--model", "local-chat-completions",
            "--model_args", f"model=stub-model,base_url={model.base_url}/chat/completions,num_concurrent=1",
            "--tasks", "care_zh", "--include_path", str(include_path()), "--apply_chat_template",
            "--limit", "1", "--metadata", json.dumps({"judge_model": "j", "judge_base_url": url}),
        ]  # fmt: skip
        env = {**os.environ, "HF_DATASETS_OFFLINE": "1"}
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        assert model.requests == []
    assert done.returncode != 0
    assert f"The judge 'j' at {url} cannot answer" in done.stderr
    assert "unknown --metadata key" not in done.stderr


def test_lm_eval_cli_refuses_an_unknown_metadata_key() -> None:
    with StubOpenAIServer(responder=care_responder) as model:
        command = [
            sys.executable, "-m", "lm_eval", "--model", "local-chat-completions",
            "--model_args", f"model=stub-model,base_url={model.base_url}/chat/completions,num_concurrent=1",
            "--tasks", "normad_rot", "--include_path", str(include_path()), "--apply_chat_template",
            "--limit", "1", "--metadata", json.dumps({"shuffle": True}),
        ]  # fmt: skip
        env = {**os.environ, "HF_DATASETS_OFFLINE": "1"}
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        assert model.requests == []
    assert done.returncode != 0
    assert "normad_rot: unknown --metadata key 'shuffle'. Known keys:" in done.stderr


def test_rate_limited_judge_passes_the_check(capsys: pytest.CaptureFixture[str]) -> None:
    """A 429 at the check: endpoint, key and model were reached; the run goes on and its
    judgments are retried (Retry-After, judge_retry_budget)."""
    with (
        StubOpenAIServer(responder=care_responder) as model,
        StubOpenAIServer(
            responder=care_responder, fault=lambda n, _: 429 if n == 0 else None
        ) as judge,
    ):
        results = run_lm_eval(
            model, ["care_zh"], {"judge_model": "j", "judge_base_url": judge.base_url}, limit=2
        )
        assert len(model.requests) == 2  # generation went ahead
    assert (
        results["results"]["care_zh"]["n_scored,judged"]
        + results["results"]["care_zh"]["n_unscored,judged"]
        == 2
    )
    assert "rate limiting (HTTP 429)" in capsys.readouterr().err


def test_rate_limited_constraint_probe_passes_the_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """As in Inspect: a 429 to the constraint probe is a reached judge, not a refused
    constraint; the run goes on and says that the constraint was not checked."""
    from tests.support.openai_stub import honouring_constraints

    with (
        StubOpenAIServer(responder=care_responder) as model,
        StubOpenAIServer(
            responder=honouring_constraints(care_responder),
            fault=lambda n, _: 429 if n == 0 else None,
        ) as judge,
    ):
        metadata = {
            "judge_model": "j", "judge_base_url": judge.base_url, "judge_constraint": "regex"
        }  # fmt: skip
        results = run_lm_eval(model, ["care_zh"], metadata, limit=2)
        assert len(model.requests) == 2  # generation went ahead
    assert results["results"]["care_zh"]["n_scored,judged"] == 2
    err = capsys.readouterr().err
    assert "rate limiting (HTTP 429)" in err
    assert "judge_constraint=regex could not be checked" in err


def test_credentials_in_judge_base_url_are_never_shown() -> None:
    from inspect_culture.judging.options import KNOBS
    from inspect_culture.judging.preflight import check_outcome
    from inspect_culture.judging.reasons import Failure

    settings = resolve_judge_settings(
        {"judge_model": "j", "judge_base_url": "https://bob:hunter2pass@judge.example/v1"}, {}
    )
    refused = Failure("HTTP 401 (unauthorized)", False, 401)
    message = check_outcome(refused, None, "judge", "j", settings.shown_url(), "j", KNOBS)
    assert message is not None
    shown = (message, settings.endpoint(), json.dumps(settings.public()))
    for text in shown:
        assert "hunter2pass" not in text and "bob" not in text, text
    assert "https://judge.example/v1" in message and settings.endpoint() == "judge.example"


def test_credentials_in_judge_base_url_reach_the_judge_but_not_the_samples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What is recorded shows the URL without credentials, while the judge calls still send
    them (HTTP basic auth from the URL), and the checkpoint the preflight learned is found
    again for the cache."""
    import base64

    from inspect_culture.judging.http_client import served_identity

    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", str(tmp_path / "judge_cache.sqlite"))
    with (
        StubOpenAIServer(responder=care_responder) as model,
        StubOpenAIServer(responder=care_responder, models={"j"}) as judge,
    ):
        judge.served_root = "/ckpt/v1"
        url = judge.base_url.replace("http://", "http://bob:hunter2pass@")
        jury = resolve_jury_settings({"judge_model": "j", "judge_base_url": url})
        batch.check_judges(JudgeOptions(judges=jury))
        [settings] = jury
        assert settings.base_url == url
        public = json.dumps(batch.public_settings(settings))
        assert "hunter2pass" not in public and judge.base_url in public
        assert served_identity(settings) is not None
        # lm-eval writes --metadata to its results: credentials come from the environment
        monkeypatch.setenv("INSPECT_CULTURE_JUDGE_BASE_URL", url)
        results = run_lm_eval(model, ["care_zh"], {"judge_model": "j"}, limit=2)
    assert results["results"]["care_zh"]["n_scored,judged"] == 2
    assert "hunter2pass" not in json.dumps(results, default=str)
    basic = "Basic " + base64.b64encode(b"bob:hunter2pass").decode()
    assert judge.authorizations and set(judge.authorizations) == {basic}


def test_judge_cache_misses_when_another_checkpoint_serves_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same judge URL and name, a new process, another checkpoint behind it (what the
    endpoint's /models says): the cached verdicts are not replayed. The same checkpoint hits."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", str(tmp_path / "judge_cache.sqlite"))

    def judged(model: StubOpenAIServer, judge: StubOpenAIServer, root: str) -> int:
        monkeypatch.setattr(batch, "_CHECKED", set())  # a new process checks again
        judge.served_root = root
        before = len(judge.requests)
        metadata = {"judge_model": "j", "judge_base_url": judge.base_url}
        run_lm_eval(model, ["care_zh"], metadata, limit=3)
        return len(judge.requests) - before - 1  # the preflight aside

    with (
        StubOpenAIServer(responder=care_responder) as model,
        StubOpenAIServer(responder=care_responder, models={"j"}) as judge,
    ):
        assert judged(model, judge, "/ckpt/v1") == 3
        assert judged(model, judge, "/ckpt/v1") == 0
        assert judged(model, judge, "/ckpt/v2") == 3

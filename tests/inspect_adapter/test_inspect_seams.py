"""Where Inspect and our judged tasks meet: the judge is checked when Inspect builds the task (its
roles are bound then and no log exists yet), so a stopped run exits non-zero with one short
message, writes no log, and no sample limit or batch setting touches the check; `inspect score`
finds our scorers for a log run by registry name; an epochs reducer we cannot honour is refused."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Epochs
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import GenerateConfig, get_model

from tests.support.harness_runs import registered_task_name
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = pytest.mark.slow
INSPECT = Path(sys.executable).parent / "inspect"
CARE_ARGS = {"language": "zh", "per_category": 1}


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _by_name(server: StubOpenAIServer, log_dir: Path, grader: Any, **kwargs: Any) -> Any:
    """`inspect eval inspect_culture/care`: Inspect builds the task itself, roles bound."""
    [log] = inspect_eval(
        registered_task_name("care"), task_args=CARE_ARGS, model="openai-api/stub/evaluated",
        model_base_url=server.base_url, model_roles={"grader": grader},
        log_dir=str(log_dir), display="none", max_retries=1, **kwargs,
    )  # fmt: skip
    return log


def test_a_stopped_run_exits_non_zero_with_the_message_first(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{_closed_port()}/v1"
    role = json.dumps({"model": "openai-api/stub/judge", "model_args": {"base_url": dead}})
    with StubOpenAIServer() as server:
        done = subprocess.run(
            [str(INSPECT), "eval", "inspect_culture/care", "-T", "language=zh",
             "-T", "per_category=1", "--model", "openai-api/stub/evaluated",
             "--model-base-url", server.base_url, "--model-role", f"grader={role}",
             "--log-dir", str(tmp_path / "logs"), "--display", "none"],
            capture_output=True, text=True, timeout=300, cwd=tmp_path,
            env={**os.environ, "STUB_API_KEY": "sk-test-seams"},
        )  # fmt: skip
        assert server.requests == []  # nothing generated
    assert done.returncode != 0
    shown = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert "Traceback" not in done.stdout + done.stderr
    assert len(shown) <= 6, shown
    assert "could not connect" in shown[0] and dead in shown[0], shown
    assert not list((tmp_path / "logs").rglob("*.eval"))


def test_the_check_does_not_count_against_the_message_limit(tmp_path: Path) -> None:
    with StubOpenAIServer(responder=care_responder) as server:
        grader = get_model("openai-api/stub/judge", base_url=server.base_url, api_key="k-1234567")
        log = _by_name(server, tmp_path, grader, message_limit=1)
    assert log.status == "success", log.error
    assert len(server.checks) == 1  # the judge's check: one judgment, outside the samples


def test_the_first_sample_check_does_not_count_against_the_message_limit(tmp_path: Path) -> None:
    """A task object built before `eval()` is checked at its first sample: outside the sample."""
    from inspect_culture.care import care
    from tests.support.harness_runs import inspect_eval_on_stub

    with StubOpenAIServer(responder=care_responder) as server:
        grader = get_model("openai-api/stub/judge", base_url=server.base_url, api_key="k-1234567")
        log = inspect_eval_on_stub(
            care(**CARE_ARGS), server, tmp_path, model_roles={"grader": grader}, message_limit=1
        )
    assert log.status == "success", log.error
    assert len(server.checks) == 1


def test_a_batch_grader_is_probed_directly(tmp_path: Path) -> None:
    """A batch grader's check is one direct request: a batch would take minutes (or fail on
    a server without the batch API, as this stub is)."""
    with StubOpenAIServer(responder=care_responder) as server:
        grader = get_model(  # `openai/`: the provider Inspect batches through /files, /batches
            "openai/judge", base_url=server.base_url, api_key="k-1234567",
            config=GenerateConfig(batch=True), responses_api=False,
        )  # fmt: skip
        log = _by_name(server, tmp_path, grader, score=False)
    assert log.status == "success", log.error
    # the check (a judgment) sent first, directly: no /files, no /batches
    assert server.requests[0] is server.checks[0] and server.refused == []


@pytest.mark.parametrize("task", ["inspect_culture/care", "inspect_culture/care.py"])
def test_inspect_score_finds_the_scorer_by_registry_name_or_file(tmp_path: Path, task: str) -> None:
    """Run by registry name (from elsewhere) or by file (from the checkout), then scored from
    another directory: the log names the scorer without its package either way."""
    logs = tmp_path / "logs"
    env = {**os.environ, "INSPECT_CULTURE_JUDGE_CACHE": "off"}
    checkout = Path(__file__).resolve().parents[2]
    step1 = subprocess.run(
        [str(INSPECT), "eval", task, "-T", "language=zh", "-T", "per_category=1",
         "--model", "mockllm/model", "--model-role", "grader=mockllm/judge",
         "--no-score", "--log-dir", str(logs), "--display", "none"],
        capture_output=True, text=True, timeout=300, env=env,
        cwd=checkout if task.endswith(".py") else tmp_path,
    )  # fmt: skip
    assert step1.returncode == 0, step1.stdout + step1.stderr
    [log_file] = logs.glob("*.eval")
    step2 = subprocess.run(
        [str(INSPECT), "score", str(log_file), "--overwrite", "--display", "none"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert step2.returncode == 0, step2.stdout + step2.stderr
    scored = read_eval_log(str(log_file))
    assert scored.results is not None and scored.results.scores[0].name == "care_judge"


def test_an_epochs_reducer_other_than_mean_is_refused(tmp_path: Path) -> None:
    with StubOpenAIServer(responder=care_responder) as server:
        grader = get_model("openai-api/stub/judge", base_url=server.base_url, api_key="k-1234567")
        refused = _by_name(server, tmp_path, grader, epochs=Epochs(2, "max"))
        # refused at the first sample, before any generation (the judge's preflight was made
        # while the task was built: the eval's reducer is known only once its task starts)
        assert [r["model"] for r in server.requests] == ["judge"]
    assert refused.status == "error"
    message = refused.error.message
    assert "--epochs-reducer max" in message and "mean" in message
    assert len(message.splitlines()) <= 3
    # the mean is what the metrics compute: it runs
    with StubOpenAIServer(responder=care_responder) as server:
        grader = get_model("openai-api/stub/judge", base_url=server.base_url, api_key="k-1234567")
        log = _by_name(server, tmp_path, grader, epochs=Epochs(2, "mean"), limit=1)
    assert log.status == "success", log.error

"""`inspect eval` by registry name (entry point) and by file path, as users run it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.openai_stub import StubOpenAIServer

pytestmark = pytest.mark.slow
CHECKOUT = Path(__file__).resolve().parents[2]
# Inspect rejects absolute task paths (pathlib glob), so run from the checkout, as the README does.


@pytest.mark.parametrize("target", ["inspect_culture/normad", "inspect_culture/normad.py"])
def test_inspect_eval(
    target: str, normad_mirror: Path, stub_server: StubOpenAIServer, tmp_path: Path
) -> None:
    env = os.environ.copy() | {"STUB_BASE_URL": stub_server.base_url, "STUB_API_KEY": "k"}
    command = [
        str(Path(sys.executable).parent / "inspect"), "eval", target,
        "--model", "openai-api/stub/stub-model",
        "-T", "context=none", "-T", "parser=upstream",
        "--log-dir", str(tmp_path), "--log-format", "json", "--display", "plain",
        "--max-retries", "2",
    ]  # fmt: skip
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=300, cwd=CHECKOUT
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [log_file] = tmp_path.glob("*.json")
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(log_file))
    assert log.status == "success"
    assert log.eval.task_args == {"context": "none", "parser": "upstream"}
    assert "accuracy" in log.results.scores[0].metrics
    assert len(stub_server.requests) == 16


def test_unknown_context_fails_with_allowed_values(normad_mirror: Path, tmp_path: Path) -> None:
    command = [
        str(Path(sys.executable).parent / "inspect"), "eval", "inspect_culture/normad",
        "--model", "openai-api/stub/stub-model", "-T", "context=cval", "--log-dir", str(tmp_path),
    ]  # fmt: skip
    env = os.environ.copy() | {"STUB_BASE_URL": "http://127.0.0.1:9/v1"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode != 0
    output = " ".join((done.stdout + done.stderr).split())  # rich wraps long lines
    assert (
        "context='cval' is not supported; allowed values: rot, value_country, country, none"
        in output
    )
    assert "Traceback" not in output

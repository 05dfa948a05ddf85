"""`culture-evals judge --batch`: the OpenAI Batch API path against the batch stub gives the
concurrent judge's requests and metrics, retries what an expired batch left undone, and resumes
an interrupted wait on the same batch."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspect_culture.cli import main
from tests.support.batch_stub import BatchStubServer
from tests.support.harness_runs import lm_eval_metrics, run_lm_eval
from tests.support.openai_stub import care_responder, honouring_constraints

pytestmark = pytest.mark.slow
JUDGE_PREFIX = "Please serve as"
ROOT = Path(__file__).resolve().parents[2]
N = 12


def _judge_bodies(server: BatchStubServer) -> list[str]:
    return sorted(
        json.dumps(body, sort_keys=True)
        for body in server.requests
        if str(body["messages"][-1]["content"]).startswith(JUDGE_PREFIX)
    )


def _metrics(folder: Path) -> dict[str, float]:
    [path] = folder.rglob("results_*.json")
    return lm_eval_metrics(json.loads(path.read_text()), "care_zh", "judged")


def _judge(server: BatchStubServer, gen: Path, out: Path, *extra: str) -> int:
    return main(
        ["judge", str(gen), "-o", str(out), "--judge-model", "judge",
         "--judge-base-url", server.base_url, *extra]
    )  # fmt: skip


@pytest.fixture
def generated(tmp_path: Path, monkeypatch) -> tuple[BatchStubServer, Path]:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_PREFLIGHT", "off")
    server = BatchStubServer(responder=care_responder).start()
    run_lm_eval(server, ["care_zh"], {"judge_later": True}, limit=N, output_path=tmp_path / "gen")
    server.requests.clear()
    yield server, tmp_path / "gen"
    server.stop()


def test_batch_sends_the_concurrent_requests_and_gives_its_metrics(
    generated, tmp_path: Path, monkeypatch
) -> None:
    server, gen = generated
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    assert _judge(server, gen, tmp_path / "live") == 0
    live_bodies = _judge_bodies(server)
    server.requests.clear()
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", str(tmp_path / "cache.sqlite"))
    assert _judge(server, gen, tmp_path / "batch", "--batch", "--poll-interval", "0.01") == 0
    assert server.batches_created == 1 and server.batch_polls == 2  # to running, to completed
    assert _judge_bodies(server) == live_bodies and len(live_bodies) == N
    assert _metrics(tmp_path / "batch") == pytest.approx(_metrics(tmp_path / "live"), nan_ok=True)
    [results] = (tmp_path / "batch").rglob("results_*.json")
    record = json.loads(results.read_text())["judge"]
    assert record["mode"] == "openai-batch" and record["batches"][0]["status"] == "completed"
    # a rerun finds every judgment in the cache: no new batch, no request
    server.requests.clear()
    assert _judge(server, gen, tmp_path / "again", "--batch", "--poll-interval", "0.01") == 0
    assert server.batches_created == 1 and server.requests == []


def test_expired_half_done_batch_is_retried_for_the_rest(
    generated, tmp_path: Path, monkeypatch
) -> None:
    server, gen = generated
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    assert _judge(server, gen, tmp_path / "live") == 0
    server.requests.clear()
    server.expire_half = 1
    assert _judge(server, gen, tmp_path / "batch", "--batch", "--poll-interval", "0.01") == 0
    assert server.batches_created == 2  # the expired one, then one for its undone half
    statuses = [b["status"] for b in server.batches.values()]
    assert statuses == ["expired", "completed"]
    assert len(_judge_bodies(server)) == N  # each request answered once
    assert _metrics(tmp_path / "batch") == pytest.approx(_metrics(tmp_path / "live"), nan_ok=True)


def test_expired_batches_beyond_the_rounds_leave_samples_unscored_with_a_reason(
    generated, tmp_path: Path, monkeypatch
) -> None:
    server, gen = generated
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    server.expire_half = 5
    args = ["--batch", "--poll-interval", "0.01", "--max-rounds", "1"]
    assert _judge(server, gen, tmp_path / "batch", *args) == 0
    assert server.batches_created == 1
    [samples] = (tmp_path / "batch").rglob("samples_care_zh_*.jsonl")
    errors = [json.loads(json.loads(x)["filtered_resps"][0])["error"] for x in samples.open()]
    undone = [e for e in errors if e and "batch_expired" in e]
    assert len(undone) == N - N // 2  # the half the batch did not do, with the reason
    metrics = _metrics(tmp_path / "batch")
    assert metrics["n_unscored"] >= len(undone)
    assert metrics["n_scored"] + metrics["n_unscored"] == N


SCRIPT = "import sys\nfrom inspect_culture.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def _killed_while_waiting(server: BatchStubServer, gen: Path, tmp_path: Path):
    """Start the batch judge, kill it while its batch is still validating; then a rerun of the
    same command, the batch now free to end."""
    server.polls_per_state = 10**6  # stays validating while the first run waits
    env = {
        **os.environ,
        "INSPECT_CULTURE_JUDGE_CACHE": str(tmp_path / "cache.sqlite"),
        "PYTHONPATH": str(ROOT),
    }
    command = [
        sys.executable, "-c", SCRIPT, "judge", str(gen), "-o", str(tmp_path / "out"),
        "--judge-model", "judge", "--judge-base-url", server.base_url,
        "--batch", "--poll-interval", "0.02",
    ]  # fmt: skip
    first = subprocess.Popen(command, env=env, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while server.batch_polls < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    first.send_signal(signal.SIGKILL)
    first.wait()

    def rerun() -> subprocess.CompletedProcess[str]:
        server.polls_per_state = 1
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)

    return rerun


def _all_counted(tmp_path: Path) -> bool:
    [results] = (tmp_path / "out").rglob("results_*.json")
    metrics = lm_eval_metrics(json.loads(results.read_text()), "care_zh", "judged")
    return metrics["n_scored"] + metrics["n_unscored"] == N and metrics["n_scored"] > 0


def test_interrupted_wait_resumes_the_same_batch(generated, tmp_path: Path) -> None:
    server, gen = generated
    rerun = _killed_while_waiting(server, gen, tmp_path)
    assert server.batches_created == 1
    assert list((tmp_path / "out" / ".judge_batches").glob("batch_*.json"))
    second = rerun()
    assert second.returncode == 0, second.stderr
    assert server.batches_created == 1  # the same batch, polled again: paid once
    assert len(_judge_bodies(server)) == N
    assert _all_counted(tmp_path)


def test_an_unfinished_batch_of_another_request_set_is_waited_for_not_paid_again(
    generated, tmp_path: Path
) -> None:
    """A batch left waiting by a run over another set of samples (its state file has another
    name) that holds these requests is polled and read, not submitted again."""
    server, gen = generated
    rerun = _killed_while_waiting(server, gen, tmp_path)
    [state] = (tmp_path / "out" / ".judge_batches").glob("batch_*.json")
    state.rename(state.with_name("batch_of_another_request_set.json"))
    second = rerun()
    assert second.returncode == 0, second.stderr
    assert server.batches_created == 1  # the other set's batch answered these: paid once
    assert len(_judge_bodies(server)) == N
    assert _all_counted(tmp_path)


def test_rejected_lines_and_failed_batches_are_unscored_with_reasons(
    generated, tmp_path: Path, monkeypatch, capsys
) -> None:
    server, gen = generated
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    bad: set[str] = set()  # the first three judge prompts seen: rejected with HTTP 400
    rejected: list[str] = []

    def fault(body: dict) -> int | None:
        text = body["messages"][-1]["content"]
        if len(rejected) < 3 and text not in bad:
            bad.add(text)
            rejected.append(text)
        return 400 if text in bad else None

    server.line_fault = fault
    assert _judge(server, gen, tmp_path / "b", "--batch", "--poll-interval", "0.01") == 0
    assert server.batches_created == 1  # a 400 is not retried: the same request would fail
    [samples] = (tmp_path / "b").rglob("samples_care_zh_*.jsonl")
    errors = [json.loads(json.loads(x)["filtered_resps"][0])["error"] for x in samples.open()]
    assert sum("HTTP 400 (stub: injected 400)" in (e or "") for e in errors) == 3
    server.line_fault, server.fail_batches = None, 5
    capsys.readouterr()
    args = ["--batch", "--poll-interval", "0.01"]
    assert _judge(server, gen, tmp_path / "f", *args) == 1  # every sample unscored
    assert server.batches_created == 2  # a failed batch is not retried either
    assert "every judged sample (12) is unscored" in capsys.readouterr().err
    [samples] = (tmp_path / "f").rglob("samples_care_zh_*.jsonl")
    errors = [json.loads(json.loads(x)["filtered_resps"][0])["error"] for x in samples.open()]
    assert set(errors) == {"not answered: the batch ended failed (stub: the input is invalid)"}


def test_constrained_batch_sends_the_constraint_fields(generated, tmp_path: Path, monkeypatch):
    server, gen = generated
    server.responder = honouring_constraints(care_responder)
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    constraint = ("--judge-constraint", "grammar")
    assert _judge(server, gen, tmp_path / "live", *constraint) == 0
    live_bodies = _judge_bodies(server)
    server.requests.clear()
    args = (*constraint, "--batch", "--poll-interval", "0.01")
    assert _judge(server, gen, tmp_path / "batch", *args) == 0
    assert _judge_bodies(server) == live_bodies and all('"grammar"' in b for b in live_bodies)
    live, batch = _metrics(tmp_path / "live"), _metrics(tmp_path / "batch")
    assert batch == pytest.approx(live) and live["n_unscored"] == 0  # the constraint held


def test_a_create_whose_reply_is_lost_is_found_again_not_paid_twice(
    generated, tmp_path: Path, monkeypatch, capsys
) -> None:
    """The server makes the batch but the reply never arrives: the run stops with one line
    (no retry of the create, which would make a second batch), and the rerun finds the batch
    by its input file and polls it."""
    server, gen = generated
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", str(tmp_path / "cache.sqlite"))
    server.lose_create_replies = 1
    args = ["--batch", "--poll-interval", "0.01"]
    with pytest.raises(SystemExit) as stopped:  # the CLI's one-line exit, status 1
        _judge(server, gen, tmp_path / "out", *args)
    message = str(stopped.value.code)
    assert message.startswith("culture-evals judge: the Batch API at 127.0.0.1"), message
    assert "could not connect" in message and "running the same command again resumes" in message
    assert server.create_calls == 1 and server.batches_created == 1
    assert _judge(server, gen, tmp_path / "out", *args) == 0
    assert server.create_calls == 1 and server.batches_created == 1  # found, not made again
    assert len(_judge_bodies(server)) == N
    assert _newest_metrics(tmp_path / "out")["n_scored"] == N


def _newest_metrics(folder: Path) -> dict[str, float]:
    path = max(folder.rglob("results_*.json"))  # timestamped names: the last run's
    return lm_eval_metrics(json.loads(path.read_text()), "care_zh", "judged")


def test_a_rerun_tries_a_failed_batch_again(generated, tmp_path: Path, monkeypatch) -> None:
    """A batch can fail for a passing reason (the organisation's queued-token quota): the same
    command run again submits what it left undone, once more."""
    server, gen = generated
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", str(tmp_path / "cache.sqlite"))
    server.fail_batches = 1
    args = ["--batch", "--poll-interval", "0.01"]
    assert _judge(server, gen, tmp_path / "out", *args) == 1  # every sample unscored
    assert server.batches_created == 1  # not retried within the run
    assert _judge(server, gen, tmp_path / "out", *args) == 0
    assert server.batches_created == 2
    assert _newest_metrics(tmp_path / "out")["n_scored"] == N
    assert len(_judge_bodies(server)) == N  # each request answered once


def test_requests_over_the_per_file_limit_go_into_several_batches(
    generated, tmp_path: Path, monkeypatch
) -> None:
    """More requests than one input file may hold: split into several batches, created
    together, each request sent once; a rerun with the cache sends nothing."""
    from inspect_culture.judging import openai_batch

    server, gen = generated
    monkeypatch.setattr(openai_batch, "MAX_REQUESTS", 5)
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", str(tmp_path / "cache.sqlite"))
    args = ["--batch", "--poll-interval", "0.01"]
    assert _judge(server, gen, tmp_path / "out", *args) == 0
    assert server.batches_created == 3  # 5 + 5 + 2
    sizes = [len(f["content"].splitlines()) for f in server.files.values()
             if f["record"]["purpose"] == "batch"]  # fmt: skip
    assert sorted(sizes) == [2, 5, 5]
    assert len(_judge_bodies(server)) == N and len(set(_judge_bodies(server))) == N
    assert _newest_metrics(tmp_path / "out")["n_scored"] == N
    server.requests.clear()
    assert _judge(server, gen, tmp_path / "out", *args) == 0
    assert server.batches_created == 3 and server.requests == []


def test_a_request_over_the_file_size_limit_stops_before_any_upload(
    generated, tmp_path: Path, monkeypatch
) -> None:
    from inspect_culture.judging import openai_batch

    server, gen = generated
    monkeypatch.setattr(openai_batch, "MAX_BYTES", 100)
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    with pytest.raises(SystemExit, match="per input file; judge without --batch"):
        _judge(server, gen, tmp_path / "out", "--batch", "--poll-interval", "0.01")
    assert server.files == {} and server.batches_created == 0


def test_a_batch_api_error_is_one_line_with_host_and_status_and_no_key(
    generated, tmp_path: Path, monkeypatch
) -> None:
    server, gen = generated
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_API_KEY", secret)
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    server.upload_status = 401
    server.upload_message = f"Incorrect API key provided: {secret}."
    with pytest.raises(SystemExit) as stopped:
        _judge(server, gen, tmp_path / "out", "--batch", "--poll-interval", "0.01")
    message = str(stopped.value.code)
    assert message.startswith("culture-evals judge: the Batch API at 127.0.0.1:"), message
    assert "HTTP 401" in message and "Incorrect API key provided" in message
    assert secret not in message and "\n" not in message
    assert server.batches_created == 0


def test_a_lost_create_on_a_server_that_cannot_list_batches_is_not_created_again(
    generated, tmp_path: Path, monkeypatch
) -> None:
    server, gen = generated
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    server.lose_create_replies, server.list_status = 1, 404
    args = ["--batch", "--poll-interval", "0.01"]
    with pytest.raises(SystemExit):
        _judge(server, gen, tmp_path / "out", *args)
    with pytest.raises(SystemExit, match=r"batch_\w+\.json: the batch for input file file-\d+ may"):
        _judge(server, gen, tmp_path / "out", *args)
    assert server.create_calls == 1 and server.batches_created == 1

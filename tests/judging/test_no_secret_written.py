"""A judge that echoes the request's credentials, in 200 replies and in error bodies, as sent and
base64-encoded, plants them in nothing either harness or the package writes: samples, results,
score explanations, Inspect logs (header, journal, transcripts), the judge cache, stderr."""

from __future__ import annotations

import base64
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.care import care
from inspect_culture.judging.cache import JudgeConfigError
from tests.support.harness_runs import inspect_eval_on_stub, registered_task_name, run_lm_eval
from tests.support.openai_stub import _REQUEST_HEADERS, StubOpenAIServer, care_responder

pytestmark = pytest.mark.slow

KEY = "jdg-live-Qm4xT7bV9pL2sR8wZ1cY6nHk"  # not sk- shaped: only the explicit secret finds it
USER, PASSWORD = "chaos", "Pw-9f8e7d6c5b4a"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# What must never be found, in the forms a server echoes: as sent, and base64 of the header value
# or of the Basic-auth pair.
FORBIDDEN = (
    KEY, PASSWORD, f"{USER}:{PASSWORD}", _b64(f"Bearer {KEY}"), _b64(f"{USER}:{PASSWORD}"),
    _b64(f"Basic {_b64(f'{USER}:{PASSWORD}')}"),  # the whole Basic header echoed as base64
)  # fmt: skip


def _echo(auth: str) -> str:
    return f"(debug: your Authorization header was {auth!r}, base64 {_b64(auth)})"


def echoing_judge(prompt: str, body: dict[str, Any]) -> str:
    """CARE's stub judge, plus the request's Authorization header, as sent and base64."""
    return f"{care_responder(prompt, body)}\n{_echo((_REQUEST_HEADERS.get() or {}).get('authorization', ''))}"


def echoing_fault(number: int, _: dict[str, Any]) -> dict[str, Any] | None:
    """Every third request (not the first: the preflight) fails with HTTP 500 whose body quotes
    the credentials; the retry succeeds."""
    if number % 3 != 1:
        return None
    auth = (_REQUEST_HEADERS.get() or {}).get("authorization", "")
    return {"status": 500, "body": {"error": {"message": f"upstream failed {_echo(auth)}"}}}


def _everything_written(folder: Path) -> str:
    texts = []
    for path in folder.rglob("*"):
        if path.suffix == ".eval":
            with zipfile.ZipFile(path) as archive:
                texts += [archive.read(n).decode("utf-8", "replace") for n in archive.namelist()]
        elif path.is_file():
            texts.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(texts)


def _assert_clean(text: str, where: str) -> None:
    found = [secret for secret in FORBIDDEN if secret in text]
    assert not found, f"{where}: {found}"


def _assert_nothing_written(folder: Path, cache: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """No secret in any file of the run's folder, the judge cache, stdout or stderr."""
    _assert_clean(_everything_written(folder), str(folder))
    _assert_clean(cache.read_bytes().decode("utf-8", "replace"), "judge cache")
    out, err = capfd.readouterr()
    _assert_clean(out + err, "output")


@pytest.fixture
def judge_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "judge_cache.sqlite"
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", str(path))
    return path


def test_the_echo_reaches_the_client() -> None:
    """The stub really echoes: without redaction these tests would find the secrets."""
    with _header_context(f"Bearer {KEY}"):
        reply = echoing_judge("Please serve as a judge", {})
    assert KEY in reply and _b64(f"Bearer {KEY}") in reply


class _header_context:  # the header a request being served carries
    def __init__(self, value: str) -> None:
        self.value = value

    def __enter__(self) -> None:
        self.token = _REQUEST_HEADERS.set({"authorization": self.value})

    def __exit__(self, *_: object) -> None:
        _REQUEST_HEADERS.reset(self.token)


def test_inspect_writes_no_judge_key(
    tmp_path: Path, judge_cache: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from inspect_ai.model import get_model

    with (
        StubOpenAIServer() as model_server,
        StubOpenAIServer(responder=echoing_judge, fault=echoing_fault) as judge_server,
    ):
        grader = get_model("openai-api/stub/judge", base_url=judge_server.base_url, api_key=KEY)
        log = inspect_eval_on_stub(
            care(language="zh", per_category=2), model_server, tmp_path / "logs",
            model_roles={"grader": grader},
        )  # fmt: skip
        assert any(KEY in a for a in judge_server.authorizations)
    assert log.status == "success", log.error
    explanations = [s.scores["care_judge"].explanation or "" for s in log.samples]
    assert any("[redacted]" in e for e in explanations)  # the echo arrived, redacted
    _assert_nothing_written(tmp_path / "logs", judge_cache, capfd)


def test_inspect_refuses_credentials_in_a_role_url(tmp_path: Path) -> None:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    with StubOpenAIServer() as server:
        url = server.base_url.replace("http://", f"http://{USER}:{PASSWORD}@")
        grader = get_model("openai-api/stub/judge", base_url=url)
        with pytest.raises(Exception) as raised:
            inspect_eval(  # built by Inspect, roles bound: the check comes before any log
                registered_task_name("care"), task_args={"language": "zh", "per_category": 1},
                model="openai-api/stub/stub-model",
                model_base_url=server.base_url, model_roles={"grader": grader},
                log_dir=str(tmp_path / "logs"), display="none",
            )  # fmt: skip
        assert not server.requests  # refused before any request
    message = str(raised.value)
    assert "credentials" in message and PASSWORD not in message and len(message) < 600
    assert not list((tmp_path / "logs").rglob("*.eval"))  # no log, so no header with the URL


@pytest.mark.parametrize("credentials", ["key", "url"])
def test_lm_eval_writes_no_judge_key_or_url_credentials(
    tmp_path: Path,
    judge_cache: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    credentials: str,
) -> None:
    """The key goes as a bearer token; credentials in the URL as basic auth (in its place)."""
    with (
        StubOpenAIServer() as model_server,
        StubOpenAIServer(responder=echoing_judge, fault=echoing_fault) as judge_server,
    ):
        url = judge_server.base_url
        if credentials == "url":
            url = url.replace("http://", f"http://{USER}:{PASSWORD}@")
        monkeypatch.setenv("INSPECT_CULTURE_JUDGE_BASE_URL", url)  # never written by lm-eval
        monkeypatch.setenv("INSPECT_CULTURE_JUDGE_API_KEY", KEY)
        out_dir = tmp_path / "lm_eval"
        results = run_lm_eval(
            model_server, ["care_zh"], {"judge_model": "judge", "per_category": 2},
            output_path=out_dir,
        )  # fmt: skip
        sent = set(judge_server.authorizations)
    assert sent == (
        {f"Bearer {KEY}"} if credentials == "key" else {f"Basic {_b64(f'{USER}:{PASSWORD}')}"}
    )
    texts = [
        json.loads(s["filtered_resps"][0])["judge_text"] for s in results["samples"]["care_zh"]
    ]
    assert any("[redacted]" in (t or "") for t in texts)  # the echo arrived, redacted
    assert results["results"]["care_zh"]["n_scored,judged"] > 0  # verdicts still read
    _assert_clean(json.dumps(results, default=str), "results")
    _assert_nothing_written(out_dir, judge_cache, capfd)


def test_lm_eval_refuses_credentials_in_metadata(tmp_path: Path) -> None:
    """lm-eval writes --metadata into its results file: credentials there would be written."""
    with StubOpenAIServer() as server:
        url = server.base_url.replace("http://", f"http://{USER}:{PASSWORD}@")
        with pytest.raises(JudgeConfigError) as raised:
            run_lm_eval(server, ["care_zh"], {"judge_model": "judge", "judge_base_url": url})
        assert not server.requests
    message = str(raised.value)
    assert "INSPECT_CULTURE_JUDGE_BASE_URL" in message and PASSWORD not in message

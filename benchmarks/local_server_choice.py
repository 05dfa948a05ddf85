"""Which package should serve the main job's local model? Each candidate, in one run, on this
machine: a fresh venv and an empty pip cache (`--no-cache-dir`), then the same checks the main
job needs: server ready on 127.0.0.1, a chat completion, a GBNF grammar honoured, a JSON-schema
`response_format` honoured, a clean stop (port free again). docs/local-model.md has the results.

    python benchmarks/local_server_choice.py                    # both candidates (minutes)
    python benchmarks/local_server_choice.py --only xllamacpp   # one
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALIAS = "smollm2-135m"
GRAMMAR = 'root ::= "Rating: [[" [1-9] "]]"'
SCHEMA = {
    "type": "object",
    "properties": {"answer": {"enum": ["yes", "no"]}},
    "required": ["answer"],
}
# the server of each candidate, started by the candidate venv's python: MODEL and PORT filled in
XLLAMACPP_DRIVER = """
import sys, xllamacpp
p = xllamacpp.CommonParams()
p.model.path, p.model_alias, p.hostnames, p.port = sys.argv[1], {sys.argv[3]}, ["127.0.0.1"], int(sys.argv[2])
p.n_ctx, p.n_parallel, p.verbosity = 4096, 1, 0
server = xllamacpp.Server(p)
sys.stdin.read()  # until the parent closes stdin
"""


@dataclass
class Candidate:
    name: str
    install: list[str]  # pip arguments
    env: dict[str, str]
    command: list[str]  # after the venv's python; {model} and {port} filled in


CANDIDATES = [
    Candidate(
        "xllamacpp",
        ["xllamacpp==2026.10.11549"],
        {},
        ["-c", XLLAMACPP_DRIVER, "{model}", "{port}", ALIAS],
    ),
    Candidate(
        "llama-cpp-python (source build)",
        ["llama-cpp-python[server]==0.3.36"],
        # the portable flags the project used before (the native build crashed here)
        {
            "CMAKE_ARGS": "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON "
            "-DGGML_F16C=ON -DLLAVA_BUILD=OFF"
        },
        [
            "-m",
            "llama_cpp.server",
            "--model",
            "{model}",
            "--model_alias",
            ALIAS,
            "--host",
            "127.0.0.1",
            "--port",
            "{port}",
            "--n_ctx",
            "4096",
            "--verbose",
            "False",
        ],
    ),  # fmt: skip
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def post(port: int, body: dict) -> str:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/chat/completions",
        data=json.dumps({"model": ALIAS, "temperature": 0, **body}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.load(response)["choices"][0]["message"]["content"]


def checks(port: int, result: dict) -> None:
    """A warm-up, then a timed chat completion, a grammar and a JSON schema."""
    post(port, {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4})
    started = time.monotonic()
    text = post(port, {"messages": [{"role": "user", "content": "Tell me about tea."}],
                       "max_tokens": 64})  # fmt: skip
    result["chat_64_tokens_s"] = round(time.monotonic() - started, 2)
    result["chat_reply_chars"] = len(text)
    for name, extra, valid in (
        ("grammar_honoured", {"grammar": GRAMMAR}, _rating),
        ("json_schema_honoured", {"response_format": {"type": "json_schema",
         "json_schema": {"name": "v", "schema": SCHEMA}}}, _yes_no),
    ):  # fmt: skip
        try:
            reply = post(port, {"messages": [{"role": "user", "content": "Rate it: yes or no?"}],
                                "max_tokens": 32, **extra})  # fmt: skip
            result[name] = valid(reply)
        except OSError as exc:
            result[name] = f"refused ({exc})"


def _rating(reply: str) -> bool:
    return re.fullmatch(r"Rating: \[\[[1-9]\]\]", reply) is not None


def _yes_no(reply: str) -> bool:
    try:
        return json.loads(reply).get("answer") in ("yes", "no")
    except ValueError:
        return False


def measure(candidate: Candidate, model: Path, work: Path) -> dict:
    venv = work / re.sub(r"\W+", "-", candidate.name)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    started = time.monotonic()
    env = {**os.environ, **candidate.env}
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-cache-dir", *candidate.install],
        check=True,
        env=env,
    )
    result = {"candidate": candidate.name, "install_s": round(time.monotonic() - started, 1)}
    port = free_port()
    args = [
        a.replace("{model}", str(model)).replace("{port}", str(port)) for a in candidate.command
    ]
    started = time.monotonic()
    process = subprocess.Popen(
        [python, *args], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() - started > 300:
                raise RuntimeError(
                    f"{candidate.name}: {process.stderr.read().decode()[-800:]}"
                ) from None
            time.sleep(0.1)
    result["ready_s"] = round(time.monotonic() - started, 2)
    try:
        checks(port, result)
    except OSError as exc:  # a server error is a result, not the end of the run
        result["error"] = f"{type(exc).__name__}: {exc}"
    started = time.monotonic()
    process.stdin.close()  # the xllamacpp driver returns; llama_cpp.server needs a signal
    process.terminate()
    process.wait(timeout=30)
    result["stop_s"] = round(time.monotonic() - started, 2)
    with socket.socket() as sock:
        result["port_free_after_stop"] = sock.connect_ex(("127.0.0.1", port)) != 0
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=[c.name.split()[0] for c in CANDIDATES])
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from inspect_culture.local_model.server import smollm2_gguf

    model = smollm2_gguf()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for candidate in CANDIDATES:
            if args.only in (None, candidate.name.split()[0]):
                print(f"{candidate.name}: installing into a fresh venv ...", flush=True)
                rows.append(measure(candidate, model, Path(work)))
                print(json.dumps(rows[-1]), flush=True)
    keys = list(rows[0])
    print("\n| " + " | ".join(keys) + " |\n|" + "---|" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |")


if __name__ == "__main__":
    main()

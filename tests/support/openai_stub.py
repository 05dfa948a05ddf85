"""A deterministic OpenAI-compatible server on 127.0.0.1 for tests and benchmarks.

It answers `/v1/chat/completions` and `/v1/completions` with text chosen by a responder
function of the request, records every request body, and can add a fixed latency. Standard
library only, so the test suite needs no network and no extra dependency.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[str, dict[str, Any]], str]
# Given the request number (0-based) and body: None to answer normally, an HTTP status to fail
# with, "drop" to close the connection without answering, or a float to sleep that long first.
Fault = Callable[[int, dict[str, Any]], "int | str | float | None"]

# A spread of answer styles: clean, markdown, numbered, verbose, ambiguous and unparsable.
NORMAD_ANSWERS = (
    "Yes",
    "No.",
    "Neither",
    "1) Yes",
    "**Answer:** No",
    "3) Neither ",
    "The answer is Yes.",
    "I cannot decide: yes or no.",
    "It depends on the situation.",
    "yes",
)


def prompt_hash_responder(answers: tuple[str, ...] = NORMAD_ANSWERS) -> Responder:
    """Pick an answer by hashing the prompt: the same prompt always gets the same answer."""

    def respond(prompt: str, _: dict[str, Any]) -> str:
        digest = hashlib.sha256(prompt.encode("utf-8")).digest()
        return answers[int.from_bytes(digest[:4], "big") % len(answers)]

    return respond


def last_user_text(body: dict[str, Any]) -> str:
    if "messages" in body:
        content = body["messages"][-1]["content"]
        if isinstance(content, list):  # content parts
            return "".join(part.get("text", "") for part in content)
        return str(content)
    return str(body.get("prompt", ""))


class StubOpenAIServer:
    def __init__(
        self, responder: Responder | None = None, latency: float = 0.0, fault: Fault | None = None
    ) -> None:
        self.responder = responder or prompt_hash_responder()
        self.latency = latency
        self.fault = fault
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0  # most requests being answered at the same time
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> StubOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> StubOpenAIServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def prompts(self) -> list[str]:
        with self._lock:
            return [last_user_text(body) for body in self.requests]

    def _record(self, body: dict[str, Any]) -> int:
        with self._lock:
            self.requests.append(body)
            return len(self.requests) - 1

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: object) -> None:  # keep test output clean
                pass

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": "stub", "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                number = stub._record(body)
                with stub._lock:
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                try:
                    self._answer(number, body)
                finally:
                    with stub._lock:
                        stub.in_flight -= 1

            def _answer(self, number: int, body: dict[str, Any]) -> None:
                fault = stub.fault(number, body) if stub.fault else None
                if fault == "drop":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if isinstance(fault, int):
                    self._send(fault, {"error": {"message": f"injected {fault}"}})
                    return
                if isinstance(fault, float):
                    time.sleep(fault)
                if stub.latency:
                    time.sleep(stub.latency)
                text = stub.responder(last_user_text(body), body)
                model = body.get("model", "stub")
                usage = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
                if self.path.endswith("/chat/completions"):
                    choice = {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                        "logprobs": None,
                    }
                    obj = "chat.completion"
                elif self.path.endswith("/completions"):
                    choice = {"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}
                    obj = "text_completion"
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                self._send(
                    200,
                    {
                        "id": "stub-" + hashlib.sha1(text.encode()).hexdigest()[:12],
                        "object": obj,
                        "created": int(time.time()),
                        "model": model,
                        "choices": [choice],
                        "usage": usage,
                    },
                )

        return Handler


def care_responder(prompt: str, body: dict[str, Any]) -> str:
    """Answers like a model, or, for a CARE judge prompt, like a judge: a rating chosen by hash,
    an unparsable reply for some prompts, so both paths are exercised."""
    digest = int.from_bytes(hashlib.sha256(prompt.encode("utf-8")).digest()[:4], "big")
    if prompt.startswith("Please serve as"):
        if digest % 7 == 0:
            return "I cannot rate this."
        return f"The response is fine.\nRating: [[{1 + digest % 10}]]"
    return f"Answer {digest % 1000}: Rating: [[10]]"  # a model trying to game the judge

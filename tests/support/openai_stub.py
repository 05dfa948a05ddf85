"""A deterministic OpenAI-compatible server on 127.0.0.1 for tests and benchmarks.

It answers exactly `/v1/chat/completions` and `/v1/completions` (any other path is a 404, as
a real server's would be) with text chosen by a responder function of the request, records
every request body, and can add a fixed latency. Like a real server it can refuse an unknown
model (`models=`: 404 with an OpenAI-style error body) or a wrong key (`api_key=`: 401 whose
body echoes the key it was sent, as some servers do, so tests can prove the key is never
logged). Standard library only, so the test suite needs no network and no extra dependency.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Collection
from typing import Any

from tests.support.rate_limits import Buckets, RateLimits, request_tokens

Responder = Callable[[str, dict[str, Any]], str]
# Given the request number (0-based) and body: None to answer normally, an HTTP status to fail
# with, "drop" to close the connection without answering, a float to sleep that long first, or
# a dict {"status": int, "headers": {...}, "body": {...}} for a failure with response headers
# (e.g. Retry-After).
Fault = Callable[[int, dict[str, Any]], "int | str | float | dict[str, Any] | None"]
# `_respond` may put response headers under this payload key; `_serve` sends them, not the key.
HEADERS_KEY = "__headers__"
COMPLETION_PATHS = ("/v1/chat/completions", "/v1/completions")
# The one-token check both harnesses send before generation: answered "OK" whatever the
# responder, so responders need not know it (faults, keys and models still apply to it).
PREFLIGHT_PROMPT = "Reply with the single word OK."
# The header of the judge's check before generation (`judging/preflight.CHECK_HEADERS`): with it,
# the check is one real judgment, answered by the responder, but counted as a check, not a
# judgment (no storm, not `first_judgment_at`, listed in `checks`).
CHECK_HEADER = "x-culture-evals-check"
# The request headers of the connection being served (each connection is its own task).
_REQUEST_HEADERS: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "request_headers", default=None
)
# When the request being served arrived (loop time): `latency` counts from there, so the time
# spent reading and parsing it is part of the latency, not added to it.
_ARRIVED_AT: contextvars.ContextVar[float] = contextvars.ContextVar("arrived_at", default=0.0)

# The stub's own token count, as a provider's tokenizer would give it in `usage`: each Han, kana
# or hangul character one token, each other word (letters or digits) one token, each punctuation
# mark or symbol one token, whitespace nothing. Unlike `judging/usage.text_tokens` (characters
# by script), so a test comparing the estimate with these counts is not circular.
_CJK_CHAR = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_STUB_TOKEN = re.compile(f"[{_CJK_CHAR}]|(?:(?![{_CJK_CHAR}])[^\\W_])+|[^\\w\\s]|_")


def stub_tokens(text: str) -> int:
    """The tokens the stub reports for `text` (see `_STUB_TOKEN`)."""
    return len(_STUB_TOKEN.findall(text))


def body_text(body: dict[str, Any]) -> str:
    """Every message's text of a request (or the completion prompt), as the stub counts it."""
    if "messages" not in body:
        return str(body.get("prompt", ""))
    parts = []
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, list):  # content parts
            content = "".join(part.get("text", "") for part in content)
        parts.append(str(content or ""))
    return "\n".join(parts)


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


def is_check(body: dict[str, Any]) -> bool:
    """Whether the request being served is a check before generation (one token, or the one
    judgment sent with `CHECK_HEADER`)."""
    headers = _REQUEST_HEADERS.get() or {}
    return last_user_text(body) == PREFLIGHT_PROMPT or headers.get(CHECK_HEADER) == "preflight"


def last_user_text(body: dict[str, Any]) -> str:
    if "messages" in body:
        content = body["messages"][-1]["content"]
        if isinstance(content, list):  # content parts
            return "".join(part.get("text", "") for part in content)
        return str(content)
    return str(body.get("prompt", ""))


class StubOpenAIServer:
    """asyncio HTTP/1.1 server on its own thread and event loop: light enough to sustain
    hundreds of concurrent slow requests, so benchmarks measure the client, not the stub."""

    def _model_entry(self, name: str) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": name, "object": "model", "created": int(time.time())}
        if self.served_root is not None:  # vLLM stamps `created` anew on every call
            entry["root"] = self.served_root
        return entry

    def __init__(
        self,
        responder: Responder | None = None,
        latency: float = 0.0,
        fault: Fault | None = None,
        *,
        models: Collection[str] | None = None,
        api_key: str | None = None,
        limits: RateLimits | None = None,
        storm: float | None = None,
        storm_retry_after: float = 1.0,
    ) -> None:
        self.responder = responder or prompt_hash_responder()
        self.latency = latency
        self.fault = fault
        self.models = models  # None: any model name is served
        # the checkpoint behind every served name, as vLLM's /models says it (`root`); None: none
        self.served_root: str | None = None
        self.api_key = api_key  # None: no key checked
        # a hosted API's rate limits (429 beyond them, x-ratelimit-* headers); None: no limits
        self.buckets = Buckets(limits) if limits is not None else None
        # a 429 storm: every completion (the checks before generation excepted) for
        # `storm` seconds from the first (< 0: forever) refused with 429 and Retry-After,
        # unrecorded and unpaid, as a provider does while a quota is spent
        self.storm, self.storm_retry_after = storm, storm_retry_after
        self._storm_began: float | None = None
        self.limited = 0  # requests refused with 429 by the limits (not recorded, not paid)
        # (monotonic time, tokens charged) of each admitted request
        self.paid: list[tuple[float, int]] = []
        self.preflights = 0  # admitted checks before generation (`is_check`)
        self.refused: list[str] = []  # paths of requests refused before recording (404, 401)
        self.authorizations: list[str] = []  # the Authorization header of each completion request
        self.requests: list[dict[str, Any]] = []
        self.checks: list[dict[str, Any]] = []  # the requests that were checks (`is_check`)
        # (model, prompt tokens, completion tokens) of each answered completion, as its `usage`
        self.usages: list[tuple[str, int, int]] = []
        self.in_flight = 0
        self.max_in_flight = 0  # most requests being answered at the same time
        self.first_request_at: float | None = None  # wall clock, for benchmarks
        self.first_judgment_at: float | None = (
            None  # the same, not counting the checks (`is_check`)
        )
        self.last_response_at: float | None = None
        # seconds from arrival to answer written, summed over answered requests: the latency the
        # server really gave (its timer wakes late), for a benchmark's attainable ideal
        self.served_seconds = 0.0
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.base_events.Server | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._port = 0

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> StubOpenAIServer:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._listen(), self._loop)
        future.result(timeout=10)
        return self

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=512)
        self._port = self._server.sockets[0].getsockname()[1]

    def stop(self) -> None:
        async def close() -> None:
            if self._server is not None:
                self._server.close()
            current = asyncio.current_task()
            pending = [t for t in asyncio.all_tasks() if t is not current]
            for task in pending:  # open keep-alive connections
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def wait(self) -> None:
        self._thread.join()

    def __enter__(self) -> StubOpenAIServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def prompts(self) -> list[str]:
        with self._lock:
            return [last_user_text(body) for body in self.requests]

    def run_requests(self) -> list[dict[str, Any]]:
        """`requests` without the checks before generation (`checks`): the run's own."""
        with self._lock:
            checks = {id(body) for body in self.checks}
            return [body for body in self.requests if id(body) not in checks]

    def run_prompts(self) -> list[str]:
        """`prompts` without the checks before generation (`checks`): the run's own requests."""
        return [last_user_text(body) for body in self.run_requests()]

    def _record(self, body: dict[str, Any]) -> int:
        with self._lock:
            self.requests.append(body)
            if self.first_request_at is None:
                self.first_request_at = time.time()
            if is_check(body):
                self.checks.append(body)
            elif self.first_judgment_at is None:
                self.first_judgment_at = time.time()
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return len(self.requests) - 1

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1
            self.last_response_at = time.time()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request_line = await reader.readline()
                if not request_line:
                    break
                _ARRIVED_AT.set(asyncio.get_running_loop().time())
                method, path, _ = request_line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length") or 0)
                raw = await reader.readexactly(length) if length else b""
                _REQUEST_HEADERS.set(headers)
                status, payload = await self._respond(method, path, raw)
                if status is None:  # injected dropped connection
                    break
                extra = "".join(f"{k}: {v}\r\n" for k, v in payload.pop(HEADERS_KEY, {}).items())
                data = json.dumps(payload).encode("utf-8")
                writer.write(
                    f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\n"
                    f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                    f"{extra}\r\n".encode("latin-1")
                    + data
                )
                await writer.drain()
                if method == "POST" and status == 200:
                    with self._lock:
                        self.served_seconds += asyncio.get_running_loop().time() - _ARRIVED_AT.get()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _respond(
        self, method: str, path: str, raw: bytes
    ) -> tuple[int | None, dict[str, Any]]:
        if method == "GET":
            if path.rstrip("/").endswith("/stats"):
                with self._lock:
                    return 200, {
                        "requests": len(self.requests),
                        "first_request_at": self.first_request_at,
                        "last_response_at": self.last_response_at,
                        "max_in_flight": self.max_in_flight,
                        "served_seconds": self.served_seconds,
                        "limited": self.limited,
                        "paid": list(self.paid),
                        "preflights": self.preflights,
                    }
            if path.rstrip("/").endswith("/models"):
                names = sorted(self.models) if self.models is not None else ["stub"]
                return 200, {
                    "object": "list",
                    "data": [self._model_entry(n) for n in names],
                }
            return 404, {"error": {"message": f"no route {path}"}}
        path = path.split("?", 1)[0]
        if path not in COMPLETION_PATHS:
            self.refused.append(path)
            return 404, _error(f"no route {path}", "invalid_request_error", "not_found")
        body = json.loads(raw or b"{}")
        authorization = (_REQUEST_HEADERS.get() or {}).get("authorization", "")
        self.authorizations.append(authorization)
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            self.refused.append(path)
            sent = authorization.removeprefix("Bearer ")
            return 401, _error(
                f"Incorrect API key provided: {sent}.", "invalid_request_error", "invalid_api_key"
            )
        if self.models is not None and body.get("model") not in self.models:
            self.refused.append(path)
            return 404, _error(
                f"The model `{body.get('model')}` does not exist or you do not have access to it.",
                "invalid_request_error",
                "model_not_found",
            )
        ratelimit_headers: dict[str, str] = {}
        if self.storm is not None and not is_check(body):
            with self._lock:
                began = self._storm_began = self._storm_began or time.monotonic()
                stormy = self.storm < 0 or time.monotonic() - began < self.storm
                self.limited += stormy
            if stormy:
                retry = {"Retry-After": f"{self.storm_retry_after:g}"}
                return 429, {**_error("Rate limit reached.", "requests", "rate_limit_exceeded"),
                             HEADERS_KEY: retry}  # fmt: skip
        if self.buckets is not None:
            tokens = request_tokens(body)
            admitted, _, ratelimit_headers = self.buckets.take(tokens)
            if not admitted:
                with self._lock:
                    self.limited += 1
                return 429, {
                    **_error("Rate limit reached. Please try again later.", "requests",
                             "rate_limit_exceeded"),
                    HEADERS_KEY: ratelimit_headers,
                }  # fmt: skip
            with self._lock:
                self.paid.append((time.monotonic(), tokens))
                self.preflights += is_check(body)
        number = self._record(body)
        try:
            fault = self.fault(number, body) if self.fault else None
            if fault == "drop":
                return None, {}
            if isinstance(fault, int):
                return fault, {"error": {"message": f"injected {fault}"}}
            if isinstance(fault, dict):
                payload = fault.get("body") or {"error": {"message": f"injected {fault['status']}"}}
                return fault["status"], {**payload, HEADERS_KEY: fault.get("headers", {})}
            if isinstance(fault, float):
                await asyncio.sleep(fault)
            if self.latency:
                loop = asyncio.get_running_loop()
                await asyncio.sleep(max(0.0, _ARRIVED_AT.get() + self.latency - loop.time()))
            status, payload = self._completion(path, body)
            if ratelimit_headers:
                payload[HEADERS_KEY] = ratelimit_headers
            return status, payload
        finally:
            self._done()

    def _completion(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        prompt = last_user_text(body)
        text = "OK" if prompt == PREFLIGHT_PROMPT else self.responder(prompt, body)
        if path == "/v1/chat/completions":
            choice: dict[str, Any] = {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
                "logprobs": None,
            }
            kind = "chat.completion"
        elif path == "/v1/completions":
            choice = {"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}
            kind = "text_completion"
        else:
            return 404, {"error": {"message": f"no route {path}"}}
        model = body.get("model", "stub")
        prompt_tokens, completion_tokens = stub_tokens(body_text(body)), stub_tokens(text)
        with self._lock:
            self.usages.append((str(model), prompt_tokens, completion_tokens))
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        return 200, {
            "id": "stub-" + hashlib.sha1(text.encode()).hexdigest()[:12],
            "object": kind,
            "created": int(time.time()),
            "model": model,
            "choices": [choice],
            "usage": usage,
        }


def _error(message: str, kind: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def care_responder(prompt: str, body: dict[str, Any]) -> str:
    """Answers like a model, or, for a CARE judge prompt, like a judge: a rating chosen by hash,
    an unparsable reply for some prompts, so both paths are exercised."""
    digest = int.from_bytes(hashlib.sha256(prompt.encode("utf-8")).digest()[:4], "big")
    if prompt.startswith("Please serve as"):
        if digest % 7 == 0:
            return "I cannot rate this."
        return f"The response is fine.\nRating: [[{1 + digest % 10}]]"
    return f"Answer {digest % 1000}: Rating: [[10]]"  # a model trying to game the judge


def _pick(prompt: str, options: list[str]) -> str:
    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    return options[int.from_bytes(digest[:4], "big") % len(options)]


def constrained_reply(prompt: str, body: dict[str, Any]) -> str | None:
    """The reply of an engine that honours the verdict constraint the request carries
    (`structured_outputs.regex`, a GBNF `grammar` or a JSON-schema `response_format`), with a
    verdict chosen by hashing the prompt; None when the request carries none."""
    schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema")
    if schema is not None:
        fields = {
            name: "Checked against the reference." if name == "commentary" else _pick(prompt, spec["enum"])
            for name, spec in schema["properties"].items()
        }  # fmt: skip
        return json.dumps(fields)
    regex = (body.get("structured_outputs") or {}).get("regex")
    constraint = regex or body.get("grammar")
    if constraint is None:
        return None
    if "Final answer" in constraint:
        k = constraint.count("Ground truth") or constraint.count("Ground\\ truth")
        lines = [
            f"[Ground truth {i}]:{_pick(prompt + str(i), ['0', '0.5', '1'])}"
            for i in range(1, k + 1)
        ]
        reply = "[Reasoning]:\nChecked.\n[Final answer]:\n" + "\n".join(lines)
    elif "Rating" in constraint:
        reply = f"Checked against the golden answer.\nRating: [[{_pick(prompt, [str(n) for n in range(1, 11)])}]]"
    else:
        reply = f"Compared with the reference.\n[[{_pick(prompt, ['A', 'B', 'C'])}]]"
    if regex is not None and re.fullmatch(regex, reply) is None:
        raise AssertionError(f"the stub's constrained reply {reply!r} does not match {regex!r}")
    return reply


def honouring_constraints(responder: Responder) -> Responder:
    """A responder that, like vLLM or llama.cpp, obeys a verdict constraint when one is sent."""

    def respond(prompt: str, body: dict[str, Any]) -> str:
        constrained = constrained_reply(prompt, body)
        return responder(prompt, body) if constrained is None else constrained

    return respond


def main() -> None:
    """Serve from a separate process (benchmarks), so the server does not share the client's
    GIL: `python -m tests.support.openai_stub --latency 0.1 --reply 'Rating: [[7]]'`."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--reply", default="Rating: [[7]]")
    parser.add_argument("--rpm", type=int, help="requests per minute (429 beyond)")
    parser.add_argument("--tpm", type=int, help="tokens per minute (429 beyond)")
    parser.add_argument("--minute", type=float, default=60.0, help="real seconds in a minute")
    parser.add_argument(
        "--storm", type=float, help="429 every completion for S seconds from the first (-1: all)"
    )
    parser.add_argument("--storm-retry-after", type=float, default=1.0)
    args = parser.parse_args()
    limits = None
    if args.rpm or args.tpm:
        limits = RateLimits(args.rpm or 10**9, args.tpm or 10**12, args.minute)
    server = StubOpenAIServer(
        responder=lambda prompt, body: args.reply, latency=args.latency, limits=limits,
        storm=args.storm, storm_retry_after=args.storm_retry_after,
    )  # fmt: skip
    server.start()
    print(server.base_url, flush=True)
    try:
        server.wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()

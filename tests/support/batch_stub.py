"""The stub OpenAI server with the Batch API: `/v1/files` (multipart upload, content download)
and `/v1/batches` (create, list, retrieve, cancel), for testing `culture-evals judge --batch`
offline.

A batch moves validating -> in_progress -> completed over polls; on completing, each request
line is answered by the parent's responder (and recorded as a request, like a live call). With
`expire_half`, the first batches end `expired` with only the first half of their lines done.
Standard library only.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from typing import Any

from tests.support.openai_stub import StubOpenAIServer

RAW = "__raw_text__"  # a payload holding a file's bytes, sent as they are (not as JSON)


class _RawWriter:
    """Sends a `{RAW: text}` payload as plain text: the parent server writes only JSON."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    def write(self, data: bytes) -> None:
        head, _, body = data.partition(b"\r\n\r\n")
        if body.startswith(b'{"' + RAW.encode()):
            text = json.loads(body)[RAW].encode("utf-8")
            status = head.split(b"\r\n", 1)[0]
            head = status + b"\r\nContent-Type: text/plain\r\nContent-Length: %d" % len(text)
            body = text
        self._writer.write(head + b"\r\n\r\n" + body)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._writer, name)


def parse_multipart(raw: bytes) -> dict[str, bytes]:
    """Form fields of a multipart/form-data body; the boundary is its first line."""
    delimiter = raw.split(b"\r\n", 1)[0]
    fields: dict[str, bytes] = {}
    for part in raw.split(delimiter)[1:]:
        if part.startswith(b"--"):
            break
        head, _, content = part.strip(b"\r\n").partition(b"\r\n\r\n")
        for item in head.decode("latin-1").split(";"):
            name, _, value = item.strip().partition("=")
            if name == "name":
                fields[value.strip('"')] = content
    return fields


class BatchStubServer(StubOpenAIServer):
    def __init__(
        self,
        *args: Any,
        polls_per_state: int = 1,
        expire_half: int = 0,
        fail_batches: int = 0,
        line_fault: Callable[[dict[str, Any]], int | None] | None = None,
        lose_create_replies: int = 0,
        **kw: Any,
    ) -> None:
        super().__init__(*args, **kw)
        # how many of the first batch creations succeed here but lose their reply (a dropped
        # connection): the client cannot know the batch exists
        self.lose_create_replies = lose_create_replies
        # an HTTP status to refuse every upload with, its message quoting the key as OpenAI's
        # 401 does (the client must not repeat it)
        self.upload_status: int | None = None
        self.upload_message = ""
        self.list_status: int | None = None  # an HTTP status to refuse `GET /v1/batches` with
        self.create_calls = 0
        self.fail_batches = fail_batches  # how many of the first batches fail validation
        self.line_fault = line_fault  # an HTTP status to answer a request line with, or None
        self.polls_per_state = polls_per_state  # retrieves before each state change
        self.expire_half = expire_half  # how many of the first batches expire half done
        self.files: dict[str, dict[str, Any]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_polls = 0
        self._ids = itertools.count(1)

    @property
    def batches_created(self) -> int:
        return len(self.batches)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await super()._serve(reader, _RawWriter(writer))  # type: ignore[arg-type]

    def _new_file(self, content: bytes, purpose: str, filename: str) -> dict[str, Any]:
        file_id = f"file-{next(self._ids)}"
        record = {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
        }
        self.files[file_id] = {"record": record, "content": content}
        return record

    async def _respond(
        self, method: str, path: str, raw: bytes
    ) -> tuple[int | None, dict[str, Any]]:
        parts = path.split("?", 1)[0].strip("/").split("/")  # ["v1", "files", ...]
        if parts[1:2] == ["files"]:
            return self._files(method, parts[2:], raw)
        if parts[1:2] == ["batches"]:
            return self._batches(method, parts[2:], raw)
        return await super()._respond(method, path, raw)

    def _files(self, method: str, rest: list[str], raw: bytes) -> tuple[int, dict[str, Any]]:
        if method == "POST" and not rest:
            if self.upload_status is not None:
                return self.upload_status, {"error": {"message": self.upload_message}}
            fields = parse_multipart(raw)
            if "file" not in fields or fields.get("purpose") != b"batch":
                return 400, {"error": {"message": "need a file and purpose=batch"}}
            return 200, self._new_file(fields["file"], "batch", "input.jsonl")
        found = self.files.get(rest[0]) if rest else None
        if found is None:
            return 404, {"error": {"message": f"no file {rest}"}}
        if rest[1:] == ["content"]:
            return 200, {RAW: found["content"].decode("utf-8")}
        return 200, found["record"]

    def _batches(
        self, method: str, rest: list[str], raw: bytes
    ) -> tuple[int | None, dict[str, Any]]:
        if method == "GET" and not rest:  # list, newest first, as the API does
            if self.list_status is not None:
                return self.list_status, {"error": {"message": "stub: no batch listing"}}
            newest = sorted(self.batches, key=lambda b: int(b.split("_")[1]), reverse=True)
            data = [self._public(b) for b in newest]
            return 200, {"object": "list", "data": data, "has_more": False}
        if method == "POST" and not rest:
            self.create_calls += 1
            body = json.loads(raw)
            if body.get("input_file_id") not in self.files:
                return 400, {"error": {"message": "unknown input_file_id"}}
            batch_id = f"batch_{next(self._ids)}"
            self.batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "endpoint": body["endpoint"],
                "completion_window": body["completion_window"],
                "input_file_id": body["input_file_id"],
                "status": "validating",
                "created_at": int(time.time()),
                "output_file_id": None,
                "error_file_id": None,
                "errors": None,
                "request_counts": {"total": 0, "completed": 0, "failed": 0},
                "_polls": 0,
                "_expire": len(self.batches) < self.expire_half,
                "_fail": len(self.batches) < self.fail_batches,
            }
            if self.create_calls <= self.lose_create_replies:
                return None, {}  # created, and the reply is lost
            return 200, self._public(batch_id)
        batch = self.batches.get(rest[0]) if rest else None
        if batch is None:
            return 404, {"error": {"message": f"no batch {rest}"}}
        if method == "POST" and rest[1:] == ["cancel"]:
            batch["status"] = "cancelled"
            return 200, self._public(rest[0])
        self.batch_polls += 1
        batch["_polls"] += 1
        running = batch["status"] in ("validating", "in_progress")
        if running and batch["_polls"] >= self.polls_per_state:
            batch["_polls"] = 0
            if batch["status"] == "validating":
                batch["status"] = "in_progress"
            else:
                self._run(batch)
        return 200, self._public(rest[0])

    def _public(self, batch_id: str) -> dict[str, Any]:
        return {k: v for k, v in self.batches[batch_id].items() if not k.startswith("_")}

    def _run(self, batch: dict[str, Any]) -> None:
        """Answer the batch's lines with the responder; half of them when it expires."""
        lines = [json.loads(x) for x in self.files[batch["input_file_id"]]["content"].splitlines()]
        if batch["_fail"]:
            batch["status"] = "failed"
            batch["errors"] = {
                "object": "list",
                "data": [{"code": "invalid_request", "message": "stub: the input is invalid"}],
            }
            return
        done = lines[: len(lines) // 2] if batch["_expire"] else lines
        output, errors = [], []
        for line in done:
            if self.line_fault and (status := self.line_fault(line["body"])):
                errors.append(
                    {
                        "id": f"req_{next(self._ids)}",
                        "custom_id": line["custom_id"],
                        "response": {
                            "status_code": status,
                            "request_id": "r",
                            "body": {"error": {"message": f"stub: injected {status}"}},
                        },
                        "error": None,
                    }
                )
                continue
            self._record(line["body"])
            try:
                status, body = self._completion(line["url"], line["body"])
            finally:
                self._done()
            output.append(
                {
                    "id": f"req_{next(self._ids)}",
                    "custom_id": line["custom_id"],
                    "response": {"status_code": status, "request_id": "r", "body": body},
                    "error": None,
                }
            )
        for line in lines[len(done) :]:
            errors.append(
                {
                    "id": f"req_{next(self._ids)}",
                    "custom_id": line["custom_id"],
                    "response": None,
                    "error": {"code": "batch_expired", "message": "This request expired."},
                }
            )
        for name, rows in (("output_file_id", output), ("error_file_id", errors)):
            if rows:
                text = "".join(json.dumps(r) + "\n" for r in rows).encode("utf-8")
                batch[name] = self._new_file(text, "batch_output", f"{name}.jsonl")["id"]
        batch["status"] = "expired" if batch["_expire"] else "completed"
        batch["request_counts"] = {
            "total": len(lines),
            "completed": len(output),
            "failed": len(errors),
        }

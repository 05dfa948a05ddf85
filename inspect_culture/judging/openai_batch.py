"""The OpenAI Batch API judge (half the price of live calls, answers within 24 h): batch ids are
saved before any wait, so a rerun polls the same batch, never pays twice; leftovers get rounds."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai
from tqdm import tqdm

from inspect_culture.datasets_hub.hashing import sha256_text
from inspect_culture.judging.cache import JudgeCache, open_cache
from inspect_culture.judging.constraints import VerdictFormat
from inspect_culture.judging.http_client import (
    cache_key,
    readable,
    request_body,
    served_identity,
    verdict_formats,
)
from inspect_culture.judging.options import JudgeSettings
from inspect_culture.judging.protocol import JudgeReply
from inspect_culture.judging.reasons import RETRY_STATUS, classify, first_line
from inspect_culture.judging.redaction import redact
from inspect_culture.judging.usage import TokenUsage, usage_of

ENDPOINT = "/v1/chat/completions"
TERMINAL = ("completed", "failed", "expired", "cancelled")
RETRY_STATUSES = ("expired", "cancelled")  # a new batch may answer what these left undone
MAX_REQUESTS = 50_000  # the Batch API's limits per input file: larger sets are split
MAX_BYTES = 200_000_000  # 200 MB, read as decimal megabytes (the stricter reading)


class JudgeLaterError(ValueError):
    """The one error `culture-evals judge` stops with: unusable input (output folder, samples
    file, options, batch state) for judging saved generations; its message names the file, line
    or option."""


@dataclass(frozen=True)
class BatchOptions:
    state_dir: Path  # where the batch ids are kept (in the output folder)
    poll_interval: float = 30.0  # seconds between `batches.retrieve`
    max_rounds: int = 3  # batches per request set: the first and at most two for remainders
    completion_window: str = "24h"


def api_failure(exc: openai.OpenAIError, settings: JudgeSettings) -> str:
    """A Batch API error in one line: the host, the status and the server's words, no key."""
    what = classify(exc).what.partition(":")[0]  # the words every judge failure is said in
    detail = first_line(str(getattr(exc, "message", "") or exc), settings.secrets())
    words = f": {detail}" if detail else ""
    return (
        f"the Batch API at {settings.endpoint()} failed ({what}{words}); nothing paid for is "
        "lost: the batch ids are saved, so running the same command again resumes"
    )


def split_requests(
    keys: Sequence[str], bodies: Mapping[str, dict[str, Any]]
) -> list[tuple[list[str], bytes]]:
    """Batch input files within the API's limits per file, checked before any upload."""
    parts: list[tuple[list[str], bytearray]] = [([], bytearray())]
    for key in keys:
        request = {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": bodies[key]}
        line = (json.dumps(request, ensure_ascii=False) + "\n").encode("utf-8")
        if len(line) > MAX_BYTES:
            raise JudgeLaterError(
                f"one judge request is {len(line) / 1e6:.1f} MB, more than the Batch API's "
                f"{MAX_BYTES / 1e6:.1f} MB per input file; judge without --batch"
            )
        if len(parts[-1][0]) >= MAX_REQUESTS or len(parts[-1][1]) + len(line) > MAX_BYTES:
            parts.append(([], bytearray()))
        parts[-1][0].append(key)
        parts[-1][1].extend(line)
    return [(part, bytes(content)) for part, content in parts if part]


@dataclass
class _Outcome:
    text: str | None = None
    error: str = "not answered by the batch"
    retry: bool = True
    usage: TokenUsage | None = None  # the reply body's, as the provider counted it


Entry = dict[str, Any]  # one batch in the state file: ids, keys, status
State = dict[str, Any]  # {"rounds": [Entry, ...]}
Outcomes = dict[str, _Outcome]  # cache key -> what the batches answered


@dataclass(eq=False)
class BatchJudge:
    """A `use_judge_backend` backend: `BatchJudge(options)(settings, messages, formats)`."""

    options: BatchOptions
    log: list[Entry] = field(default_factory=list)  # the batches, for the results file
    cache: JudgeCache | None = field(default_factory=open_cache, init=False)
    _identity: str | None = field(default=None, init=False)  # the checkpoint served, when known
    _secrets: tuple[str, ...] = field(default=(), init=False)  # of the judge being called

    def __call__(
        self,
        settings: JudgeSettings,
        messages: list[list[dict[str, str]]],
        formats: list[VerdictFormat] | None,
    ) -> list[JudgeReply]:
        fmts = verdict_formats(settings, len(messages), formats)
        keys = [cache_key(settings, m) for m in messages]
        judge = self._identity = served_identity(settings)
        self._secrets = settings.secrets()
        bodies: dict[str, dict[str, Any]] = {}
        replies: dict[str, JudgeReply] = {}
        for key, m, fmt in zip(keys, messages, fmts, strict=True):
            if (hit := self.cache.get(key, judge) if self.cache else None) is not None:
                replies[key] = JudgeReply(hit, cached=True)
            else:
                bodies.setdefault(key, request_body(settings, m, fmt))
        try:
            outcomes = self._run(settings, sorted(set(keys)), bodies) if bodies else {}
        except openai.OpenAIError as exc:
            raise JudgeLaterError(api_failure(exc, settings)) from None
        for key, found in outcomes.items():
            error = None if found.text is not None else found.error
            replies[key] = JudgeReply(found.text, error, usage=found.usage)
        return [
            readable(replies[k], f, settings.constraint) for k, f in zip(keys, fmts, strict=True)
        ]

    def _run(
        self, settings: JudgeSettings, all_keys: list[str], bodies: dict[str, dict[str, Any]]
    ) -> Outcomes:
        """Answers for `bodies` (cache key -> request body), resuming rounds in the state file."""
        state_path = self.options.state_dir / f"batch_{sha256_text(json.dumps(all_keys))[:24]}.json"
        state = self._load(state_path)
        outcomes = {key: _Outcome() for key in bodies}
        with openai.OpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key or "not-needed",
            timeout=settings.timeout,
            max_retries=settings.max_retries,
        ) as client:
            for path in sorted(self.options.state_dir.glob("batch_*.json")):
                if path != state_path:  # other request sets' batches holding these requests
                    self._resume(client, path, self._load(path), outcomes, own=False)
            self._resume(client, state_path, state, outcomes, own=True)  # an interrupted run's
            for _ in range(self.options.max_rounds):  # rounds of this run
                remaining = [k for k, o in outcomes.items() if o.text is None and o.retry]
                if not remaining:
                    break
                entries = [  # all parts created first: the server runs them side by side
                    self._submit(client, part, content, state_path, state)
                    for part, content in split_requests(remaining, bodies)
                ]
                for entry in entries:
                    self._finish(client, entry, outcomes)
                    self._save(state_path, state)
        for outcome in outcomes.values():
            if outcome.text is None and outcome.retry and state["rounds"]:
                outcome.error += f" (after {len(state['rounds'])} batch(es))"
        return outcomes

    def _resume(
        self, client: openai.OpenAI, path: Path, state: State, outcomes: Outcomes, *, own: bool
    ) -> None:
        """Read the saved batches holding unanswered requests: all of this set's, only unfinished ones
        of other sets (paid for already; a finished batch's answers are in the judge cache)."""
        for entry in state["rounds"]:
            wanted = any(outcomes[k].text is None for k in entry["keys"] if k in outcomes)
            if not own and (not wanted or entry.get("status") is not None):
                continue
            self.log.append(entry)
            if not wanted:
                continue
            if entry.get("batch_id") is None:
                self._create(client, entry, path, state)
            self._finish(client, entry, outcomes)
            self._save(path, state)
            if own and entry["status"] == "failed":  # an earlier run's failure (a quota, say):
                for key in set(entry["keys"]) & outcomes.keys():  # its requests try again
                    outcomes[key].retry = outcomes[key].retry or outcomes[key].text is None

    @staticmethod
    def _load(path: Path) -> State:
        if not path.is_file():
            return {"rounds": []}
        with suppress(OSError, UnicodeDecodeError, json.JSONDecodeError):
            state = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(state, dict) and isinstance(state.get("rounds"), list):
                return state
        raise JudgeLaterError(
            f"{path}: unreadable batch state (ids of batches already paid for); fix or delete it "
            "(deleting it submits a new batch for the requests not yet in the judge cache)"
        )

    @staticmethod
    def _save(path: Path, state: State) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(state, indent=1))
        temporary.replace(path)

    def _submit(
        self, client: openai.OpenAI, keys: list[str], content: bytes, path: Path, state: State
    ) -> Entry:
        """The entry saved with its input file before the create: a lost reply is found again."""
        upload = client.files.create(file=("judge_requests.jsonl", content), purpose="batch")
        entry = {
            "batch_id": None,
            "input_file_id": upload.id,
            "uploaded_at": getattr(upload, "created_at", None),
            "keys": keys,
            "status": None,
        }
        state["rounds"].append(entry)
        self.log.append(entry)
        self._save(path, state)
        self._create(client, entry, path, state, look_up=False)
        return entry

    def _create(
        self, client: openai.OpenAI, entry: Entry, path: Path, state: State, *, look_up: bool = True
    ) -> None:
        """The input file's batch on the server, else a new one, not retried (could pay twice)."""
        if look_up and (found := self._batch_of(client, entry, path)) is not None:
            entry["batch_id"] = found
        else:
            batch = client.with_options(max_retries=0).batches.create(
                input_file_id=entry["input_file_id"],
                endpoint=ENDPOINT,
                completion_window=self.options.completion_window,  # type: ignore[arg-type]
            )
            entry["batch_id"] = batch.id
        self._save(path, state)

    @staticmethod
    def _batch_of(client: openai.OpenAI, entry: Entry, state_path: Path) -> str | None:
        """The input file's batch, searched back to the upload; stops if the server cannot list."""
        since = entry.get("uploaded_at")
        try:
            for batch in client.batches.list(limit=100):
                if batch.input_file_id == entry["input_file_id"]:
                    return batch.id
                if isinstance(since, int | float) and batch.created_at < since - 300:
                    return None
        except openai.APIStatusError as exc:
            if exc.status_code not in (404, 405, 501):
                raise
            raise JudgeLaterError(
                f"{state_path}: the batch for input file {entry['input_file_id']} may exist (its "
                f"create reply was lost) and the server cannot list batches (HTTP "
                f"{exc.status_code}) to find it; look it up on the server and write its id as "
                '"batch_id" in that entry, or, if it does not exist, delete the entry and run '
                "again (a new batch is created)"
            ) from None
        return None

    def _finish(self, client: openai.OpenAI, entry: Entry, outcomes: Outcomes) -> None:
        """Wait for the batch to end, then read its output and error files into `outcomes`."""
        label = f"Batch {entry['batch_id']}"
        with tqdm(total=len(entry["keys"]), desc=label, unit="judgment") as progress:
            while (batch := client.batches.retrieve(entry["batch_id"])).status not in TERMINAL:
                if counts := batch.request_counts:  # done so far, as the provider counts them
                    progress.n = counts.completed + counts.failed
                deadline = time.monotonic() + self.options.poll_interval
                while (left := deadline - time.monotonic()) > 0:
                    progress.refresh()  # the elapsed time moves: never silent for long
                    time.sleep(min(left, 10))
        entry["status"] = batch.status
        files = [f for f in (batch.output_file_id, batch.error_file_id) if f]
        lines = [raw for f in files for raw in client.files.content(f).text.splitlines()]
        seen = {self._read_line(json.loads(raw), outcomes) for raw in lines if raw.strip()}
        missing = f"the batch ended {batch.status}"
        if batch.status == "failed":
            errors = getattr(batch, "errors", None)
            details = [e.message for e in (getattr(errors, "data", None) or []) if e.message]
            missing += f" ({'; '.join(details)[:300]})" if details else ""
        for key in entry["keys"]:
            outcome = outcomes.get(key)
            if key not in seen and outcome is not None and outcome.text is None:
                outcome.error = f"not answered: {missing}"
                outcome.retry = batch.status in RETRY_STATUSES

    def _read_line(self, line: dict[str, Any], outcomes: Outcomes) -> str:
        key = str(line.get("custom_id"))
        if (outcome := outcomes.get(key)) is None or outcome.text is not None:
            return key
        response = line.get("response") or {}
        status = response.get("status_code")
        body = response.get("body") or {}
        if status == 200:
            outcome.usage = usage_of(body)  # paid for, answered or empty
            choices = body.get("choices") or []
            text = (choices[0].get("message") or {}).get("content") if choices else None
            if text and text.strip():
                outcome.text = text = redact(text, self._secrets)  # an echoed key goes
                if self.cache is not None:  # a rerun never asks again
                    self.cache.put(key, text, self._identity, at_once=True)
            else:
                outcome.error, outcome.retry = "empty judge response", False
            return key
        error = line.get("error") or body.get("error") or {}
        if not isinstance(error, dict):
            error = {"message": str(error)}
        message = error.get("message") or "no message"
        code = f"HTTP {status}" if status else str(error.get("code") or "error")
        outcome.error = f"batch request failed: {code} ({str(message)[:300]})"
        outcome.retry = status is None or status in RETRY_STATUS or status >= 500
        return key

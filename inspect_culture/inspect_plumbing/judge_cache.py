"""The Inspect judge's reply cache: re-scoring the same outputs, or resuming, repeats no judge
call, at a fraction of the cost of Inspect's own cache.

Inspect's cache (`cache=CachePolicy(...)` on a generate call) fetches and stores each entry
synchronously on the event loop: a deep copy and JSON dump of the request for the key, one
pickle file per entry (about 1.2 ms a judgment on the 2-core development machine, which made
our scorer 6 % slower than Inspect's `model_graded_qa`). This cache keys the same things
(judge model, endpoint, every message, the judge's generation settings) with one SHA-256, reads
with one indexed SQLite lookup and writes in batches (every 64 new replies or 2 s, and at exit).

The judge is named by provider and model, endpoint host (the port left out for a server on this
machine: Inspect's `vllm/` provider starts it on a new port every run) and, when the preflight
could learn it, the checkpoint the endpoint serves (its `/models` entry: vLLM's `root`,
llama.cpp's `meta`). That identity is stored with each reply and not part of the key: a reply
from another checkpoint served under the same name is a miss, and an offline replay (no
preflight, identity unknown) still hits.

A hit answers without a model event in the transcript (an info event says where the reply came
from). The file: `$INSPECT_CULTURE_CACHE_DIR/inspect_judge_cache.sqlite` (default
`~/.cache/inspect_culture/`); `INSPECT_CULTURE_JUDGE_CACHE=off` switches it off. Failures,
errors and empty replies are never stored. Inspect's own `--cache` still applies on top.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import hashlib
import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from inspect_ai.model import ChatMessage, GenerateConfig, Model

from inspect_culture.datasets_hub.paths import cache_dir
from inspect_culture.datasets_hub.sqlite_columns import add_column
from inspect_culture.inspect_plumbing.failures import sent_model_name, without_userinfo

CACHE_FILE = "inspect_judge_cache.sqlite"
OFF_ENV = "INSPECT_CULTURE_JUDGE_CACHE"  # "off" switches both harnesses' judge caches off
VERSION = "inspect-judge-cache-1"
_FLUSH_EVERY = 64
# GenerateConfig fields that change how a reply is fetched, not what it says.
_TRANSPORT = {
    "max_connections", "max_retries", "timeout", "attempt_timeout", "batch", "cache",
    "cache_prompt",
}  # fmt: skip
_FLUSH_SECONDS = 2.0
_LOOPBACK = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}
# /models fields that change from call to call (vLLM stamps `created` and permission ids)
_VOLATILE = {"created", "permission"}
IDENTITY_TIMEOUT = 5.0  # seconds: the /models lookup is best effort
# what each (model, endpoint) serves, learned at the preflight; absent: unknown
_IDENTITIES: dict[tuple[str, str], str] = {}
_LOOKUPS: dict[tuple[int, str, str], asyncio.Future[str | None]] = {}


def cache_endpoint(model: Model) -> str:
    """The endpoint as the key sees it: no credentials, and no port for this machine."""
    base_url = getattr(model.api, "base_url", None)
    if not base_url:
        return "None"
    url = without_userinfo(str(base_url))
    parts = urlparse(url)
    if parts.hostname in _LOOPBACK and parts.port is not None:
        return parts._replace(netloc=parts.hostname).geturl()
    return url


def judge_identity(model: Model) -> str | None:
    """What the endpoint serves under the model's name, if the preflight learned it."""
    return _IDENTITIES.get((str(model), cache_endpoint(model)))


async def learn_identity_once(model: Model) -> str | None:
    """`learn_identity`, once per event loop (one eval), model and endpoint: every sample
    awaits the same lookup."""
    loop = asyncio.get_running_loop()
    key = (id(loop), str(model), cache_endpoint(model))
    lookup = _LOOKUPS.get(key)
    if lookup is None or lookup.get_loop() is not loop:
        lookup = _LOOKUPS[key] = loop.create_task(learn_identity(model))
    return await asyncio.shield(lookup)


async def learn_identity(model: Model) -> str | None:
    """Ask the endpoint's `/models` which checkpoint it serves under this name (OpenAI-style
    clients only; one GET, no generation). Unknown when it cannot say: never an error."""
    client = getattr(model.api, "client", None)
    models = getattr(client, "models", None)
    if models is None or not hasattr(client, "with_options"):
        return None
    try:
        page = await client.with_options(max_retries=0, timeout=IDENTITY_TIMEOUT).models.list()
        entries = [entry.model_dump() for entry in page.data]
    except Exception:  # noqa: BLE001 - best effort: the key then names the model only
        return None
    served = [e for e in entries if e.get("id") == sent_model_name(model)]
    if len(served) != 1:
        return None
    entry = {k: v for k, v in served[0].items() if k not in _VOLATILE}
    text = json.dumps(entry, sort_keys=True, ensure_ascii=False, default=str)
    identity = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
    _IDENTITIES[(str(model), cache_endpoint(model))] = identity
    return identity


def request_key(model: Model, messages: str | Sequence[ChatMessage], config: GenerateConfig) -> str:
    if isinstance(messages, str):
        parts: list[Any] = [["user", messages]]
    else:
        parts = [[m.role, m.text if isinstance(m.content, list) else m.content] for m in messages]
    payload = {
        "v": VERSION,
        "model": str(model),
        "base_url": cache_endpoint(model),
        "messages": parts,
        # the call's config over the role's own: a role's top_p or reasoning effort changes
        # the reply as much as the judge's temperature does
        # (transport settings excluded: a resume with other connections or timeouts must hit)
        "config": model.config.merge(config).model_dump(
            exclude_none=True, mode="json", exclude=_TRANSPORT
        ),
    }
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ReplyCache:
    """SQLite, one row per judge reply; reads at once, writes batched."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, text TEXT, judge TEXT)"
        )
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(replies)")}
        if "judge" not in columns:  # a cache written before identities were kept
            add_column(self._db, "replies", "judge TEXT")
        self._pending: dict[str, tuple[str, str | None]] = {}
        self._last_flush = time.monotonic()
        self._warned = False

    def get(self, key: str, judge: str | None = None) -> str | None:
        """The reply, unless it came from another checkpoint than `judge` (both known). A cache
        that fails mid-run (disk full, file removed) is a miss, never a lost sample."""
        with self._lock:
            row: tuple[str, str | None] | None = self._pending.get(key)
            if row is None:
                try:
                    sql = "SELECT text, judge FROM replies WHERE key = ?"
                    row = self._db.execute(sql, (key,)).fetchone()
                except sqlite3.Error as exc:
                    self._failed(exc)
                    return None
        if row is None or (judge is not None and row[1] is not None and row[1] != judge):
            return None
        return row[0]

    def put(self, key: str, text: str, judge: str | None = None) -> None:
        """Kept for the next flush; a flush that fails loses only the cache rows (a rerun asks
        the judge again), never the verdict already in the sample."""
        with self._lock:
            self._pending[key] = (text, judge)
            due = time.monotonic() - self._last_flush >= _FLUSH_SECONDS
            if len(self._pending) >= _FLUSH_EVERY or due:
                self._flush_locked()

    def flush(self) -> None:
        with self._lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if self._pending:
            rows = [(key, text, judge) for key, (text, judge) in self._pending.items()]
            self._pending.clear()
            try:
                self._db.execute("BEGIN")
                self._db.executemany(
                    "INSERT OR REPLACE INTO replies (key, text, judge) VALUES (?, ?, ?)", rows
                )
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                self._failed(exc)
        self._last_flush = time.monotonic()

    def _failed(self, exc: sqlite3.Error) -> None:
        if not self._warned:
            self._warned = True
            print(
                f"culture-evals: WARNING: the judge cache {self.path} failed ({exc}); this "
                f"run's verdicts are kept, but a rerun will ask the judge again ({OFF_ENV}=off "
                "switches the cache off)",
                file=sys.stderr,
                flush=True,
            )


# each cache file as opened, or why it could not be
_CACHES: dict[Path, ReplyCache | str] = {}
_CACHES_LOCK = threading.Lock()


class JudgeCacheError(Exception):
    """The judge cache file cannot be opened; the message says which file and what to do."""


def open_reply_cache() -> ReplyCache | None:
    """This process's cache for the current cache directory, opened once; None when switched
    off. A file that cannot be opened raises JudgeCacheError, for every sample's check before
    generation; it is tried once per process."""
    if os.environ.get(OFF_ENV, "").strip().lower() == "off":
        return None
    path = cache_dir() / CACHE_FILE
    with _CACHES_LOCK:
        if path not in _CACHES:
            try:
                _CACHES[path] = ReplyCache(path)
            except (OSError, sqlite3.Error) as exc:
                _CACHES[path] = (
                    f"The judge cache {path} cannot be opened ({exc}). Fix: point "
                    f"INSPECT_CULTURE_CACHE_DIR at a writable folder, or run with {OFF_ENV}=off "
                    "(every judgment is then asked of the judge, also on a rerun)."
                )
        cache = _CACHES[path]
    if isinstance(cache, str):
        raise JudgeCacheError(cache)
    return cache


def reply_cache() -> ReplyCache | None:
    """The cache for one judgment: None when off or when it could not be opened (said before
    generation by `open_reply_cache`)."""
    try:
        return open_reply_cache()
    except JudgeCacheError:
        return None


@atexit.register
def flush_all() -> None:
    for cache in list(_CACHES.values()):
        if isinstance(cache, ReplyCache):
            with contextlib.suppress(sqlite3.Error):
                cache.flush()

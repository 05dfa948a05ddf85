"""The Inspect judge's reply cache: re-scoring the same outputs, or resuming, repeats no judge
call, at a fraction of the cost of Inspect's own cache.

Inspect's cache (`cache=CachePolicy(...)` on a generate call) fetches and stores each entry
synchronously on the event loop: a deep copy and JSON dump of the request for the key, one
pickle file per entry (about 1.2 ms a judgment on the 2-core development machine, which made
our scorer 6 % slower than Inspect's `model_graded_qa`). This cache keys the same things
(judge model, endpoint, every message, the judge's generation settings) with one SHA-256, reads
with one indexed SQLite lookup and writes in batches (every 64 new replies or 2 s, and at exit).

A hit answers without a model event in the transcript (an info event says where the reply came
from). The file: `$INSPECT_CULTURE_CACHE_DIR/inspect_judge_cache.sqlite` (default
`~/.cache/inspect_culture/`); `INSPECT_CULTURE_JUDGE_CACHE=off` switches it off. Failures,
errors and empty replies are never stored. Inspect's own `--cache` still applies on top.
"""

from __future__ import annotations

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

from inspect_ai.model import ChatMessage, GenerateConfig, Model

from inspect_culture.datasets_hub.paths import cache_dir

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


def request_key(model: Model, messages: str | Sequence[ChatMessage], config: GenerateConfig) -> str:
    if isinstance(messages, str):
        parts: list[Any] = [["user", messages]]
    else:
        parts = [[m.role, m.text if isinstance(m.content, list) else m.content] for m in messages]
    payload = {
        "v": VERSION,
        "model": str(model),
        "base_url": str(getattr(model.api, "base_url", None)),
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
        self._db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, text TEXT)")
        self._pending: dict[str, str] = {}
        self._last_flush = time.monotonic()
        self._warned = False

    def get(self, key: str) -> str | None:
        """A cache that fails mid-run (disk full, file removed) is a miss, never a lost sample."""
        with self._lock:
            if key in self._pending:
                return self._pending[key]
            try:
                row = self._db.execute("SELECT text FROM replies WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error as exc:
                self._failed(exc)
                return None
        return row[0] if row else None

    def put(self, key: str, text: str) -> None:
        """Kept for the next flush; a flush that fails loses only the cache rows (a rerun asks
        the judge again), never the verdict already in the sample."""
        with self._lock:
            self._pending[key] = text
            due = time.monotonic() - self._last_flush >= _FLUSH_SECONDS
            if len(self._pending) >= _FLUSH_EVERY or due:
                self._flush_locked()

    def flush(self) -> None:
        with self._lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if self._pending:
            rows = list(self._pending.items())
            self._pending.clear()
            try:
                self._db.execute("BEGIN")
                self._db.executemany(
                    "INSERT OR REPLACE INTO replies (key, text) VALUES (?, ?)", rows
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


_CACHES: dict[Path, ReplyCache] = {}
_CACHES_LOCK = threading.Lock()


def reply_cache() -> ReplyCache | None:
    """This process's cache for the current cache directory; None when switched off or when the
    file cannot be used (the judge then simply runs uncached)."""
    if os.environ.get(OFF_ENV, "").strip().lower() == "off":
        return None
    path = cache_dir() / CACHE_FILE
    with _CACHES_LOCK:
        if path not in _CACHES:
            try:
                _CACHES[path] = ReplyCache(path)
            except (OSError, sqlite3.Error):
                return None
        return _CACHES[path]


@atexit.register
def flush_all() -> None:
    for cache in list(_CACHES.values()):
        with contextlib.suppress(sqlite3.Error):
            cache.flush()

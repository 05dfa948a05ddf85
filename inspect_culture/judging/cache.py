"""The judge cache shared by both harnesses and `culture-evals judge`: a verdict paid for once is
reused when judge, prompt, sampling and constraint match. The served checkpoint is stored beside
each reply, not in the key, so another checkpoint misses and an offline replay still hits."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import hashlib
import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from inspect_culture.datasets_hub.paths import cache_dir
from inspect_culture.judging.constraints import constraint_record
from inspect_culture.judging.protocol import Message
from inspect_culture.judging.redaction import redact, without_userinfo

CACHE_ENV = "INSPECT_CULTURE_JUDGE_CACHE"  # a file path, or "off"
CACHE_FILE = "judge_cache.sqlite"
KEY_VERSION = "judge-cache-2"
TABLE = "replies"
_LOOPBACK = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}
OPENAI_BASE_URL = "https://api.openai.com/v1"  # the endpoint when none is named
IDENTITY_TIMEOUT = 5.0  # seconds: the /models lookup is best effort
# /models fields that change from call to call (vLLM stamps `created` and permission ids)
_VOLATILE = {"created", "permission"}


class JudgeConfigError(ValueError):
    """A judge setting, endpoint or cache that cannot work: stops a run before generation."""


class JudgeCacheError(JudgeConfigError):
    """The judge cache cannot be used at its path; the message names it and the fix."""


@dataclass(frozen=True)
class JudgeId:
    """A judge as the cache knows it: the name sent on the wire and `endpoint_key(base_url)`."""

    name: str
    endpoint: str


def add_column(db: sqlite3.Connection, table: str, column: str) -> None:
    """`ALTER TABLE ... ADD COLUMN`; another process adding it first is no error."""
    try:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
    except sqlite3.OperationalError as exc:
        if "duplicate column" not in str(exc).lower():
            raise


@functools.lru_cache(maxsize=64)  # asked twice a judgment (cache key, served identity)
def endpoint_key(base_url: str | None) -> str:
    """The endpoint without credentials, a trailing slash or, for this machine, its port."""
    if not base_url:
        return "default"
    parts = urlparse(without_userinfo(base_url).rstrip("/"))
    if parts.hostname in _LOOPBACK:
        parts = parts._replace(netloc="loopback")
    return parts._replace(scheme=parts.scheme.lower()).geturl()


# what each judge serves, learned at a preflight; absent: unknown
_IDENTITIES: dict[JudgeId, str] = {}


def remember_listing(judge: JudgeId, entries: Iterable[Mapping[str, Any]]) -> str | None:
    """Keep the checkpoint a `/models` listing says `judge.name` is; None unless one entry."""
    served = [e for e in entries if isinstance(e, Mapping) and e.get("id") == judge.name]
    if len(served) != 1:
        return None
    # fields absent and fields null are one: an SDK's listing object fills in null defaults
    entry = {k: v for k, v in served[0].items() if k not in _VOLATILE and v is not None}
    text = json.dumps(entry, sort_keys=True, ensure_ascii=False, default=str)
    identity = _IDENTITIES[judge] = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
    return identity


def identity_of(judge: JudgeId) -> str | None:
    return _IDENTITIES.get(judge)


def key(
    judge: JudgeId, messages: Sequence[Message], sampling: Mapping[str, Any], constraint: str
) -> str:
    """Transport settings are not in `sampling`: a resume with other limits still hits."""
    payload = {
        "v": KEY_VERSION,
        "model": judge.name,
        "endpoint": judge.endpoint,
        "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
        "sampling": {k: v for k, v in sampling.items() if v is not None},
        **constraint_record(constraint),
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class JudgeCache:
    """Writes batched (Inspect calls it on the event loop), or committed at once by a writer
    thread (`commit_soon_async`); a failure mid-run: a miss, a warning."""

    def __init__(self, path: Path, *, flush_every: int = 64, flush_seconds: float = 2.0) -> None:
        self.path = path
        self._lock = threading.Lock()  # the rows and waiters below; held for microseconds
        self._db_lock = threading.Lock()  # the connection, through a whole commit
        self._wake = threading.Condition(self._lock)
        self._writer: threading.Thread | None = None
        self._flush_every, self._flush_seconds = flush_every, flush_seconds
        self._pending: dict[str, tuple[str, str | None]] = {}
        self._committing: dict[str, tuple[str, str | None]] = {}  # still readable meanwhile
        # `commit_soon_async`s whose rows are in `_pending`: each one's loop and future
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._last_flush = time.monotonic()
        self._warned = False
        try:
            if path.is_dir():
                raise IsADirectoryError(f"{path} is a directory")
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # no fsync per verdict: with WAL a process crash loses nothing, a power loss at
            # most the last verdicts (judged again next run), never the file
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                f"CREATE TABLE IF NOT EXISTS {TABLE} (key TEXT PRIMARY KEY, text TEXT, judge TEXT)"
            )
            columns = {row[1] for row in self._db.execute(f"PRAGMA table_info({TABLE})")}
            if "judge" not in columns:  # a cache written before identities were kept
                add_column(self._db, TABLE, "judge TEXT")
            self._db.execute(f"SELECT text, judge FROM {TABLE} LIMIT 1").fetchall()
        except (OSError, sqlite3.Error) as exc:
            raise JudgeCacheError(
                f"The judge cache {path} cannot be used ({_why(exc)}). Fix: set {CACHE_ENV} to "
                "a writable file path (a new file or an existing judge cache), point "
                f"INSPECT_CULTURE_CACHE_DIR at a writable folder, or set {CACHE_ENV}=off (every "
                "judgment is then asked of the judge, also on a rerun)."
            ) from None

    def get(self, key: str, judge: str | None = None) -> str | None:
        """The reply, unless it came from another checkpoint than `judge` (both known)."""
        return self.get_many([key], judge)[0]

    def _unwritten(self, key: str) -> tuple[str, str | None] | None:
        """A row not committed yet (pending, or in the commit under way); `_lock` held."""
        return self._pending.get(key) or self._committing.get(key)

    def get_many(self, keys: Sequence[str], judge: str | None = None) -> list[str | None]:
        """`get` of each key, in one query a chunk: a batch is looked up before its first
        request is sent, so this is serial time of the whole batch."""
        with self._lock:
            rows = {k: row for k in keys if (row := self._unwritten(k)) is not None}
        wanted = [k for k in dict.fromkeys(keys) if k not in rows]
        try:  # the connection only for keys not pending: a commit under way blocks no other
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                sql = f"SELECT key, text, judge FROM {TABLE} WHERE key IN ({_marks(chunk)})"
                with self._db_lock:
                    rows.update((k, (t, j)) for k, t, j in self._db.execute(sql, chunk))
        except sqlite3.Error as exc:
            self._failed(exc)
            return [None] * len(keys)
        return [_hit(rows.get(k), judge) for k in keys]

    def put(
        self,
        key: str,
        text: str,
        judge: str | None = None,
        *,
        secrets: tuple[str, ...] = (),
        at_once: bool = False,
    ) -> None:
        """Redacted: a server echoing the key must not plant it in a file that other runs replay.
        `at_once`: committed before it returns, in the caller's thread."""
        with self._lock:
            self._pending[key] = (redact(text, secrets), judge)
            due = at_once or time.monotonic() - self._last_flush >= self._flush_seconds
            if len(self._pending) < self._flush_every and not due:
                return
        self.flush()

    def commit_soon_async(
        self, key: str, text: str, judge: str | None = None, *, secrets: tuple[str, ...] = ()
    ) -> asyncio.Future[None]:
        """`put`, committed at once by the cache's writer thread (with any rows waiting),
        awaited without blocking the running event loop (a commit takes tens of microseconds, a
        WAL checkpoint's fsync milliseconds): the future is done when the row is committed, and
        a group's futures are set by one wake-up of the loop, not one each."""
        loop = asyncio.get_running_loop()
        committed: asyncio.Future[None] = loop.create_future()
        row = (redact(text, secrets), judge)
        with self._lock:
            self._pending[key] = row
            self._waiters.append((loop, committed))
            if self._writer is None:
                self._writer = threading.Thread(
                    target=self._write_forever, name="judge-cache-writer", daemon=True
                )
                self._writer.start()
            self._wake.notify()
        return committed

    def _write_forever(self) -> None:
        while True:
            with self._lock:
                while not self._waiters:
                    self._wake.wait()
            try:
                self.flush()
            except Exception as exc:  # noqa: BLE001 - the thread must go on: a warning
                self._failed(exc)

    def flush(self) -> None:
        """Commit every pending row in one transaction; then its `commit_soon_async` futures are done
        (a failed write too: a warning, the verdicts kept in memory)."""
        with self._db_lock:
            with self._lock:
                self._committing, self._pending = self._pending, {}
                waiters, self._waiters = self._waiters, []
            try:
                if self._committing:
                    self._write(self._committing)
            finally:
                with self._lock:
                    self._committing = {}
                    self._last_flush = time.monotonic()
                _release(waiters)  # never left waiting, whatever the write did

    def _write(self, pending: Mapping[str, tuple[str, str | None]]) -> None:
        """One transaction (`_db_lock` held)."""
        rows = [(key, text, judge) for key, (text, judge) in pending.items()]
        try:
            self._db.execute("BEGIN")
            self._db.executemany(
                f"INSERT OR REPLACE INTO {TABLE} (key, text, judge) VALUES (?, ?, ?)", rows
            )
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            self._failed(exc)

    def _failed(self, exc: Exception) -> None:
        if not self._warned:
            self._warned = True
            print(
                f"culture-evals: WARNING: the judge cache {self.path} failed ({exc}); this "
                "run's verdicts are kept, but a rerun will ask the judge again "
                f"({CACHE_ENV}=off switches the cache off)",
                file=sys.stderr,
                flush=True,
            )


def _release(waiters: Iterable[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]) -> None:
    """Each waiter's future done, a loop's all in one call on that loop."""
    by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
    for loop, future in waiters:
        by_loop.setdefault(loop, []).append(future)
    for loop, futures in by_loop.items():
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            loop.call_soon_threadsafe(_set_done, futures)


def _set_done(futures: Iterable[asyncio.Future[None]]) -> None:
    """On their loop: every future not cancelled meanwhile (a stopped run) is done."""
    for future in futures:
        if not future.done():
            future.set_result(None)


_CHUNK = 500  # keys a lookup query (SQLite allows 999 parameters before 3.32)


def _marks(keys: Sequence[str]) -> str:
    return ",".join("?" * len(keys))


def _hit(row: tuple[str, str | None] | None, judge: str | None) -> str | None:
    """A stored row's reply, unless it came from another checkpoint than `judge` (both known)."""
    if row is None or (judge is not None and row[1] is not None and row[1] != judge):
        return None
    return redact(row[0])  # a row written before replies were stored redacted


def _why(exc: BaseException) -> str:
    if isinstance(exc, sqlite3.DatabaseError) and "not a database" in str(exc):
        return "the file exists and is not a SQLite judge cache"
    if isinstance(exc, NotADirectoryError | FileExistsError):
        return "a parent of it is a file, not a directory"
    if isinstance(exc, IsADirectoryError):
        return "it is a directory"
    if isinstance(exc, sqlite3.OperationalError) and "unable to open" in str(exc):
        return "the file cannot be created or opened there"
    return f"{type(exc).__name__}: {getattr(exc, 'strerror', None) or exc}"


def judge_cache_path() -> Path | None:
    """The file `INSPECT_CULTURE_JUDGE_CACHE` names, or the default one; None when off."""
    value = os.environ.get(CACHE_ENV, "").strip()
    if value.lower() == "off":
        return None
    return Path(value).expanduser() if value else cache_dir() / CACHE_FILE


# each cache as opened in this process (one per file: both harnesses see each other's replies
# not yet written), or why it could not be
_CACHES: dict[Path, JudgeCache | JudgeCacheError] = {}
_CACHES_LOCK = threading.Lock()


def open_cache() -> JudgeCache | None:
    """This process's cache, opened once per file; None when off; unusable: JudgeCacheError."""
    path = judge_cache_path()
    if path is None:
        return None
    with _CACHES_LOCK:
        opened = _CACHES.get(path)
        if opened is None:
            try:
                opened = JudgeCache(path)
            except JudgeCacheError as exc:
                opened = exc
            _CACHES[path] = opened
    if isinstance(opened, JudgeCacheError):
        raise opened
    return opened


@atexit.register
def flush_all() -> None:
    for cache in list(_CACHES.values()):
        if isinstance(cache, JudgeCache):
            cache.flush()  # a failing write is a warning, never an error

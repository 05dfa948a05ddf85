"""Persistent judge cache (SQLite): re-scoring or resuming makes no repeated judge calls.

Keyed by judge model, endpoint, the full message list and the generation settings, so any change
to the prompt or settings misses the cache instead of returning a stale verdict. Each reply also
keeps the checkpoint the endpoint served under the model's name when the preflight learned it
(`GET /models`): a reply from another checkpoint under the same name is a miss. Opened when a
task loads, so a path that cannot hold it fails before generation, naming the path.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from inspect_culture.datasets_hub.hashing import sha256_text
from inspect_culture.datasets_hub.paths import cache_dir
from inspect_culture.datasets_hub.sqlite_columns import add_column
from inspect_culture.judging.urls import without_userinfo
from inspect_culture.lm_eval_tasks.judge.settings import JudgeConfigError, JudgeSettings

CACHE_ENV = "INSPECT_CULTURE_JUDGE_CACHE"  # a file path, or "off"


def cache_key(settings: JudgeSettings, messages: Sequence[Mapping[str, str]]) -> str:
    payload = {
        "model": settings.model,
        "base_url": without_userinfo(settings.base_url) if settings.base_url else None,
        "messages": list(messages),
        "settings": settings.generation_settings(),
    }
    return sha256_text(json.dumps(payload, sort_keys=True, ensure_ascii=False))


class JudgeCacheError(JudgeConfigError):
    """The judge cache cannot be opened at its path; the message names it and the fix."""


class JudgeCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
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
                "CREATE TABLE IF NOT EXISTS judgments (key TEXT PRIMARY KEY, text TEXT, judge TEXT)"
            )
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(judgments)")}
            if "judge" not in columns:  # a cache written before checkpoints were kept
                add_column(self._db, "judgments", "judge TEXT")
            self._db.execute("SELECT text, judge FROM judgments LIMIT 1").fetchall()
        except (OSError, sqlite3.Error) as exc:
            raise JudgeCacheError(
                f"the judge cache {path} cannot be used ({_why(exc)}); set {CACHE_ENV} to a "
                f"writable file path (a new file or an existing judge cache), or {CACHE_ENV}=off"
            ) from None

    def get(self, key: str, judge: str | None = None) -> str | None:
        """The reply, unless it came from another checkpoint than `judge` (both known)."""
        with self._lock:
            sql = "SELECT text, judge FROM judgments WHERE key = ?"
            row = self._db.execute(sql, (key,)).fetchone()
        if row is None or (judge is not None and row[1] is not None and row[1] != judge):
            return None
        return row[0]

    def put(self, key: str, text: str, judge: str | None = None) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO judgments (key, text, judge) VALUES (?, ?, ?)",
                (key, text, judge),
            )


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


def default_cache() -> JudgeCache | None:
    """The cache named by INSPECT_CULTURE_JUDGE_CACHE, or the default file; None when "off"."""
    value = os.environ.get(CACHE_ENV, "").strip()
    if value.lower() == "off":
        return None
    return JudgeCache(Path(value).expanduser() if value else cache_dir() / "judge_cache.sqlite")

"""The judge cache's writes and lookups as the lm-eval judge uses them: a verdict committed by
the writer thread is on disk when its future is done (a kill right after keeps it), and a
batch's keys are looked up in one query a chunk."""

import asyncio
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from inspect_culture.judging.cache import JudgeCache

ROOT = Path(__file__).resolve().parents[2]

KILLED_AFTER_COMMIT = """
import asyncio, os, signal, sys
from pathlib import Path
from inspect_culture.judging.cache import JudgeCache
async def commit():
    await asyncio.wait_for(JudgeCache(Path(sys.argv[1])).commit_soon_async("k", "Rating: [[8]]", "ckpt"), 60)
asyncio.run(commit())
os.kill(os.getpid(), signal.SIGKILL)  # no atexit flush, no connection closed
"""


def test_a_committed_verdict_survives_a_kill(tmp_path: Path) -> None:
    path = tmp_path / "judge.sqlite"
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_COMMIT, str(path)], cwd=ROOT, capture_output=True
    )
    assert killed.returncode == -9, killed.stderr
    rows = sqlite3.connect(path).execute("SELECT key, text, judge FROM replies").fetchall()
    assert rows == [("k", "Rating: [[8]]", "ckpt")]


def test_a_verdict_being_committed_is_read_and_its_key_redacted(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "judge.sqlite")
    database, go_on = cache._db, threading.Event()

    class CommitWaits:
        def __getattr__(self, name: str):
            return getattr(database, name)

        def execute(self, sql: str, *args):
            if sql == "COMMIT":
                assert go_on.wait(10)
            return database.execute(sql, *args)

    cache._db = CommitWaits()

    async def commit() -> None:
        committed = cache.commit_soon_async("k", "Rating: [[6]] sk-abcdefgh12345", secrets=())
        await asyncio.sleep(0.05)
        assert not committed.done()  # its commit waits
        assert cache.get("k") == "Rating: [[6]] [redacted]"  # pending or mid-commit: a hit
        go_on.set()
        await asyncio.wait_for(committed, 10)

    asyncio.run(commit())
    rows = sqlite3.connect(cache.path).execute("SELECT text FROM replies").fetchall()
    assert rows == [("Rating: [[6]] [redacted]",)]


def test_get_many_answers_each_key_as_get_does(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "judge.sqlite")
    for i in range(1200):  # over two chunks of keys
        cache.put(f"k{i}", f"Rating: [[{i % 10}]]", "ckpt-a" if i % 2 else None)
    cache.flush()
    cache.put("pending", "Rating: [[9]]")  # not committed yet: read all the same
    keys = ["pending", "absent", *(f"k{i}" for i in range(1200)), "k3", "absent"]
    for judge in (None, "ckpt-a", "ckpt-b"):
        assert cache.get_many(keys, judge) == [cache.get(k, judge) for k in keys]
    assert cache.get_many(["k3", "k4"], "ckpt-b") == [None, "Rating: [[4]]"]


def test_a_cancelled_wait_for_a_commit_leaves_the_writer_working(tmp_path: Path, capsys) -> None:
    """A judgment cancelled while it awaits its commit (a run stopped) cancels its future: the
    verdict is committed all the same, and the writer goes on with the next, without warning."""
    cache = JudgeCache(tmp_path / "judge.sqlite")
    database, go_on = cache._db, threading.Event()

    class CommitWaits:
        def __getattr__(self, name: str):
            return getattr(database, name)

        def execute(self, sql: str, *args):
            if sql == "COMMIT":
                assert go_on.wait(10)
            return database.execute(sql, *args)

    cache._db = CommitWaits()

    async def commit() -> None:
        first = cache.commit_soon_async("k1", "Rating: [[1]]")
        await asyncio.sleep(0.05)
        assert first.cancel()
        go_on.set()
        await asyncio.wait_for(cache.commit_soon_async("k2", "Rating: [[2]]"), 10)

    asyncio.run(commit())
    rows = sqlite3.connect(cache.path).execute("SELECT key FROM replies ORDER BY key").fetchall()
    assert rows == [("k1",), ("k2",)]
    assert "judge cache" not in capsys.readouterr().err


def test_a_loops_commits_wake_it_once_a_group_and_a_cancelled_one_is_kept(tmp_path: Path) -> None:
    """`commit_soon_async`: the verdicts committed together are handed back to their event loop
    in one call (not one wake-up each); each is on disk when its future is done, and one whose
    waiter was cancelled (a stopped run) is committed all the same."""
    cache = JudgeCache(tmp_path / "judge.sqlite")
    database, go_on = cache._db, threading.Event()
    begun = threading.Event()

    class CommitWaits:
        def __getattr__(self, name: str):
            return getattr(database, name)

        def execute(self, sql: str, *args):
            if sql == "BEGIN":
                begun.set()
                assert go_on.wait(10)
            return database.execute(sql, *args)

    cache._db = CommitWaits()

    async def commit_all() -> tuple[list[int], list[str]]:
        loop = asyncio.get_running_loop()
        woken: list[int] = []
        threadsafe = loop.call_soon_threadsafe

        def counted(callback, *args):
            woken.append(1)
            return threadsafe(callback, *args)

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign]
        first = cache.commit_soon_async("k0", "Rating: [[0]]")
        assert begun.wait(10)  # the writer holds k0's commit
        group = [cache.commit_soon_async(f"k{i}", f"Rating: [[{i}]]") for i in range(1, 6)]
        group[2].cancel()
        go_on.set()
        await first
        await asyncio.gather(*(f for i, f in enumerate(group) if i != 2))
        seen = sqlite3.connect(cache.path).execute("SELECT key FROM replies ORDER BY key")
        return woken, [key for (key,) in seen]

    woken, keys = asyncio.run(commit_all())
    assert keys == [f"k{i}" for i in range(6)]  # k3 too: its waiter was cancelled
    assert len(woken) == 2  # k0's commit, then the other five's together

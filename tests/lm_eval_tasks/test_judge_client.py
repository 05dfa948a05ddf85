import asyncio
from pathlib import Path

import pytest

from inspect_culture.judging.cache import JudgeCache
from inspect_culture.judging.http_client import OpenAICompatibleJudge
from inspect_culture.judging.options import JudgeSettings
from tests.support.judge_sync import judge_all_sync
from tests.support.openai_stub import StubOpenAIServer


def _judge(
    server: StubOpenAIServer, cache: JudgeCache | None = None, **overrides
) -> OpenAICompatibleJudge:
    settings = JudgeSettings(
        model="judge", base_url=server.base_url, api_key="sk-secret", **overrides
    )
    return OpenAICompatibleJudge(settings, cache, retry_base_delay=0.01, retry_max_delay=0.05)


def _batch(n: int) -> list[list[dict[str, str]]]:
    return [[{"role": "user", "content": f"judge item {i}"}] for i in range(n)]


def test_results_in_order_with_settings_sent() -> None:
    with StubOpenAIServer(responder=lambda prompt, body: f"echo {prompt}") as server:
        results = judge_all_sync(_judge(server), _batch(5))
        sent = {(b["temperature"], b["seed"], b["max_tokens"]) for b in server.requests}
    assert [r.text for r in results] == [f"echo judge item {i}" for i in range(5)]
    assert sent == {(0.0, 20250101, 1024)}


def test_concurrency_is_bounded_and_used() -> None:
    with StubOpenAIServer(responder=lambda p, b: "ok", latency=0.2) as server:
        judge_all_sync(_judge(server, concurrency=4), _batch(12))
        # with 0.2 s per call, 12 calls overlap: exactly 4 at a time, never more
        assert server.max_in_flight == 4


@pytest.mark.parametrize("fault", [500, 429, 503, "drop"])
def test_transient_failures_are_retried(fault) -> None:
    with StubOpenAIServer(
        responder=lambda p, b: "fine", fault=lambda n, b: fault if n < 2 else None
    ) as server:
        judge = _judge(server, max_retries=3)
        [result] = judge_all_sync(judge, _batch(1))
    assert result.text == "fine" and result.error is None
    assert judge.calls == 3


def test_timeout_is_retried_then_reported() -> None:
    with StubOpenAIServer(responder=lambda p, b: "late", fault=lambda n, b: 2.0) as server:
        judge = _judge(server, timeout=0.2, max_retries=1)
        [result] = judge_all_sync(judge, _batch(1))
    assert result.text is None
    assert "after 2 attempts" in result.error and "no reply within 0.2 s" in result.error


def test_client_errors_are_not_retried() -> None:
    with StubOpenAIServer(fault=lambda n, b: 400) as server:
        judge = _judge(server, max_retries=5)
        [result] = judge_all_sync(judge, _batch(1))
    assert judge.calls == 1
    assert result.text is None and "HTTP 400" in result.error


def test_failures_do_not_stop_the_batch() -> None:
    with StubOpenAIServer(
        responder=lambda p, b: "ok",
        fault=lambda n, b: 500 if "item 1" in b["messages"][0]["content"] else None,
    ) as server:
        results = judge_all_sync(_judge(server, max_retries=1), _batch(3))
    assert [r.text for r in results] == ["ok", None, "ok"]
    assert "HTTP 500" in results[1].error


def test_cache_makes_rescoring_free(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "cache.sqlite")
    with StubOpenAIServer(responder=lambda p, b: f"v:{p}") as server:
        first = judge_all_sync(_judge(server, cache), _batch(4))
        again = _judge(server, JudgeCache(tmp_path / "cache.sqlite"))  # a new process, same file
        second = judge_all_sync(again, _batch(4))
        assert len(server.requests) == 4
    assert again.calls == 0
    assert [r.text for r in second] == [r.text for r in first]
    assert all(r.cached for r in second)


def test_cache_key_covers_prompt_and_settings(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "cache.sqlite")
    with StubOpenAIServer(responder=lambda p, b: "x") as server:
        judge_all_sync(_judge(server, cache), _batch(2))
        judge_all_sync(_judge(server, cache, max_tokens=64), _batch(2))  # other settings
        judge_all_sync(_judge(server, cache), _batch(3))  # one new prompt
        assert len(server.requests) == 2 + 2 + 1


def test_failures_are_not_cached_so_resume_retries_them(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "cache.sqlite")
    with StubOpenAIServer(
        responder=lambda p, b: "ok", fault=lambda n, b: 500 if n == 0 else None
    ) as server:
        [failed] = judge_all_sync(_judge(server, cache, max_retries=0), _batch(1))
        [resumed] = judge_all_sync(_judge(server, cache, max_retries=0), _batch(1))
    assert failed.text is None and resumed.text == "ok"


def test_sync_wrapper_works_inside_a_running_loop() -> None:
    with StubOpenAIServer(responder=lambda p, b: "ok") as server:

        async def inside() -> list:
            return judge_all_sync(_judge(server), _batch(2))

        assert [r.text for r in asyncio.run(inside())] == ["ok", "ok"]


def test_api_key_is_not_in_repr() -> None:
    settings = JudgeSettings(model="m", base_url=None, api_key="sk-secret")
    assert "sk-secret" not in repr(settings) and "sk-secret" not in str(settings.public())


def test_a_cache_failing_mid_run_keeps_the_verdicts(tmp_path: Path, capsys) -> None:
    """A cache that fails while judging (disk full, file removed) must not abort the batch and
    throw away verdicts already paid for: they are kept, and stderr says a rerun re-asks."""
    import sqlite3

    class Broken:
        def execute(self, *_: object) -> None:
            raise sqlite3.OperationalError("disk I/O error")

        executemany = execute

    cache = JudgeCache(tmp_path / "cache.sqlite")
    cache._db = Broken()  # type: ignore[assignment]
    with StubOpenAIServer(responder=lambda p, b: f"v:{p}") as server:
        results = judge_all_sync(_judge(server, cache), _batch(3))
    assert [r.text for r in results] == [f"v:judge item {i}" for i in range(3)]
    err = capsys.readouterr().err
    assert err.count("the judge cache") == 1 and "disk I/O error" in err


def test_old_caches_upgraded_by_two_runs_at_once_stay_usable(tmp_path: Path) -> None:
    """Two runs open a cache written before the checkpoint column existed; both add it, and
    the one that comes second (the column already there) opens it all the same."""
    import sqlite3

    from inspect_culture.judging.cache import add_column

    path = tmp_path / "replies.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE replies (key TEXT PRIMARY KEY, text TEXT)")
        db.execute("INSERT INTO replies VALUES ('k', 'Rating: [[7]]')")
    first = sqlite3.connect(path)
    add_column(first, "replies", "judge TEXT")  # the other run, between our look and our ALTER
    add_column(first, "replies", "judge TEXT")  # the same statement again: no error
    first.close()
    assert JudgeCache(path).get("k") == "Rating: [[7]]"
    with sqlite3.connect(tmp_path / "other.sqlite") as db, pytest.raises(sqlite3.OperationalError):
        add_column(db, "missing_table", "judge TEXT")  # other errors are not swallowed


def test_other_judgments_go_on_while_a_verdict_is_committed(tmp_path: Path, monkeypatch) -> None:
    """A verdict's commit (a WAL checkpoint's fsync: milliseconds) holds the cache's writer
    thread, not the event loop: the other reply is read while the first commit waits for it.
    Both verdicts are committed when `judge_all` returns."""
    import sqlite3
    import threading

    from inspect_culture.judging import http_client

    path = tmp_path / "judge.sqlite"
    cache = JudgeCache(path)
    second_reply_read, first_commit = threading.Event(), {}
    database = cache._db

    class FirstCommitWaits:
        """The cache's connection, whose first COMMIT waits until the second reply is read."""

        def __getattr__(self, name: str):
            return getattr(database, name)

        def execute(self, sql: str, *args):
            if sql == "COMMIT" and not first_commit:
                first_commit["other_reply_read"] = second_reply_read.wait(10)
            return database.execute(sql, *args)

    cache._db = FirstCommitWaits()
    replies: list[str] = []
    redact = http_client.redact

    def reading(text: str, secrets: tuple[str, ...] = ()) -> str:
        replies.append(text)
        if len(replies) == 2:
            second_reply_read.set()
        return redact(text, secrets)

    monkeypatch.setattr(http_client, "redact", reading)  # each reply read goes through it
    with StubOpenAIServer(responder=lambda p, b: "Rating: [[7]]") as server:
        results = judge_all_sync(_judge(server, cache, concurrency=2), _batch(2))
    assert [r.text for r in results] == ["Rating: [[7]]"] * 2
    assert first_commit == {"other_reply_read": True}
    rows = sqlite3.connect(path).execute("SELECT text FROM replies").fetchall()
    assert rows == [("Rating: [[7]]",)] * 2

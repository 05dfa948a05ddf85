"""Shared fixtures. Every test runs offline: the download endpoint points at a closed local
port unless a test starts its own local HTTP server, and caches and logs live in tmp dirs."""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai.model import ModelAPI

from inspect_culture.benchmarks.normad.source import NORMAD
from tests.support.cqbench_data import ad_items, install_folder_mirror, original_items, vs_items
from tests.support.culturesynth_data import write_culturesynth_jsonl
from tests.support.openai_stub import StubOpenAIServer

DATA = Path(__file__).parent / "data"
NORMAD_SAMPLE = DATA / "normad_sample.csv"
# the floor releases' wheels, which scripts/compat downloads: the install test runs only there
WHEELHOUSE_ENV = "INSPECT_CULTURE_WHEELHOUSE"


# Tests bound to the wall clock. By file name (the folder may move), ALL for every test of the
# file; tests/test_serial_tests.py checks that each name exists.
ALL = frozenset({"*"})
# The benchmark scripts' storms and rate limits (benchmarks/judge_chaos.py, rate_limits.py):
# each runs the harnesses in subprocesses against retry budgets and 429 windows of seconds, with
# margins that hold on a loaded machine; run one at a time, on one pytest-xdist worker (an
# `xdist_group`), never beside one another.
ONE_AT_A_TIME: dict[str, frozenset[str]] = {
    "test_judge_chaos.py": ALL,
    "test_full_scale_and_rate_limits.py": frozenset(
        {"test_rate_limits_runs_tiny", "test_rate_limits_storms_end_or_recover"}
    ),
}
ONE_AT_A_TIME_GROUP = "benchmark-scripts-storms"
# Tight bounds (an elapsed time of a few seconds, a budget of 1-2.5 s, a 30-s stop): a busy
# neighbour could fail them, so scripts/run-tests and scripts/compat run them in a pass of their
# own, alone, after the parallel pass (`--serial-tests=skip`, then `--serial-tests=only`).
SERIAL_TESTS: dict[str, frozenset[str]] = {
    # Retry-After waits and retry budgets of 1-2.5 s, checked against the elapsed time
    "test_judge_retries.py": frozenset(
        {
            "test_retry_after_is_waited_out",
            "test_a_short_rate_limit_window_ends_scored",
            "test_a_spent_budget_ends_unscored_saying_so",
            "test_the_budget_bounds_a_hanging_judgment",
        }
    ),
    # llama.cpp's server stops within 30 s of a Ctrl-C
    "test_local_server_cli.py": frozenset(
        {"test_local_server_prints_the_arguments_and_stops_on_ctrl_c"}
    ),
    # a provider's limits refilling over a 0.2-s "minute"
    "test_judge_pacing.py": frozenset(
        {"test_the_client_judges_everything_at_a_providers_limits_without_paying_twice"}
    ),
    # the preflight's 1-s wall clock and elapsed-time bounds
    "test_inspect_judge_preflight.py": frozenset(
        {
            "test_unreachable_grader_stops_before_generation_without_hanging",
            "test_hung_grader_is_cut_by_the_preflight_wall_clock",
            "test_a_server_inspect_starts_itself_gets_its_start_up_time",
        }
    ),
    # judge_timeout of 1.2-2 s against hangs, queues and a 429 storm, with elapsed-time bounds
    "test_inspect_judge_reasons.py": frozenset(
        {
            "test_hung_judgment_ends_unscored_at_judge_timeout_and_the_eval_goes_on",
            "test_a_hung_attempt_is_abandoned_and_retried",
            "test_judge_timeout_counts_from_the_first_attempt_not_the_connection_queue",
            "test_a_judgment_timed_out_in_a_429_storm_names_the_judges_last_answer",
        }
    ),
}
# A pytest process of their own, beside the main pass (`--serial-tests=beside`,
# scripts/pytest-passes.sh), one test after the other, in file order; none is bound to seconds
# (their commands have minutes to answer):
BESIDE_TESTS: dict[str, frozenset[str]] = {
    # every documented command, in the documents' order, in one working folder (a later
    # document uses an earlier one's outputs): never split or interleaved
    "test_documented_commands.py": ALL,
    # llama.cpp's server: on its default of a thread on every core, beside other work, the
    # main job's 30-s judge preflight timed out on the 2-core machine (twice, the second time in
    # CI's compat floor), so these tests run it on one thread (docs/local-model.md, "Threads"),
    # and two servers never overlap
    "test_judge_constraints.py": frozenset({"test_grammar_compiles_in_llama_cpp"}),
    "test_local_model_smoke.py": ALL,
    # the longest test of the main pass (about 2.5 min: every benchmark at a tiny scale in both
    # harnesses), moved here so that both processes end at about the same time
    "test_full_scale_and_rate_limits.py": frozenset({"test_full_scale_runs_tiny"}),
    # fresh venvs of the floor and newest lm-eval with the wheel installed (about 5 min; only
    # where scripts/compat gives a wheelhouse): beside the compat floor's main pass, not in it
    "test_lm_eval_discovery.py": ALL,
}
SERIAL_CHOICES = ("skip", "only", "beside")
# scripts/compat runs two environments' beside passes at once: each of their tests that may
# start llama.cpp's server holds this lock (a file), so that two servers never run at once; the
# fresh-venv packaging tests (no llama.cpp) run without it, beside the other environment's.
BESIDE_LOCK_ENV = "INSPECT_CULTURE_BESIDE_LOCK"
NO_LLAMA_CPP = frozenset({"test_lm_eval_discovery.py"})


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--serial-tests",
        choices=SERIAL_CHOICES,
        default=None,
        help="skip: deselect the timing-bound tests and those run beside the main pass (the main"
        " pass); only: run just the timing-bound ones; beside: just the others (BESIDE_TESTS)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "serial: timing-bound, runs alone after the parallel pass (tests/conftest.py)"
    )
    config.addinivalue_line(
        "markers", "beside: a process of its own, beside the main pass (tests/conftest.py)"
    )


def _listed(item: pytest.Item, table: dict[str, frozenset[str]]) -> bool:
    names = table.get(item.path.name)
    function = getattr(item, "originalname", item.name)
    return names is not None and (names is ALL or function in names)


def _module_scoped(item: pytest.Item) -> bool:
    """Whether the test uses a fixture built once per module (a workspace, a built wheel)."""
    fixtures = getattr(item, "_fixtureinfo", None)
    return fixtures is not None and any(
        defs and defs[-1].scope == "module" for defs in fixtures.name2fixturedefs.values()
    )


def _grouped(item: pytest.Item) -> bool:
    return item.get_closest_marker("xdist_group") is not None


def _deselect(config: pytest.Config, items: list[pytest.Item], keep) -> None:
    kept = [item for item in items if keep(item)]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect (not skip) the install test outside scripts/compat: it needs the floor wheels.
    Mark the timing-bound tests `serial` and those run beside the main pass `beside` (and keep
    or drop them as --serial-tests says), and
    keep tests on one pytest-xdist worker (`--dist loadgroup`): the storm scripts, one at a time,
    and a module's tests when they share a module-scoped fixture: built once, and run in file
    order (the documented commands' one working folder)."""
    if not os.environ.get(WHEELHOUSE_ENV):
        _deselect(config, items, lambda item: item.get_closest_marker("packaging") is None)
    for item in items:
        if _listed(item, SERIAL_TESTS):
            item.add_marker(pytest.mark.serial)
        if _listed(item, BESIDE_TESTS):
            item.add_marker(pytest.mark.beside)
        if _listed(item, ONE_AT_A_TIME):
            item.add_marker(pytest.mark.xdist_group(ONE_AT_A_TIME_GROUP))
        elif _module_scoped(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # longest first: the slow tests (end-to-end runs, seconds to minutes each) before the
        # fast ones, so that no worker starts a long one while the other has nothing left (a
        # group keeps its own order)
        items.sort(key=lambda item: not (_grouped(item) or item.get_closest_marker("slow")))
    wanted = config.getoption("--serial-tests")
    if wanted:
        _deselect(config, items, lambda item: _pass_of(item) == wanted)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Skip importing a test file none of whose tests the --serial-tests pass runs: collecting
    every module costs a pass about 12 s of CPU (inspect_ai, lm-eval), which the short passes
    (the timing-bound one runs alone, on the critical path) paid three times a CI run. What each
    pass runs is unchanged: the tests of such a file were deselected before."""
    wanted = config.getoption("--serial-tests", default=None)
    name = collection_path.name
    if not wanted or not (name.startswith("test_") and name.endswith(".py")):
        return None
    if wanted == "only":
        return name not in SERIAL_TESTS or None
    if wanted == "beside":
        return name not in BESIDE_TESTS or None
    # the main pass: a file whose every test runs in one of the other two passes
    return (BESIDE_TESTS.get(name) is ALL and name not in SERIAL_TESTS) or None


def _pass_of(item: pytest.Item) -> str:
    """The --serial-tests pass a test runs in: "only" (timing-bound), "beside" or "skip"."""
    if item.get_closest_marker("serial") is not None:
        return "only"
    if item.get_closest_marker("beside") is not None:
        return "beside"
    return "skip"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def holds_beside_lock(item: pytest.Item) -> bool:
    """Whether the test runs beside the main pass and may start llama.cpp's server."""
    return _listed(item, BESIDE_TESTS) and item.path.name not in NO_LLAMA_CPP


@pytest.fixture(autouse=True)
def _one_llama_cpp_at_a_time(request: pytest.FixtureRequest) -> Iterator[None]:
    """With INSPECT_CULTURE_BESIDE_LOCK set (scripts/compat), a beside-pass test that may start
    llama.cpp's server waits for that file lock and holds it while it runs. A lock over the
    whole pass made the newest environment's five llama.cpp tests (30 s) wait for the floor's
    seven-minute packaging tests, then run alone at the end."""
    lock = os.environ.get(BESIDE_LOCK_ENV)
    if not lock or not holds_beside_lock(request.node):
        yield
        return
    with open(lock, "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
        yield


@pytest.fixture(autouse=True)
def _environment_restored() -> Iterator[None]:
    """Each test starts from the same environment. Code run in the test's process may set a
    variable for the rest of the process (main_job's `os.environ.setdefault` of
    INSPECT_CULTURE_JUDGE_CACHE): left behind, it gave every later test one shared judge cache,
    and a test was served another's verdicts (seen under pytest-xdist, which runs the local-model
    smoke early)."""
    saved = dict(os.environ)
    yield
    if os.environ != saved:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(autouse=True)
def _isolated(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path_factory.mktemp("isolated")
    monkeypatch.setenv("INSPECT_CULTURE_CACHE_DIR", str(root / "cache"))
    monkeypatch.setenv("INSPECT_CULTURE_HF_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.setenv("INSPECT_LOG_DIR", str(root / "logs"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(root / "inspect_cache"))
    # lm-eval and datasets must not reach the hub; our own loader is kept offline by the closed
    # endpoint above, so that tests can tell "tried the network" from "offline mode".
    for name in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("INSPECT_CULTURE_DATA_DIR", raising=False)
    monkeypatch.delenv("INSPECT_CULTURE_OFFLINE", raising=False)
    # Inspect's mock model estimates token usage with tiktoken, which downloads its encoding:
    # offline, count roughly (4 characters a token) instead.
    monkeypatch.setattr(ModelAPI, "count_text_tokens", _offline_token_estimate)


async def _offline_token_estimate(self: ModelAPI, text: str) -> int:
    return max(1, len(text) // 4)


@pytest.fixture
def normad_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An offline mirror holding the synthetic NormAd sample under its upstream name."""
    target = tmp_path / "mirror" / "normad" / "normad_etiquette_final_data.csv"
    target.parent.mkdir(parents=True)
    shutil.copy(NORMAD_SAMPLE, target)
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path / "mirror"))
    return target


@pytest.fixture
def stub_server() -> Iterator[StubOpenAIServer]:
    with StubOpenAIServer() as server:
        yield server


@pytest.fixture
def inspect_stub_env(stub_server: StubOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """Environment for Inspect's `openai-api/stub/<model>` provider; returns the model name."""
    monkeypatch.setenv("STUB_API_KEY", "test-key")
    monkeypatch.setenv("STUB_BASE_URL", stub_server.base_url)
    return "openai-api/stub/stub-model"


@pytest.fixture(autouse=True)
def _stub_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # Inspect's openai-api provider insists on a key even for a local server.
    monkeypatch.setenv("STUB_API_KEY", "test-key")


@pytest.fixture
def full_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """One offline mirror with small synthetic data for every benchmark (upstream formats)."""
    root = tmp_path / "mirror"
    (root / "normad").mkdir(parents=True)
    shutil.copy(DATA / "normad_sample.csv", root / "normad" / NORMAD.filename)
    shutil.copytree(DATA / "care_ratings", root / "care" / "data")
    install_folder_mirror(
        root,
        {
            "dataset_setting1_social.json": ad_items(),
            "dataset_setting2_ethical.json": vs_items(),
            "dataset_social_original.json": original_items(),
        },
    )
    write_culturesynth_jsonl(root / "culturesynth" / "culturesynth.jsonl")
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(root))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf_cache"))
    return root

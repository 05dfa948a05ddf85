"""Shared fixtures. Every test runs offline: the download endpoint points at a closed local
port unless a test starts its own local HTTP server, and caches and logs live in tmp dirs."""

from __future__ import annotations

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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect (not skip) the install test outside scripts/compat: it needs the floor wheels."""
    if os.environ.get(WHEELHOUSE_ENV):
        return
    kept = [item for item in items if item.get_closest_marker("packaging") is None]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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

"""The offline-mirror rule: with `INSPECT_CULTURE_DATA_DIR` set, no loader touches the network.

Each test serves the real file from a local HTTP server configured as the dataset's source, so a
loader that downloads would succeed: the server must see zero requests, and the error must say
which file to put where, once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.benchmarks.cqbench.data import load_cqbench
from inspect_culture.benchmarks.cqbench.source import CQBENCH
from inspect_culture.benchmarks.culturesynth.data import load_culturesynth
from inspect_culture.benchmarks.culturesynth.source import CULTURESYNTH
from inspect_culture.benchmarks.normad.data import load_normad
from inspect_culture.benchmarks.normad.source import NORMAD
from inspect_culture.datasets_hub import DatasetUnavailableError
from tests.conftest import NORMAD_SAMPLE
from tests.support.cqbench_data import build_zip, pin_to
from tests.support.http_files import FileServer

NORMAD_URL_PATH = f"/datasets/{NORMAD.repo_id}/resolve/{NORMAD.revision}/{NORMAD.filename}"
CQBENCH_URL_PATH = f"/{CQBENCH.repo}/{CQBENCH.revision}/{CQBENCH.path}"
CULTURESYNTH_URL_PATH = f"/{CULTURESYNTH.repo}/{CULTURESYNTH.revision}/{CULTURESYNTH.path}"
RULE = "Nothing is downloaded while INSPECT_CULTURE_DATA_DIR is set"


@pytest.fixture
def empty_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "mirror"
    root.mkdir()
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(root))
    return root


def _hub(monkeypatch: pytest.MonkeyPatch) -> FileServer:
    """A server holding every downloadable file at its upstream path, as both endpoints."""
    cq_zip = build_zip()
    pin_to(monkeypatch, cq_zip)
    server = FileServer(
        {
            NORMAD_URL_PATH: NORMAD_SAMPLE.read_bytes(),
            CQBENCH_URL_PATH: cq_zip,
            CULTURESYNTH_URL_PATH: b"not really an xlsx",
        }
    )
    monkeypatch.setenv("INSPECT_CULTURE_HF_ENDPOINT", server.url)
    monkeypatch.setenv("INSPECT_CULTURE_GITHUB_ENDPOINT", server.url)
    return server


LOADERS: dict[str, tuple[Callable[[], Any], str]] = {
    "normad": (load_normad, "normad/normad_etiquette_final_data.csv"),
    "cqbench": (lambda: load_cqbench("ad", "social"), "cqbench/datasets.zip"),
    "culturesynth": (load_culturesynth, "culturesynth/QA_7lang_annotated.xlsx"),
}


@pytest.mark.parametrize("name", list(LOADERS))
def test_missing_mirror_file_is_one_message_and_no_request(
    name: str, empty_mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    load, relpath = LOADERS[name]
    with _hub(monkeypatch) as hub:
        with pytest.raises(DatasetUnavailableError) as info:
            load()
        assert hub.hits == []
    message = str(info.value)
    filename = relpath.rsplit("/", 1)[1]
    assert f"put {filename} at {empty_mirror / relpath}" in message, message
    assert message.count(" put ") == 1, message
    assert RULE in message
    assert "HTTP" not in message and "cannot reach" not in message


def test_cqbench_message_names_the_extracted_folder_too(
    empty_mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _hub(monkeypatch) as hub, pytest.raises(DatasetUnavailableError) as info:
        load_cqbench("vs", "social")
    assert hub.hits == []
    assert f"or the extracted folder {empty_mirror / 'cqbench' / 'datasets'}" in str(info.value)


def test_cache_is_still_read_with_the_mirror_set(
    empty_mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache is local: a file downloaded earlier is used, still without a request."""
    with _hub(monkeypatch) as hub:
        monkeypatch.delenv("INSPECT_CULTURE_DATA_DIR")
        assert load_normad().provenance["origin"] == "download"
        monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(empty_mirror))
        assert load_normad().provenance["origin"] == "cache"
        assert hub.hits == [NORMAD_URL_PATH]


def test_care_ratings_never_ask_the_hub_with_the_mirror_set(
    empty_mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import datasets

    from inspect_culture.benchmarks.care.ratings import load_care_ratings

    calls: list[tuple[Any, ...]] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        raise AssertionError("datasets.load_dataset must not be called")

    monkeypatch.setattr(datasets, "load_dataset", spy)
    with _hub(monkeypatch) as hub, pytest.raises(DatasetUnavailableError) as info:
        load_care_ratings("zh")
    assert calls == [] and hub.hits == []
    message = str(info.value)
    assert "put its data files (train-*.parquet" in message
    assert f"in {empty_mirror / 'care' / 'data'}" in message
    assert RULE in message


def test_verify_and_info_never_download_with_the_mirror_set(
    empty_mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_culture.data_status import data_info, verify

    with _hub(monkeypatch) as hub:
        report, ok = verify()
        info = data_info()
        assert hub.hits == []
    assert not ok
    assert report.count(RULE) == 3, report  # normad, cqbench, culturesynth; CARE is packaged
    assert "care: OK" in report
    assert "downloads on first use" not in info
    assert f"no (put normad_etiquette_final_data.csv at {empty_mirror}" in info

import hashlib
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.benchmarks.cqbench.data import load_cqbench, load_ve_stories
from inspect_culture.benchmarks.cqbench.source import CQBENCH
from inspect_culture.datasets_hub import DatasetUnavailableError, DataValidationError
from tests.support.cqbench_data import (
    ad_items,
    build_zip,
    install_folder_mirror,
    original_items,
    pin_to,
    use_zip_mirror,
    vs_items,
)
from tests.support.http_files import FileServer

GITHUB_PATH = f"/{CQBENCH.repo}/{CQBENCH.revision}/{CQBENCH.path}"


@pytest.fixture
def mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The offline mirror folder, `$INSPECT_CULTURE_DATA_DIR`, empty."""
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path / "mirror"))
    return tmp_path / "mirror"


def test_verified_mirror_zip_loads_every_task(mirror, monkeypatch) -> None:
    use_zip_mirror(monkeypatch, mirror)
    ad = load_cqbench("ad", "social")
    assert [r["id"] for r in ad.records] == ["social-0-0", "social-0-1", "social-1-0"]
    first = ad.records[0]
    assert first["options"] == ["agree", "neither agree nor disagree", "disagree"]  # stripped
    assert first["gold"] == "agree" and first["name"] == "Ana"
    vs = load_cqbench("vs", "social").records[0]
    assert len(vs["options"]) == 15 and len(vs["gold_values"]) == 2
    original = load_cqbench("original", "social").records[0]
    assert original["gold_values"] == [
        "Work is important in life--agree",
        "People should obey laws--disagree",
    ]
    assert ad.provenance["origin"] == "mirror"
    assert ad.provenance["revision"] == CQBENCH.revision  # the zip matched its pinned blob id


def test_politic_spelling_is_accepted(mirror, monkeypatch) -> None:
    use_zip_mirror(monkeypatch, mirror)
    loaded = load_cqbench("ad", "political")
    assert loaded.provenance["file"] == "datasets/dataset_setting1_politic.json"
    assert {r["category"] for r in loaded.records} == {"political"}


def test_blob_mismatch_is_an_error(mirror, monkeypatch) -> None:
    use_zip_mirror(monkeypatch, mirror, pinned=False)
    with pytest.raises(DataValidationError, match=f"does not match {CQBENCH.blob_id}"):
        load_cqbench("ad", "social")


def test_download_is_verified_and_cached(monkeypatch) -> None:
    data = build_zip()
    pin_to(monkeypatch, data)
    with FileServer({GITHUB_PATH: data}) as github:
        monkeypatch.setenv("INSPECT_CULTURE_GITHUB_ENDPOINT", github.url)
        assert load_cqbench("vs", "social").provenance["origin"] == "download"
        assert load_cqbench("ad", "social").provenance["origin"] == "cache"
        assert github.hits == [GITHUB_PATH]


def test_corrupt_download_is_rejected_and_removed(monkeypatch) -> None:
    pin_to(monkeypatch, build_zip())
    with FileServer({GITHUB_PATH: b"not the archive"}) as github:
        monkeypatch.setenv("INSPECT_CULTURE_GITHUB_ENDPOINT", github.url)
        with pytest.raises(DataValidationError, match="git blob id"):
            load_cqbench("ad", "social")
        with pytest.raises(DataValidationError, match="git blob id"):
            load_cqbench("ad", "social")  # downloaded again, not trusted from the cache
        assert len(github.hits) == 2


def test_extracted_folder_with_variant_fields(mirror) -> None:
    items = ad_items()
    items[0]["questions"][0]["gold_label"] = items[0]["questions"][0].pop("gold label")
    install_folder_mirror(mirror, {"dataset_setting1_religious.json": {"data": items}})
    loaded = load_cqbench("ad", "religious")
    assert loaded.records[0]["gold"] == "agree"
    assert "unverified" in loaded.provenance["origin"]
    # a folder cannot be matched to the pinned archive: no revision claimed, its file's digest
    assert loaded.provenance["revision"] == "unverified"
    member = mirror / "cqbench" / "datasets" / "dataset_setting1_religious.json"
    assert loaded.provenance["sha256"] == hashlib.sha256(member.read_bytes()).hexdigest()


def test_ve_stories_are_those_with_a_gold_set(mirror) -> None:
    """The one rule both VE adapters read: an all-contradictory story is counted, not evaluated."""
    no_gold = {
        "story": "Gus keeps a promise.",
        "values": ["P--agree"],
        "contradiction": ["P--agree"],
    }
    install_folder_mirror(mirror, {"dataset_social_original.json": [no_gold, *original_items()]})
    loaded, without_gold = load_ve_stories("social")
    assert [r["id"] for r in loaded.records] == ["social-1"] and without_gold == 1
    assert loaded.provenance == load_cqbench("original", "social").provenance


def test_malformed_item_names_file_item_and_field(mirror) -> None:
    items = ad_items()
    del items[1]["questions"][0]["value"]
    install_folder_mirror(mirror, {"dataset_setting1_ethical.json": items})
    with pytest.raises(
        DataValidationError,
        match=r"dataset_setting1_ethical.json, item 1, question 0, field 'value': is missing",
    ):
        load_cqbench("ad", "ethical")


def test_missing_file_lists_what_the_archive_has(mirror, monkeypatch) -> None:
    use_zip_mirror(monkeypatch, mirror)
    with pytest.raises(
        DatasetUnavailableError,
        match="no dataset_setting2_ethical.json.*found: dataset_setting1_politic.json",
    ):
        load_cqbench("vs", "ethical")


def test_unavailable_says_where_to_put_it(mirror, monkeypatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_OFFLINE", "1")
    with pytest.raises(
        DatasetUnavailableError,
        match=f"uscnlp-lime/CQ-Bench.*e9337e5.*{mirror}/cqbench/datasets.zip",
    ):
        load_cqbench("ad", "social")


def test_the_human_category_is_refused_by_name_with_the_reason() -> None:
    """Upstream's README and run scripts name a `human` category (its human-evaluation subset)."""
    from inspect_culture.benchmarks.cqbench.spec import validate

    for task in ("ad", "vs", "ve"):
        with pytest.raises(ValueError, match="setting='human': upstream's `human` files") as raised:
            validate(task, {"setting": "human"})
        assert "human evaluation" in str(raised.value) and "random" in str(raised.value)


def test_parameters_name_allowed_values() -> None:
    with pytest.raises(ValueError, match="category='multiple' is not supported for vs"):
        load_cqbench("vs", "multiple")
    with pytest.raises(ValueError, match="task='qa'"):
        load_cqbench("qa", "social")


def test_verify_reads_every_file_and_reports_a_malformed_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_culture.benchmarks.cqbench.spec import CATEGORIES, STORY_CATEGORIES
    from inspect_culture.data_status import verify

    files = {f"dataset_setting1_{c}.json": ad_items() for c in CATEGORIES}
    for category in STORY_CATEGORIES:
        files[f"dataset_setting2_{category}.json"] = vs_items()
        files[f"dataset_{category}_original.json"] = original_items()
    install_folder_mirror(tmp_path, files)
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path))
    report, ok = verify(["cqbench"])
    assert ok, report
    assert f"files:     {len(files)}" in report

    broken = ad_items()
    del broken[0]["story"]
    install_folder_mirror(tmp_path, {"dataset_setting1_religious.json": broken})
    report, ok = verify(["cqbench"])
    assert not ok
    assert "dataset_setting1_religious.json, item 0" in report and "story" in report


def _unanswerable_files() -> dict[str, Any]:
    """AD: two questions whose gold is no option; VS: one gold value that is no option."""
    ad = ad_items()
    ad[0]["questions"][1]["gold label"] = " strongly disagree "
    ad[1]["questions"][0]["gold label"] = "Sometimes"
    vs = vs_items()
    vs[0]["values"] = [*vs[0]["values"], "Honesty matters--agree"]
    return {"dataset_setting1_ethical.json": ad, "dataset_setting2_ethical.json": vs}


def test_gold_not_among_options_is_kept_counted_and_warned_once(
    mirror, caplog: pytest.LogCaptureFixture
) -> None:
    install_folder_mirror(mirror, _unanswerable_files())
    with caplog.at_level(logging.WARNING, logger="inspect_culture.benchmarks.cqbench.data"):
        ad = load_cqbench("ad", "ethical")
    # kept, as upstream keeps them (scored wrong there too): the item count matches upstream
    assert [r["id"] for r in ad.records] == ["ethical-0-0", "ethical-0-1", "ethical-1-0"]
    assert ad.provenance["gold_not_among_options"] == 2
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings
    assert "dataset_setting1_ethical.json" in warnings[0]
    assert "2 of 3 questions" in warnings[0] and "'gold label'" in warnings[0]
    assert "ethical-0-1 (item 0, question 1)" in warnings[0]
    assert "ethical-1-0 (item 1, question 0)" in warnings[0]
    assert "'strongly disagree'" in warnings[0]

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="inspect_culture.benchmarks.cqbench.data"):
        vs = load_cqbench("vs", "ethical")
    assert vs.provenance["gold_not_among_options"] == 1
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "dataset_setting2_ethical.json" in warning and "1 of 1 stories" in warning
    assert "'values'" in warning and "'Honesty matters--agree'" in warning


def test_answerable_gold_gives_no_warning(mirror, caplog: pytest.LogCaptureFixture) -> None:
    install_folder_mirror(mirror)
    with caplog.at_level(logging.WARNING, logger="inspect_culture.benchmarks.cqbench.data"):
        ad = load_cqbench("ad", "social")  # gold " agree " vs option " agree ": padding ignored
        vs = load_cqbench("vs", "social")
    assert ad.provenance["gold_not_among_options"] == 0
    assert vs.provenance["gold_not_among_options"] == 0
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_verify_counts_gold_not_among_options(tmp_path: Path, monkeypatch) -> None:
    from inspect_culture.benchmarks.cqbench.spec import CATEGORIES, STORY_CATEGORIES
    from inspect_culture.data_status import verify

    files: dict[str, Any] = {f"dataset_setting1_{c}.json": ad_items() for c in CATEGORIES}
    for category in STORY_CATEGORIES:
        files[f"dataset_setting2_{category}.json"] = vs_items()
        files[f"dataset_{category}_original.json"] = original_items()
    files.update(_unanswerable_files())
    install_folder_mirror(tmp_path, files)
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path))
    report, ok = verify(["cqbench"])
    assert ok, report  # reported, not refused
    assert "cqbench: OK, with a warning" in report
    assert "gold_not_among_options: 3" in report, report
    assert (
        "dataset_setting1_ethical.json: 2" in report
        and "dataset_setting2_ethical.json: 1" in report
    )


@pytest.mark.parametrize(
    ("file", "mutate", "where"),
    [
        (
            "dataset_setting1_ethical.json",
            lambda d: d[0].update(story=None),
            "item 0, field 'story'",
        ),
        (
            "dataset_setting1_ethical.json",
            lambda d: d[1]["questions"][0].update({"gold label": None}),
            "item 1, question 0, field 'gold label'",
        ),
        (
            "dataset_setting1_ethical.json",
            lambda d: d[0]["questions"][1].update(value=3),
            "item 0, question 1, field 'value'",
        ),
        (
            "dataset_setting2_ethical.json",
            lambda d: d[0].update(story=["a"]),
            "item 0, field 'story'",
        ),
        (
            "dataset_ethical_original.json",
            lambda d: d[0].update(story=None),
            "item 0, field 'story'",
        ),
    ],
)
def test_non_string_text_is_refused_not_stringified(mirror, file: str, mutate, where: str) -> None:
    # str(None) == "None" used to pass as a story or gold label
    items = {"1": ad_items(), "2": vs_items(), "o": original_items()}[
        "1" if "setting1" in file else "2" if "setting2" in file else "o"
    ]
    mutate(items)
    install_folder_mirror(mirror, {file: items})
    task = "ad" if "setting1" in file else "vs" if "setting2" in file else "original"
    with pytest.raises(
        DataValidationError, match=rf"{file}, {re.escape(where)}: expected a string"
    ):
        load_cqbench(task, "ethical")


def test_nul_in_a_json_string_is_refused(mirror) -> None:
    items = vs_items()
    items[0]["options"][3] = "Statement\u00003--agree"
    install_folder_mirror(mirror, {"dataset_setting2_ethical.json": items})
    with pytest.raises(
        DataValidationError,
        match=r"dataset_setting2_ethical.json, item 0, field 'options': contains a NUL byte",
    ):
        load_cqbench("vs", "ethical")


def test_odd_options_are_kept_counted_and_warned(mirror, caplog: pytest.LogCaptureFixture) -> None:
    """A VS story without the 15 options its prompt names, or an item that repeats an option
    (AD compared as the parser compares), is kept and said once per file."""
    ad = ad_items()
    ad[0]["questions"][0]["options"] = [*ad[0]["questions"][0]["options"], " Agree"]
    vs = vs_items()
    vs[0]["options"] = vs[0]["options"][:14]
    install_folder_mirror(
        mirror, {"dataset_setting1_ethical.json": ad, "dataset_setting2_ethical.json": vs}
    )
    with caplog.at_level(logging.WARNING, logger="inspect_culture.benchmarks.cqbench.data"):
        loaded_ad = load_cqbench("ad", "ethical")
        loaded_vs = load_cqbench("vs", "ethical")
    assert loaded_ad.provenance["odd_options"] == 1 and loaded_vs.provenance["odd_options"] == 1
    assert len(loaded_vs.records[0]["options"]) == 14  # kept as upstream has it
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("ethical-0-0" in w and "option 'agree' given twice" in w for w in warnings)
    assert any("ethical-0 (item 0): 14 options, the prompt says 15" in w for w in warnings)


def test_verify_counts_odd_options(tmp_path: Path, monkeypatch) -> None:
    from inspect_culture.benchmarks.cqbench.spec import CATEGORIES, STORY_CATEGORIES
    from inspect_culture.data_status import verify

    files: dict[str, Any] = {f"dataset_setting1_{c}.json": ad_items() for c in CATEGORIES}
    for category in STORY_CATEGORIES:
        files[f"dataset_setting2_{category}.json"] = vs_items()
        files[f"dataset_{category}_original.json"] = original_items()
    vs = vs_items()
    vs[0]["options"] = [*vs[0]["options"], vs[0]["options"][0]]
    files["dataset_setting2_social.json"] = vs
    install_folder_mirror(tmp_path, files)
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path))
    report, ok = verify(["cqbench"])
    assert ok, report
    assert "odd_options: 1 (dataset_setting2_social.json: 1)" in report, report
    assert "cqbench: OK, with a warning" in report

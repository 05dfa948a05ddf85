import json
import logging
import socket
from pathlib import Path

import openpyxl
import pytest

from inspect_culture.benchmarks.cqbench.source import CQBENCH
from inspect_culture.benchmarks.culturesynth.data import (
    COLUMNS_ENV,
    LANGUAGES,
    TOPICS,
    derived_id,
    load_culturesynth,
)
from inspect_culture.benchmarks.culturesynth.source import CULTURESYNTH
from inspect_culture.data_status import data_info, verify
from inspect_culture.datasets_hub import DatasetUnavailableError, DataValidationError
from inspect_culture.datasets_hub.validation import load_schema
from tests.support.culturesynth_data import (
    SAMPLE_ROWS,
    UPSTREAM_HEADERS,
    write_culturesynth_csv,
    write_culturesynth_jsonl,
    write_culturesynth_xlsx,
)
from tests.support.http_files import FileServer

GITHUB_PATH = f"/{CULTURESYNTH.repo}/main/{CULTURESYNTH.path}"
NO_ID = {k: v for k, v in UPSTREAM_HEADERS.items() if k != "id"}


@pytest.fixture(autouse=True)
def _no_github(monkeypatch: pytest.MonkeyPatch) -> None:
    """conftest closes only the Hugging Face endpoint; close the GitHub one too."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("INSPECT_CULTURE_GITHUB_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.delenv(COLUMNS_ENV, raising=False)


@pytest.fixture
def mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The mirror's culturesynth/ folder, empty."""
    folder = tmp_path / "mirror" / "culturesynth"
    folder.mkdir(parents=True)
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path / "mirror"))
    return folder


def _expected(row: dict[str, str]) -> dict[str, str]:
    return {**row, "topic_abbr": TOPICS[row["primary_topic"]]}


def test_taxonomy_is_the_papers_and_matches_the_schema() -> None:
    assert list(TOPICS.values()) == ["SS", "PP", "RT", "PS", "LAW", "EDU", "LAN", "LIT", "MED", "AST", "ART", "RSE"]  # fmt: skip
    assert TOPICS["Recreation, Sports, and Entertainment"] == "RSE"
    schema = load_schema("inspect_culture.benchmarks.culturesynth", "culturesynth")["properties"]
    assert schema["primary_topic"]["enum"] == list(TOPICS)
    assert schema["topic_abbr"]["enum"] == list(TOPICS.values())
    assert schema["language"]["enum"] == list(LANGUAGES)
    assert not CULTURESYNTH.pinned and CQBENCH.pinned


def test_xlsx_mirror_under_upstream_name(mirror: Path, monkeypatch) -> None:
    target = write_culturesynth_xlsx(mirror / "QA_7lang_annotated.xlsx")
    with FileServer({}) as github:
        monkeypatch.setenv("INSPECT_CULTURE_GITHUB_ENDPOINT", github.url)
        loaded = load_culturesynth()
        assert github.hits == []
    assert loaded.records == [_expected(row) for row in SAMPLE_ROWS]
    prov = loaded.provenance
    assert prov["origin"] == "mirror" and prov["path"] == str(target)
    assert prov["rows"] == len(SAMPLE_ROWS) and len(prov["sha256"]) == 64
    assert prov["revision"] == "unknown" and prov["pinned"] is False
    assert prov["languages"] == ["fr", "ja", "zh"]
    assert prov["columns"]["primary_topic"] == "Primary Topic"


@pytest.mark.parametrize("writer", [write_culturesynth_jsonl, write_culturesynth_csv])
def test_normalized_jsonl_and_csv_mirrors(mirror: Path, writer) -> None:
    name = "culturesynth.jsonl" if writer is write_culturesynth_jsonl else "culturesynth.csv"
    writer(mirror / name)
    loaded = load_culturesynth()
    assert loaded.records == [_expected(row) for row in SAMPLE_ROWS]
    assert loaded.provenance["file"] == name


def test_upstream_xlsx_wins_over_normalized_files(mirror: Path) -> None:
    write_culturesynth_jsonl(mirror / "culturesynth.jsonl", SAMPLE_ROWS[:1])
    write_culturesynth_xlsx(mirror / "QA_7lang_annotated.xlsx")
    assert load_culturesynth().provenance["file"] == "QA_7lang_annotated.xlsx"


def test_sheet_per_language_without_id_column(tmp_path: Path) -> None:
    path = write_culturesynth_xlsx(tmp_path / "qa.xlsx", headers=NO_ID, sheet_per_language=True)
    records = load_culturesynth(path=path).records
    assert [r["language"] for r in records] == [row["language"] for row in SAMPLE_ROWS]
    assert [r["id"] for r in records] == [
        derived_id(row["language"], row["question"]) for row in SAMPLE_ROWS
    ]
    assert records[0]["id"].startswith("zh-") and len(records[0]["id"]) == len("zh-") + 12


def test_sheet_language_contradicting_column_is_an_error(tmp_path: Path) -> None:
    path = write_culturesynth_xlsx(tmp_path / "qa.xlsx", sheet_per_language=True)
    workbook = openpyxl.load_workbook(path)
    sheet = workbook["ja"]
    sheet.cell(1, 6, "Language")
    sheet.cell(2, 6, "ja")
    sheet.cell(3, 6, "fr")
    workbook.save(path)
    with pytest.raises(
        DataValidationError, match=r"sheet 'ja', row 3, field 'Language'.*contradicts"
    ):
        load_culturesynth(path=path)


def test_ids_do_not_depend_on_row_order(tmp_path: Path) -> None:
    rows = [{k: v for k, v in row.items() if k != "id"} for row in SAMPLE_ROWS]
    # the same question twice in one language: told apart without looking at row order
    rows.append({**rows[0], "answer": "也吃柚子。"})
    forward = load_culturesynth(path=write_culturesynth_jsonl(tmp_path / "a.jsonl", rows))
    backward = load_culturesynth(path=write_culturesynth_jsonl(tmp_path / "b.jsonl", rows[::-1]))

    def by_id(loaded) -> dict[str, tuple[str, str]]:
        return {r["id"]: (r["question"], r["answer"]) for r in loaded.records}

    assert by_id(forward) == by_id(backward)
    assert len(by_id(forward)) == len(rows)
    base = derived_id("zh", rows[0]["question"])
    assert by_id(forward)[base][1] == "也吃柚子。"  # sorted by answer
    assert by_id(forward)[f"{base}-2"][1] == "月饼。"


def test_repeated_id_names_both_rows(tmp_path: Path) -> None:
    rows = [dict(row) for row in SAMPLE_ROWS]
    rows[4]["id"] = rows[1]["id"]
    path = write_culturesynth_xlsx(tmp_path / "qa.xlsx", rows)
    with pytest.raises(
        DataValidationError,
        match=r"sheet 'QA', row 6, field 'id': value 'zh-0002' repeats .*sheet 'QA', row 3",
    ):
        load_culturesynth(path=path)
    # the documented way out: derive ids from the question instead
    loaded = load_culturesynth(path=path, column_map={"id": ""})
    assert loaded.records[4]["id"] == derived_id("ja", rows[4]["question"])


def test_column_override_by_parameter_and_env(tmp_path: Path, monkeypatch) -> None:
    headers = {**UPSTREAM_HEADERS, "question": "Frage", "answer": "Antwort"}
    path = write_culturesynth_xlsx(tmp_path / "qa.xlsx", headers=headers)
    with pytest.raises(DataValidationError, match="no column for question, answer"):
        load_culturesynth(path=path)
    loaded = load_culturesynth(path=path, column_map={"question": "Frage", "answer": "antwort"})
    assert loaded.records[0]["question"] == SAMPLE_ROWS[0]["question"]
    assert loaded.provenance["columns"]["answer"] == "Antwort"
    monkeypatch.setenv(COLUMNS_ENV, json.dumps({"question": "Frage", "answer": "Antwort"}))
    assert load_culturesynth(path=path).records[-1]["answer"] == SAMPLE_ROWS[-1]["answer"]
    # the parameter wins over the variable, per field
    with pytest.raises(
        DataValidationError, match="column 'Nope' given for 'answer'.*found columns: ID, Frage"
    ):
        load_culturesynth(path=path, column_map={"answer": "Nope"})


def test_bad_overrides_name_the_setting(tmp_path: Path, monkeypatch) -> None:
    path = write_culturesynth_jsonl(tmp_path / "qa.jsonl")
    with pytest.raises(ValueError, match="column_map: unknown field.*quest.*allowed: id, question"):
        load_culturesynth(path=path, column_map={"quest": "Q"})
    monkeypatch.setenv(COLUMNS_ENV, "{not json")
    with pytest.raises(ValueError, match=COLUMNS_ENV):
        load_culturesynth(path=path)


def test_missing_column_lists_found_columns_and_the_override(tmp_path: Path) -> None:
    headers = {k: v for k, v in UPSTREAM_HEADERS.items() if k != "answer"}
    path = write_culturesynth_xlsx(tmp_path / "qa.xlsx", headers=headers)
    with pytest.raises(DataValidationError) as info:
        load_culturesynth(path=path)
    message = str(info.value)
    assert f"{path}, sheet 'QA': no column for answer" in message
    assert "found columns: ID, Question, Language, Primary Topic, Secondary Topic" in message
    assert 'column_map={"answer": "<column>"}' in message and COLUMNS_ENV in message


@pytest.mark.parametrize(
    ("kind", "where"),
    [("xlsx", r"sheet 'QA', row 3"), ("csv", r"data row 2"), ("jsonl", r"line 2")],
)
def test_unknown_topic_and_language_name_file_row_and_field(tmp_path, kind, where) -> None:
    def write(rows, name):
        if kind == "xlsx":
            return write_culturesynth_xlsx(tmp_path / f"{name}.xlsx", rows)
        upstream = [{UPSTREAM_HEADERS[k]: v for k, v in row.items()} for row in rows]
        if kind == "csv":
            return write_culturesynth_csv(tmp_path / f"{name}.csv", upstream)
        return write_culturesynth_jsonl(tmp_path / f"{name}.jsonl", upstream)

    rows = [dict(row) for row in SAMPLE_ROWS]
    rows[1]["primary_topic"] = "Cooking"
    path = write(rows, "topic")
    with pytest.raises(DataValidationError) as info:
        load_culturesynth(path=path)
    message = str(info.value)
    assert str(path) in message
    assert f"{path}, {where}, field 'Primary Topic': value 'Cooking' is not a primary" in message
    assert (
        "Social Sciences (SS)" in message
        and "Recreation, Sports, and Entertainment (RSE)" in message
    )

    rows = [dict(row) for row in SAMPLE_ROWS]
    rows[1]["language"] = "Klingon"
    with pytest.raises(
        DataValidationError,
        match=rf"{where}, field 'Language': value 'Klingon' is not a known language; allowed values: ar, es, fr, ja, ko, pt, zh",
    ):
        load_culturesynth(path=write(rows, "language"))


def test_empty_answer_is_rejected(tmp_path: Path) -> None:
    rows = [dict(row) for row in SAMPLE_ROWS]
    rows[2]["answer"] = "  "
    with pytest.raises(DataValidationError, match=r"line 3, field 'answer': must not be empty"):
        load_culturesynth(path=write_culturesynth_jsonl(tmp_path / "qa.jsonl", rows))


def test_nul_byte_in_csv_is_refused_naming_row_and_field(tmp_path: Path) -> None:
    rows = [{UPSTREAM_HEADERS[k]: v for k, v in row.items()} for row in SAMPLE_ROWS]
    rows[1][UPSTREAM_HEADERS["answer"]] = "A reference<NUL> answer"
    path = write_culturesynth_csv(tmp_path / "qa.csv", rows)
    # (put in after writing: Python 3.10's csv writer cannot write a NUL byte)
    path.write_bytes(path.read_bytes().replace(b"<NUL>", b"\x00"))
    with pytest.raises(DataValidationError) as info:
        load_culturesynth(path=path)
    message = str(info.value)
    assert str(path) in message and "NUL" in message
    assert "row 2" in message and "answer" in message.lower()


def test_spelling_variants_are_normalized(tmp_path: Path) -> None:
    variants = [
        ("Japanese", "rse"),
        ("zh-CN", "  social   SCIENCES "),
        ("FR", "Recreation, Sports & Entertainment"),
        ("中文", "LIT"),
    ]
    rows = [
        {"question": f"q{i}", "answer": "a", "lang": lang, "topic": topic}
        for i, (lang, topic) in enumerate(variants)
    ]
    records = load_culturesynth(path=write_culturesynth_jsonl(tmp_path / "qa.jsonl", rows)).records
    assert [(r["language"], r["topic_abbr"]) for r in records] == [
        ("ja", "RSE"), ("zh", "SS"), ("fr", "RSE"), ("zh", "LIT"),
    ]  # fmt: skip
    assert records[0]["primary_topic"] == "Recreation, Sports, and Entertainment"
    assert records[0]["secondary_topic"] == ""


def test_merged_topic_cells_and_extra_sheets(tmp_path: Path) -> None:
    path = write_culturesynth_xlsx(tmp_path / "qa.xlsx")
    workbook = openpyxl.load_workbook(path)
    sheet = workbook["QA"]
    sheet.cell(3, 5, None)
    sheet.merge_cells("E2:E3")  # rows 2-3 share "Social Sciences"... as the merged cell's value
    notes = workbook.create_sheet("README", 0)
    notes.append(["About this file"])
    workbook.save(path)
    records = load_culturesynth(path=path).records
    assert len(records) == len(SAMPLE_ROWS)
    assert records[1]["primary_topic"] == "Social Sciences"


def test_download_goes_to_the_cache_once(tmp_path: Path, monkeypatch, caplog) -> None:
    payload = write_culturesynth_xlsx(tmp_path / "upstream.xlsx").read_bytes()
    with FileServer({GITHUB_PATH: payload}) as github:
        monkeypatch.setenv("INSPECT_CULTURE_GITHUB_ENDPOINT", github.url)
        with caplog.at_level(logging.WARNING):
            first = load_culturesynth()
        second = load_culturesynth(["ja"])
        assert github.hits == [GITHUB_PATH]
    assert first.provenance["origin"] == "download" and second.provenance["origin"] == "cache"
    assert first.provenance["revision"] == "main" and first.provenance["pinned"] is False
    assert Path(second.provenance["path"]).read_bytes() == payload
    assert "culturesynth/main/QA_7lang_annotated.xlsx" in second.provenance["path"]
    assert first.provenance["sha256"] == second.provenance["sha256"]
    assert "not pinned" in caplog.text
    assert {r["language"] for r in second.records} == {"ja"}


def test_a_non_xlsx_download_is_named(monkeypatch) -> None:
    pointer = b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n"
    with FileServer({GITHUB_PATH: pointer}) as github:
        monkeypatch.setenv("INSPECT_CULTURE_GITHUB_ENDPOINT", github.url)
        with pytest.raises(DataValidationError, match="not an xlsx workbook.*Git LFS pointer"):
            load_culturesynth()


def test_offline_without_mirror_says_what_to_put_where(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path / "mirror"))
    monkeypatch.setenv("INSPECT_CULTURE_OFFLINE", "1")
    with pytest.raises(DatasetUnavailableError) as info:
        load_culturesynth()
    message = str(info.value)
    assert "offline mode is on" in message and "Eyr3/CultureSynth" in message
    assert f"{tmp_path}/mirror/culturesynth/QA_7lang_annotated.xlsx" in message
    assert "culturesynth.jsonl" in message and "unpinned" in message


def test_failed_download_says_what_to_put_where(monkeypatch) -> None:
    with FileServer({}) as github:  # 404
        monkeypatch.setenv("INSPECT_CULTURE_GITHUB_ENDPOINT", github.url)
        with pytest.raises(DatasetUnavailableError) as info:
            load_culturesynth()
    message = str(info.value)
    assert "HTTP 404" in message and "INSPECT_CULTURE_DATA_DIR=<dir>" in message
    assert "<dir>/culturesynth/QA_7lang_annotated.xlsx" in message


def test_language_filter(mirror: Path) -> None:
    write_culturesynth_jsonl(mirror / "culturesynth.jsonl")
    assert {r["language"] for r in load_culturesynth(["ja"]).records} == {"ja"}
    both = load_culturesynth("zh,fr")
    assert {r["language"] for r in both.records} == {"zh", "fr"}
    assert both.provenance["rows"] == 5 and both.provenance["languages"] == ["fr", "zh"]
    assert len(load_culturesynth(["Japanese", "ja"]).records) == 2
    with pytest.raises(ValueError, match=r"languages='xx' is not supported; allowed values: ar, es, fr, ja, ko, pt, zh"):  # fmt: skip
        load_culturesynth(["zh", "xx"])
    with pytest.raises(DataValidationError, match="no rows for language.*ko; languages in the file: fr, ja, zh"):  # fmt: skip
        load_culturesynth(["ko"])


def test_data_info_and_verify_list_culturesynth(mirror: Path) -> None:
    write_culturesynth_jsonl(mirror / "culturesynth.jsonl")
    info = data_info(["culturesynth"])
    assert "Eyr3/CultureSynth" in info and "branch main (unpinned" in info
    assert f"available: yes (mirror: {mirror / 'culturesynth.jsonl'}; 7 rows)" in info
    report, ok = verify(["culturesynth"])
    assert ok and "culturesynth: OK" in report and "sha256:" in report

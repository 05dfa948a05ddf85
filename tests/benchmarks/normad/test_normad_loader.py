import csv
import unicodedata
from pathlib import Path

import pytest

from inspect_culture.benchmarks.normad.data import load_normad
from inspect_culture.benchmarks.normad.source import NORMAD
from inspect_culture.benchmarks.normad.taxonomy import COUNTRY_TO_IW, IW_CLUSTERS, SUBCATEGORIES
from inspect_culture.datasets_hub import DatasetUnavailableError, DataValidationError
from inspect_culture.datasets_hub.validation import load_schema, validate_record
from tests.conftest import NORMAD_SAMPLE
from tests.support.http_files import FileServer

HF_PATH = f"/datasets/{NORMAD.repo_id}/resolve/{NORMAD.revision}/{NORMAD.filename}"


def _rows() -> list[dict[str, str]]:
    with NORMAD_SAMPLE.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _write(path: Path, rows: list[dict[str, str]], columns: list[str] | None = None) -> Path:
    columns = columns or list(rows[0])
    # Python 3.10's csv writer cannot write a NUL byte: written as a marker, then put back
    marked = [{k: str(v).replace("\x00", "<NUL>") for k, v in row.items()} for row in rows]
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(marked)
    path.write_text(path.read_text(encoding="utf-8").replace("<NUL>", "\x00"), encoding="utf-8")
    return path


def test_loads_sample_with_derived_fields() -> None:
    loaded = load_normad(NORMAD_SAMPLE)
    assert len(loaded.records) == 16
    first = loaded.records[0]
    assert first["id"] == "0" and first["country"] == "egypt"
    assert first["iw_cluster"] == "african_islamic" and first["subcategory"] == "basic_etiquette"
    by_id = {r["id"]: r for r in loaded.records}
    assert by_id["4"]["country"] == "türkiye" and by_id["4"]["subcategory"] == "eating"
    assert by_id["13"]["subcategory"] == "gifts"  # raw "gift-giving"
    assert by_id["15"]["subcategory"] == "basic_etiquette"  # raw "‘taarof’_(...)"
    assert by_id["10"]["iw_cluster"] == "west_south_asia"  # timor-leste
    assert "\n- " in first["background"]  # multi-line quoted field survives
    assert loaded.provenance["rows"] == 16
    # no digest of the file at the pinned revision is known to this release: never claimed
    assert loaded.provenance["revision"] == "unverified"
    assert len(loaded.provenance["sha256"]) == 64
    assert "malformed_rows" not in loaded.provenance and "warning" not in loaded.provenance


def test_the_pinned_revision_only_for_the_pinned_file(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from inspect_culture.benchmarks.normad import data
    from inspect_culture.datasets_hub.hashing import sha256_file

    monkeypatch.setattr(data, "NORMAD", replace(NORMAD, sha256=sha256_file(NORMAD_SAMPLE)))
    assert load_normad(NORMAD_SAMPLE).provenance["revision"] == NORMAD.revision
    monkeypatch.setattr(data, "NORMAD", replace(NORMAD, sha256="0" * 64))
    other = load_normad(NORMAD_SAMPLE).provenance
    assert other["revision"] == "unverified" and other["sha256"] == sha256_file(NORMAD_SAMPLE)


def test_a_malformed_row_is_counted_and_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Upstream's row 2568 has the Background `eating`: kept (upstream scores it), reported."""
    rows = _rows()
    rows[3]["Background"] = "eating"
    path = _write(tmp_path / NORMAD.filename, rows)
    with caplog.at_level("WARNING"):
        loaded = load_normad(path)
    assert len(loaded.records) == 16  # kept
    assert loaded.provenance["malformed_rows"] == 1
    warning = loaded.provenance["warning"]
    assert f"data row 4 (ID {rows[3]['ID']})" in warning and str(path) in warning
    assert warning in caplog.text


def test_taxonomy_matches_upstream_sizes_and_schema() -> None:
    assert len(COUNTRY_TO_IW) == 75
    assert len(set(COUNTRY_TO_IW.values())) == 8
    schema = load_schema("inspect_culture.benchmarks.normad", "normad")["properties"]
    assert schema["iw_cluster"]["enum"] == list(IW_CLUSTERS)
    assert schema["subcategory"]["enum"] == list(SUBCATEGORIES)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r[3].update({"Gold Label": "maybe"}), r"data row 4 \(ID 3\), field 'Gold Label': value 'maybe' is not one of: yes, no, neutral"),
        (lambda r: r[1].update({"Story": "   "}), r"data row 2 \(ID 1\), field 'Story': must not be empty"),
        (lambda r: r[0].update({"Country": "atlantis"}), r"data row 1 \(ID 0\), field 'Country': value 'atlantis' has no known Inglehart-Welzel cluster"),
        (lambda r: r[5].update({"Subaxis": "dancing"}), r"data row 6 \(ID 5\), field 'Subaxis': value 'dancing' has no known subcategory"),
        (lambda r: r[2].update({"ID": "1"}), r"data row 3, field 'ID': value '1' repeats data row 2"),
    ],
)  # fmt: skip
def test_bad_rows_name_file_row_and_field(tmp_path: Path, mutate, message: str) -> None:
    rows = _rows()
    mutate(rows)
    path = _write(tmp_path / "bad.csv", rows)
    with pytest.raises(DataValidationError, match=message) as info:
        load_normad(path)
    assert str(path) in str(info.value)


def test_missing_column_lists_what_was_found(tmp_path: Path) -> None:
    rows = _rows()
    columns = [c for c in rows[0] if c != "Rule-of-Thumb"]
    path = _write(tmp_path / "bad.csv", rows, columns)
    with pytest.raises(
        DataValidationError, match=r"missing column\(s\) Rule-of-Thumb; found columns: ID, Country"
    ):
        load_normad(path)


def test_gold_label_case_and_whitespace_are_normalized(tmp_path: Path) -> None:
    rows = _rows()
    rows[0]["Gold Label"] = " Yes "
    assert load_normad(_write(tmp_path / "ok.csv", rows)).records[0]["gold_label"] == "yes"


def test_mirror_is_used_without_network(normad_mirror: Path, monkeypatch) -> None:
    with FileServer({}) as hub:
        monkeypatch.setenv("INSPECT_CULTURE_HF_ENDPOINT", hub.url)
        loaded = load_normad()
        assert hub.hits == []
    assert loaded.provenance["origin"] == "mirror"
    assert loaded.provenance["path"] == str(normad_mirror)


def test_downloads_pinned_revision_once_then_uses_cache(monkeypatch) -> None:
    payload = NORMAD_SAMPLE.read_bytes()
    with FileServer({HF_PATH: payload}) as hub:
        monkeypatch.setenv("INSPECT_CULTURE_HF_ENDPOINT", hub.url)
        first = load_normad()
        second = load_normad()
        assert hub.hits == [HF_PATH]
    assert first.provenance["origin"] == "download"
    assert second.provenance["origin"] == "cache"
    assert Path(second.provenance["path"]).read_bytes() == payload
    assert NORMAD.revision in second.provenance["path"]


def test_unreachable_source_says_what_to_put_where(tmp_path: Path, monkeypatch) -> None:
    # no mirror: the loader downloads, and a failed download says how to run offline
    with FileServer({}) as hub:  # 404 for everything
        monkeypatch.setenv("INSPECT_CULTURE_HF_ENDPOINT", hub.url)
        with pytest.raises(DatasetUnavailableError) as info:
            load_normad()
        assert hub.hits == [HF_PATH]
    message = str(info.value)
    assert "HTTP 404" in message
    assert "akhilayerukola/NormAd" in message and NORMAD.revision in message
    assert "set INSPECT_CULTURE_DATA_DIR=<dir>" in message
    assert "<dir>/normad/normad_etiquette_final_data.csv" in message
    assert not list((tmp_path).rglob("*.part"))  # no partial file left behind


@pytest.mark.parametrize("variable", ["INSPECT_CULTURE_OFFLINE", "HF_HUB_OFFLINE"])
def test_offline_mode_never_tries_the_network(variable: str, monkeypatch) -> None:
    with FileServer({HF_PATH: NORMAD_SAMPLE.read_bytes()}) as hub:
        monkeypatch.setenv("INSPECT_CULTURE_HF_ENDPOINT", hub.url)
        monkeypatch.setenv(variable, "1")
        with pytest.raises(
            DatasetUnavailableError, match="offline mode is on.*INSPECT_CULTURE_DATA_DIR=<dir>"
        ):
            load_normad()
        assert hub.hits == []


def test_not_utf8_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.csv"
    path.write_bytes(
        NORMAD_SAMPLE.read_text(encoding="utf-8")
        .encode("latin-1", "replace")
        .replace(b"egypt", b"\xe9gypt")
    )
    with pytest.raises(DataValidationError, match=r"latin1.csv: not UTF-8"):
        load_normad(path)


def test_header_only_file_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "empty.csv", [], list(_rows()[0]))
    with pytest.raises(DataValidationError, match="empty.csv: no data rows"):
        load_normad(path)


def test_decomposed_unicode_country_is_normalised(tmp_path: Path) -> None:
    rows = _rows()
    rows[4]["Country"] = unicodedata.normalize("NFD", "türkiye")
    assert rows[4]["Country"] != "türkiye"
    record = load_normad(_write(tmp_path / "nfd.csv", rows)).records[4]
    assert record["country"] == "türkiye" and record["iw_cluster"] == "african_islamic"


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + NORMAD_SAMPLE.read_bytes())
    assert len(load_normad(path).records) == 16


def test_schema_rejects_wrong_types() -> None:
    record = {
        k: "x" for k in load_schema("inspect_culture.benchmarks.normad", "normad")["required"]
    }
    record.update(gold_label="yes", iw_cluster="confucian", subcategory="eating", extra=1)
    with pytest.raises(DataValidationError, match="here, field '<record>'"):
        validate_record("inspect_culture.benchmarks.normad", "normad", record, where="here")


@pytest.mark.parametrize(("column", "row"), [("Story", 2), ("Gold Label", 1), ("Rule-of-Thumb", 3)])
def test_nul_byte_is_refused_naming_file_row_and_field(
    tmp_path: Path, column: str, row: int
) -> None:
    # csv reads NUL bytes as ordinary characters (3.11+; NulSafeDictReader on 3.10): the loader must refuse
    # them itself (a NUL in a story or label is a corrupt file, never upstream text).
    rows = _rows()
    rows[row - 1][column] = rows[row - 1][column][:5] + "\x00" + rows[row - 1][column][5:]
    path = _write(tmp_path / "nul.csv", rows)
    with pytest.raises(DataValidationError) as info:
        load_normad(path)
    message = str(info.value)
    assert message.startswith(f"{path}, data row {row} (ID {rows[row - 1]['ID']}), ")
    assert f"field '{column}': contains a NUL byte" in message


def test_nul_byte_in_header_or_extra_cell_is_refused(tmp_path: Path) -> None:
    header = tmp_path / "header.csv"
    text = NORMAD_SAMPLE.read_text(encoding="utf-8")
    header.write_text(text.replace("Story", "Sto\x00ry", 1), encoding="utf-8")
    with pytest.raises(DataValidationError, match=r"header\.csv, header: .*NUL byte"):
        load_normad(header)
    rows = [{**record, "Note": ""} for record in _rows()]  # a column the loader does not use
    rows[0]["Note"] = "a\x00b"
    extra = _write(tmp_path / "extra.csv", rows)
    with pytest.raises(
        DataValidationError, match=r"extra\.csv, data row 1 \(ID 0\), field 'Note': contains a NUL"
    ):
        load_normad(extra)

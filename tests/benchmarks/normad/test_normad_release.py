"""Which NormAd release a file is: 20 real rows of the 2024 release and the hub's row 2259
(tests/data/README.md), the provenance that records it, and the report that shows it."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from inspect_culture.benchmarks.normad.data import load_normad
from inspect_culture.benchmarks.normad.release import (
    RELEASE_2024,
    RELEASE_V2,
    UNKNOWN,
    identify_release,
)
from inspect_culture.data_status import verify
from inspect_culture.datasets_hub.hashing import sha256_file
from inspect_culture.normad import normad
from inspect_culture.report.inspect_logs import read_inspect_log
from inspect_culture.report.model import RunInfo
from inspect_culture.report.tables.normad import SECTION, normad_tables
from tests.conftest import DATA, NORMAD_SAMPLE

ROWS_2024 = DATA / "normad_2024_rows_a.csv"
HUB_2259 = DATA / "normad_hub_row_2259.jsonl"
COLUMNS = ["ID", "Country", "Background", "Axis", "Subaxis", "Value", "Rule-of-Thumb", "Story"]
COLUMNS += ["Explanation", "Gold Label"]


def _rows_2024() -> list[dict[str, str]]:
    with ROWS_2024.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _with_hub_row(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    hub = json.loads(HUB_2259.read_text(encoding="utf-8"))
    return [{k: str(v) for k, v in hub.items()} if r["ID"] == "2259" else r for r in rows]


def _full_size(rows: list[dict[str, str]], count: int) -> list[dict[str, str]]:
    """`count` rows: the given ones, then copies of its first yes/no row under new IDs."""
    filler = next(r for r in rows if r["Gold Label"] != "neutral")
    extra = [{**filler, "ID": str(10_000 + i)} for i in range(count - len(rows))]
    return rows + extra


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_the_test_data_are_the_shared_copies() -> None:
    """Byte for byte what ../shared/upstream/normad/SOURCE.md describes."""
    assert sha256_file(ROWS_2024) == (
        "2d8b6692fbbba6faf1a187c37cbe8cff3e333d8516c4d248e5cc5db121cff2c1"
    )
    hub = json.loads(HUB_2259.read_text(encoding="utf-8"))
    assert (hub["ID"], hub["Country"], hub["Gold Label"]) == (2259, "papua_new_guinea", "neutral")


def test_twenty_rows_of_2024_are_told_by_the_sentinel() -> None:
    provenance = load_normad(ROWS_2024).provenance
    assert provenance["release"] == RELEASE_2024.name == "2024"
    assert (
        provenance["release_evidence"]
        == "row 2259 (ID 2259) as in 2024; 20 rows, a part of its 2,633"
    )
    assert provenance["rows"] == 20 and provenance["sha256"] == sha256_file(ROWS_2024)


def test_the_hubs_row_2259_tells_the_fixed_release(tmp_path: Path) -> None:
    path = _write(tmp_path / "hub.csv", _with_hub_row(_rows_2024()))
    provenance = load_normad(path).provenance
    assert provenance["release"] == RELEASE_V2.name == "v2-neutral-fix"
    assert "a part of its 2,615" in provenance["release_evidence"]


def test_the_sentinel_is_found_by_content_whatever_its_id(tmp_path: Path) -> None:
    rows = [{**r, "ID": str(int(r["ID"]) + 5)} for r in _rows_2024()]  # a re-numbered export
    loaded = load_normad(_write(tmp_path / "renumbered.csv", rows))
    assert loaded.provenance["release"] == "2024"
    assert "row 2259 (ID 2264)" in loaded.provenance["release_evidence"]


@pytest.mark.parametrize(
    ("hub", "count", "release", "evidence"),
    [
        (False, 2633, "2024", "row 2259 (ID 2259) as in 2024; 2,633 rows"),
        (True, 2615, "v2-neutral-fix", "row 2259 (ID 2259) as in v2-neutral-fix; 2,615 rows"),
        # the two signals disagree: neither release
        (True, 2633, UNKNOWN, "as in v2-neutral-fix, but 2,633 rows as in 2024"),
        (False, 2615, UNKNOWN, "as in 2024, but 2,615 rows as in v2-neutral-fix"),
    ],
)
def test_the_full_size_count_confirms_or_contradicts_the_sentinel(
    hub: bool, count: int, release: str, evidence: str
) -> None:
    loaded = load_normad(ROWS_2024).records
    if hub:
        hub_row = json.loads(HUB_2259.read_text(encoding="utf-8"))
        loaded = [
            {**r, "country": hub_row["Country"], "background": hub_row["Background"]}
            | {"explanation": hub_row["Explanation"]}
            if r["id"] == "2259"
            else r
            for r in loaded
        ]
    filler = next(r for r in loaded if r["gold_label"] != "neutral")
    records = loaded + [{**filler, "id": str(10_000 + i)} for i in range(count - len(loaded))]
    match = identify_release(records)
    assert (match.name, evidence in match.evidence) == (release, True), match


def test_without_the_sentinel_the_full_size_count_decides(tmp_path: Path) -> None:
    rows = [r for r in _rows_2024() if r["ID"] != "2259"]
    path = _write(tmp_path / "no_sentinel.csv", _full_size(rows, 2615))
    provenance = load_normad(path).provenance
    assert provenance["release"] == "v2-neutral-fix"
    assert provenance["release_evidence"] == "row 2259 not found; 2,615 rows as in v2-neutral-fix"


def test_a_file_of_neither_release_is_accepted_as_unknown_with_its_digest(tmp_path: Path) -> None:
    """Bad input: recorded, never refused."""
    synthetic = load_normad(NORMAD_SAMPLE)
    assert len(synthetic.records) == 16
    assert synthetic.provenance["release"] == UNKNOWN
    assert synthetic.provenance["sha256"] == sha256_file(NORMAD_SAMPLE)
    assert synthetic.provenance["release_evidence"] == (
        "row 2259 not found; 16 rows, neither release's count (2,633, 2,615)"
    )
    # row 2259 half-edited (the hub's Country, 2024's Background and Explanation): neither
    rows = [{**r, "Country": "papua_new_guinea"} if r["ID"] == "2259" else r for r in _rows_2024()]
    edited = load_normad(_write(tmp_path / "edited.csv", rows))
    assert len(edited.records) == 20 and edited.provenance["release"] == UNKNOWN
    assert "Country ('papua_new_guinea')" in edited.provenance["release_evidence"]
    assert edited.provenance["sha256"] == sha256_file(tmp_path / "edited.csv")


def _mirror_2024(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 20 rows where the loader looks first: $INSPECT_CULTURE_DATA_DIR/normad/<file>."""
    mirror = tmp_path / "mirror" / "normad" / "normad_etiquette_final_data.csv"
    mirror.parent.mkdir(parents=True)
    mirror.write_bytes(ROWS_2024.read_bytes())
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path / "mirror"))


def test_data_verify_prints_the_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _mirror_2024(tmp_path, monkeypatch)
    text, ok = verify(["normad"])
    assert ok and "release:" in text and " 2024\n" in text
    assert "row 2259 (ID 2259) as in 2024; 20 rows, a part of its 2,633" in text


def test_the_release_reaches_the_inspect_log_and_the_reports_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _mirror_2024(tmp_path, monkeypatch)
    task = normad(context="country")
    assert task.metadata["dataset"]["release"] == "2024"
    model = get_model("mockllm/model")
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    run = read_inspect_log(Path(log.location))
    assert run.setting == {"context": "country", "parser": "strict", "release": "2024"}
    [row] = next(t for t in normad_tables([run], []) if t.key == "normad_context").rows
    assert row.setting == "release=2024"


def test_the_lm_eval_task_records_the_release_in_its_provenance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loader's mapping, as is: lm-eval writes it to configs.<task>.metadata.provenance."""
    from inspect_culture.lm_eval_tasks.normad import utils

    _mirror_2024(tmp_path, monkeypatch)
    slot: dict[str, Any] = {}
    utils.load_docs({"context": "country"}, provenance=slot)
    assert slot["release"] == "2024" and slot["sha256"] == sha256_file(ROWS_2024)
    assert slot["release_evidence"].startswith("row 2259 (ID 2259) as in 2024")


def test_the_lm_eval_setting_reads_the_release_from_the_task_provenance() -> None:
    metadata = {"parser": "strict", "provenance": {"release": "2024", "rows": 20}}
    setting = SECTION.lm_eval_setting("normad_rot", metadata)
    assert setting == {"context": "rot", "parser": "strict", "release": "2024"}
    # a run made before the release was recorded: its setting as it was
    assert SECTION.lm_eval_setting("normad_rot", {}) == {"context": "rot", "parser": "strict"}


def _run(tmp_path: Path, model: str, release: str | None, harness: str = "inspect") -> RunInfo:
    setting: dict[str, Any] = {"context": "country", "parser": "strict"}
    if release:
        setting["release"] = release
    return RunInfo(
        path=tmp_path / f"{model}-{release}-{harness}.eval",
        harness=harness,
        benchmark="NormAd-ETI",
        task="normad",
        setting=setting,
        model=model,
        metrics={"accuracy": 0.5},
        samples=20,
        dataset_sha256="ab" * 32,
    )


def _mixing(warnings: list[str]) -> list[str]:
    return [w for w in warnings if "different NormAd releases" in w]


def test_two_releases_in_one_table_are_separate_rows_and_warned(tmp_path: Path) -> None:
    runs = [_run(tmp_path, "m", "2024"), _run(tmp_path, "m", "v2-neutral-fix", "lm-eval")]
    warnings: list[str] = []
    [table] = normad_tables(runs, warnings)
    assert [r.setting for r in table.rows] == ["release=2024", "release=v2-neutral-fix"]
    [warning] = _mixing(warnings)
    assert "'NormAd-ETI: accuracy by context'" in warning
    assert "2024: m [inspect], the paper's published rows" in warning
    assert "v2-neutral-fix: m [lm-eval]" in warning


def test_a_fixed_release_beside_the_papers_rows_is_warned(tmp_path: Path) -> None:
    warnings: list[str] = []
    normad_tables([_run(tmp_path, "m", "v2-neutral-fix")], warnings)
    [warning] = _mixing(warnings)
    assert (
        "2024: the paper's published rows" in warning and "v2-neutral-fix: m [inspect]" in warning
    )


def test_an_unknown_release_is_named_by_its_digest(tmp_path: Path) -> None:
    warnings: list[str] = []
    normad_tables([_run(tmp_path, "m", UNKNOWN)], warnings)
    [warning] = _mixing(warnings)
    assert f"unknown (sha256 {'ab' * 6}): m [inspect]" in warning


def test_one_release_or_none_recorded_is_not_warned(tmp_path: Path) -> None:
    warnings: list[str] = []
    runs = [_run(tmp_path, "a", "2024"), _run(tmp_path, "b", "2024", "lm-eval")]
    normad_tables(runs, warnings)
    normad_tables([_run(tmp_path, "old", None)], warnings)  # made before releases were recorded
    assert _mixing(warnings) == []

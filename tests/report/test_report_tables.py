"""Known answers for the tables: hand-made outcome records of a few questions, each cell
computed by hand."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.report import records as records_module
from inspect_culture.report.build import check_dependencies
from inspect_culture.report.model import ReportDependencyError, RunInfo
from inspect_culture.report.tables.care import care_tables
from inspect_culture.report.tables.cqbench import cqbench_tables
from inspect_culture.report.tables.normad import normad_tables


@pytest.fixture(autouse=True)
def _fresh_cache():
    records_module.clear_cache()
    yield
    records_module.clear_cache()


def _run(tmp_path: Path, task: str, benchmark: str, setting: dict[str, Any], metrics, records):
    source = tmp_path / f"{task}-{len(records_module._cache)}.eval"
    records_module._cache[source] = records  # as if read from the run's samples
    return RunInfo(
        path=source,
        harness="inspect",
        benchmark=benchmark,
        task=task,
        setting=setting,
        model="org/model",
        metrics=metrics,
        samples=len(records),
        records_source=source,
    )


def _normad(sample_id: str, gold: str, pred: str | None, cluster: str) -> dict[str, Any]:
    return {
        "sample_id": sample_id,
        "gold": gold,
        "pred": pred,
        "rule": "first_word",
        "iw_cluster": cluster,
        "subcategory": "eating",
        "country": "x",
    }


def test_normad_clusters_macro_f1_and_unparsed(tmp_path: Path) -> None:
    records = [
        _normad("1", "yes", "yes", "confucian"),
        _normad("2", "no", "yes", "confucian"),
        _normad("3", "neutral", None, "latin_america"),
        _normad("4", "no", "no", "latin_america"),
    ]
    metrics = {
        "accuracy": 0.5,
        "accuracy_ci_low": 0.0,
        "accuracy_ci_high": 1.0,
        "macro_f1": 4 / 9,  # yes: P 1/2 R 1 F 2/3; no: P 1 R 1/2 F 2/3; neutral 0
        "unparsed_rate": 0.25,
        "accuracy_iw_confucian": 0.5,
        "accuracy_iw_latin_america": 0.5,
    }
    run = _run(
        tmp_path, "normad", "NormAd-ETI", {"context": "rot", "parser": "strict"}, metrics, records
    )
    tables = {t.key: t for t in normad_tables([run], [])}
    [context_row] = tables["normad_context"].rows
    assert context_row.cells["rot"].value == 50.0
    assert (context_row.cells["rot"].ci_low, context_row.cells["rot"].ci_high) == (0.0, 100.0)
    assert context_row.cells["rot"].n == 4
    [cluster_row] = tables["normad_iw"].rows
    assert cluster_row.group == "rot"
    confucian = cluster_row.cells["confucian"]
    assert (confucian.value, confucian.n) == (50.0, 2)
    assert 0.0 <= confucian.ci_low <= 50.0 <= confucian.ci_high <= 100.0
    assert cluster_row.cells["african_islamic"].value is None  # no question: no number, not 0
    [secondary] = tables["normad_secondary"].rows
    assert secondary.cells["macro_f1"].value == pytest.approx(100 * 4 / 9)
    assert secondary.cells["macro_f1"].n == 4
    assert secondary.cells["unparsed_rate"].value == 25.0
    low, high = secondary.cells["macro_f1"].ci_low, secondary.cells["macro_f1"].ci_high
    assert 0.0 <= low < 100 * 4 / 9 < high <= 100.0


def test_normad_without_records_keeps_the_header_and_warns(tmp_path: Path) -> None:
    run = RunInfo(
        path=tmp_path / "results_x.json",
        harness="lm-eval",
        benchmark="NormAd-ETI",
        task="normad_rot",
        setting={"context": "rot", "parser": "strict"},
        model="org/model",
        metrics={"accuracy": 0.75},
        samples=8,
    )
    warnings: list[str] = []
    tables = normad_tables([run], warnings)
    assert [t.key for t in tables] == ["normad_context"]
    assert tables[0].rows[0].cells["rot"].value == 75.0
    [warning] = warnings
    assert "--log_samples" in warning and "org/model (lm-eval)" in warning


def test_cqbench_vs_f1_of_mean_precision_and_recall(tmp_path: Path) -> None:
    stories = [
        {"sample_id": "s1", "category": "ethical", "precision": 1.0, "recall": 0.5},
        {"sample_id": "s2", "category": "ethical", "precision": 0.5, "recall": 0.5},
    ]
    run = _run(
        tmp_path, "cqbench_vs", "CQ-Bench", {"task": "vs", "setting": "ethical"}, {}, stories
    )
    values = [{"sample_id": "e1", "category": "ethical", "value_scores": [1.0, 0.5, None]}]
    ve = _run(tmp_path, "cqbench_ve", "CQ-Bench", {"task": "ve", "setting": "ethical"}, {}, values)
    [table] = cqbench_tables([run, ve], [])
    ethical = next(r for r in table.rows if r.group == "ethical")
    # mean P 0.75, mean R 0.5: F1 = 2 * 0.75 * 0.5 / 1.25 = 0.6
    assert ethical.cells["vs"].value == pytest.approx(0.6)
    assert ethical.cells["vs"].n == 2
    # VE: the two scored gold values; the unscored one is left out, not counted as 0
    assert (ethical.cells["ve"].value, ethical.cells["ve"].n) == (0.75, 2)
    average = next(r for r in table.rows if r.group == "all")
    assert average.cells["vs"].value == pytest.approx(0.6)


def test_a_missing_extra_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "matplotlib" else real(name)
    )
    check_dependencies(("csv", "tex"))  # need nothing beyond the core dependencies
    with pytest.raises(ReportDependencyError) as raised:
        check_dependencies(("html", "csv"))
    assert str(raised.value) == (
        "the report's html output needs matplotlib: pip install 'inspect-culture[report]'"
    )


def test_lm_eval_breakdowns_come_from_the_records(tmp_path: Path) -> None:
    """lm-eval's results hold CARE's overall rating only: each category's rating and interval
    are care_metrics over the samples' records, as the harness computed them before."""

    def rated(qid: str, rating: float | None, category: str) -> dict[str, Any]:
        return {"question_id": qid, "rating": rating, "category": category,
                "geographic_scope": "Nationwide"}  # fmt: skip

    records = [rated("q1", 8.0, "entities"), rated("q2", 6.0, "entities")]
    records += [rated("q3", None, "norms"), rated("q4", 4.0, "norms")]
    header = {"rating": 6.0, "rating_ci_low": 4.0, "rating_ci_high": 8.0, "n_scored": 3.0}
    setting = {"language": "zh", "prompting": "zero_shot", "judge_mapping": "paper"}
    run = replace(
        _run(tmp_path, "care_zh", "CARE", setting, header, records), harness="lm-eval", unscored=1
    )
    [table] = care_tables([run], [])
    [row] = table.rows
    entities, norms = row.cells["entities"], row.cells["norms"]
    assert (entities.value, entities.n, norms.value, norms.n) == (7.0, 2, 4.0, 1)
    assert entities.ci_low == 6.0 and entities.ci_high == 8.0  # two ratings: min and max
    assert row.cells["opinion"].value is None  # no rated question: no number, not 0
    assert (row.cells["overall"].value, row.cells["overall"].n) == (6.0, 3)
    assert (row.cells["overall"].ci_low, row.cells["overall"].ci_high) == (4.0, 8.0)  # header's


def test_lm_eval_records_are_read_from_the_samples_file(tmp_path: Path) -> None:
    record = {"sample_id": "1", "gold": "yes", "pred": "no"}
    samples = tmp_path / "samples_normad_rot_x.jsonl"
    lines = [{"doc": {"story": 'He wrote "accuracy": 5'}, "accuracy": record, "macro_f1": record}]
    samples.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    run = RunInfo(
        path=tmp_path / "results_x.json",
        harness="lm-eval",
        benchmark="NormAd-ETI",
        task="normad_rot",
        setting={"context": "rot"},
        model="org/model",
        metrics={},
        samples=1,
        records_source=samples,
    )
    assert records_module.outcome_records(run) == [record]

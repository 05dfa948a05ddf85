"""`culture-evals report` on real runs: every benchmark run through Inspect and lm-eval against
the stub server (tests/support/report_runs.py), read back into tables, warnings and outputs."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from inspect_culture.cli import EXIT_NOTHING, EXIT_SKIPPED, main
from inspect_culture.report.build import build_report
from inspect_culture.report.model import Report, Row, Table
from inspect_culture.report.records import clear_cache
from tests.support.browser import open_offline
from tests.support.report_runs import make_runs

pytestmark = pytest.mark.slow
TABLES = [
    "normad_context",
    "normad_iw",
    "normad_secondary",
    "care",
    "care_judge_cost",
    "culturesynth",
    "culturesynth_secondary",
    "culturesynth_judge_cost",
    "cqbench",
    "cqbench_judge_cost",
]


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report_runs")
    make_runs(out)
    return out


@pytest.fixture
def report(real_runs: Path) -> Report:
    clear_cache()
    return build_report([real_runs / "inspect", real_runs / "lm_eval"])


def _table(report: Report, key: str) -> Table:
    return next(t for t in report.tables if t.key == key)


def _runs(table: Table, harness: str) -> list[Row]:
    return [r for r in table.rows if r.kind == "run" and r.harness == harness]


def test_every_benchmark_from_both_harnesses(report: Report) -> None:
    assert report.skipped == []
    assert [t.key for t in report.tables] == TABLES
    assert {(r.harness, r.benchmark) for r in report.runs} >= {
        (h, b)
        for h in ("inspect", "lm-eval")
        for b in ("NormAd-ETI", "CARE", "CultureSynth-7", "CQ-Bench")
    }
    for table in report.tables:
        inspect_rows, lm_rows = _runs(table, "inspect"), _runs(table, "lm-eval")
        assert inspect_rows and len(inspect_rows) == len(lm_rows), table.key
        # the parity promise, as the report shows it: same cells, intervals and counts
        for ours, theirs in zip(inspect_rows, lm_rows, strict=True):
            assert (ours.model, ours.group) == (theirs.model, theirs.group)
            assert ours.cells == pytest.approx(theirs.cells) or _same_cells(ours, theirs)
    assert not [w for w in report.warnings if "differs between the harnesses" in w]


def test_both_harnesses_name_the_dataset_read_alike(report: Report) -> None:
    """NormAd's file is unverified (no pinned digest): neither harness claims the revision; and
    the Runs table gives both harnesses the same provenance fields (file sha256, its rows)."""
    labels = {(r.harness, r.dataset) for r in report.runs if r.benchmark == "NormAd-ETI"}
    assert labels == {(h, "akhilayerukola/NormAd@unverified") for h in ("inspect", "lm-eval")}
    for benchmark in ("NormAd-ETI", "CARE"):
        read = {
            (r.harness, r.dataset, r.dataset_sha256, r.dataset_rows)
            for r in report.runs
            if r.benchmark == benchmark and not r.setting.get("aggregate")
        }
        assert {(d, sha, rows) for _, d, sha, rows in read} == {
            (d, sha, rows) for h, d, sha, rows in read if h == "inspect"
        }, read
        assert all(sha and rows for _, _, sha, rows in read), read


def _same_cells(a: Row, b: Row) -> bool:
    for key in a.cells.keys() | b.cells.keys():
        x, y = a.cells[key], b.cells[key]
        assert (x.n, x.value is None) == (y.n, y.value is None), key
        for one, other in ((x.value, y.value), (x.ci_low, y.ci_low), (x.ci_high, y.ci_high)):
            assert one == pytest.approx(other), key
    return True


def test_culturesynth_known_answers(report: Report) -> None:
    """The stub judge's rulings (tests/support/culturesynth_data.py): zh +1, tie, -1; ja tie and
    one unscored; fr +1 and one without a baseline answer."""
    for row in _runs(_table(report, "culturesynth"), "inspect"):
        cells = row.cells
        assert {k: (c.value, c.n) for k, c in cells.items()} == {
            "zh": (0.0, 3),
            "ja": (0.0, 1),
            "fr": (100.0, 1),
            "weighted_average": (20.0, 5),
        }
    [second] = _runs(_table(report, "culturesynth_secondary"), "lm-eval")
    values = {k: c.value for k, c in second.cells.items()}
    assert values == {
        "win_rate": 40.0,
        "tie_rate": 40.0,
        "loss_rate": 20.0,
        "position_consistency": 80.0,
        "unscored": 2.0,
    }


def test_breakdowns_match_the_harness_metrics(report: Report) -> None:
    """Counts and intervals from records; the values are the harness's own."""
    normad = [r for r in report.runs if r.task == "normad" and r.harness == "inspect"]
    by_context = {r.setting["context"]: r for r in normad}
    for row in _runs(_table(report, "normad_iw"), "inspect"):
        run = by_context[row.group]
        assert sum(c.n for c in row.cells.values()) == run.samples
        for cluster, cell in row.cells.items():
            if cell.value is not None:
                assert cell.value == pytest.approx(100 * run.metrics[f"accuracy_iw_{cluster}"])
                assert cell.ci_low <= cell.value <= cell.ci_high
    [care] = [r for r in report.runs if r.task == "care"]
    [row] = _runs(_table(report, "care"), "inspect")
    categories = ("entities", "opinion", "norms", "commonsense", "literacy")
    assert sum(row.cells[c].n for c in categories) == row.cells["overall"].n
    assert row.cells["overall"].n + care.unscored == care.samples == 150
    assert row.cells["unscored"].value == care.unscored > 0
    assert row.cells["overall"].ci_low == pytest.approx(care.metrics["rating_ci_low"])


def test_published_rows_and_judge_warning(report: Report) -> None:
    care = _table(report, "care")
    published = [r for r in care.rows if r.kind == "published"]
    assert published and all(r.source for r in published)
    assert any("judged by" in w and "CARE" in w for w in report.warnings)


def test_cli_writes_every_output(real_runs: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "report"
    code = main(["report", str(real_runs / "inspect"), str(real_runs / "lm_eval"), "-o", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    for name in ("report.html", "report.md", "tables.tex", "results.csv"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0
    assert f"html: {out / 'report.html'}" in printed.out
    assert "warning:" in printed.err  # comparability warnings reach the terminal
    figures = sorted(p.stem for p in (out / "figures").glob("*.png"))
    assert figures == sorted(p.stem for p in (out / "figures").glob("*.pdf"))
    assert {"normad_heatmap", "care_categories", "culturesynth_outcomes", "cqbench_tasks"} <= set(
        figures
    )
    with (out / "results.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    rot = [
        r
        for r in rows
        if r["table"] == "normad_context" and r["metric"] == "rot" and r["kind"] == "run"
    ]
    assert {r["harness"] for r in rot} == {"inspect", "lm-eval"}
    assert len({(r["value"], r["ci_low"], r["ci_high"], r["n"]) for r in rot}) == 1


def test_the_command_flushes_everything_before_its_quick_exit(
    real_runs: Path, tmp_path: Path
) -> None:
    """`culture-evals report` leaves through `os._exit`: its output and files must all be out."""
    out = tmp_path / "report"
    args = ["report", str(real_runs / "inspect"), str(real_runs / "lm_eval"), "-o", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "inspect_culture.cli", *args],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.rstrip().endswith(f"figures: {out / 'figures'}"), done.stdout
    assert "warning:" in done.stderr
    assert (out / "results.csv").read_text(encoding="utf-8").count("\n") > 10
    nothing = subprocess.run(
        [sys.executable, "-m", "inspect_culture.cli", "report", str(tmp_path / "none"), "-o",
         str(tmp_path / "none_out")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert nothing.returncode == EXIT_NOTHING, nothing.stderr
    assert "nothing to report" in nothing.stderr


def test_report_of_real_runs_in_a_real_browser(real_runs: Path, tmp_path: Path) -> None:
    """As a person opens it: from disk, network off; every figure loads, nothing errs. The
    screenshot is kept in the test's temporary folder."""
    out = tmp_path / "report"
    assert (
        main(["report", str(real_runs / "inspect"), str(real_runs / "lm_eval"), "-o", str(out)])
        == 0
    )
    check = open_offline(out / "report.html", tmp_path / "report.png")
    assert (check.blocked, check.errors, check.failed) == ([], [], [])
    figures = len(list((out / "figures").glob("*.png")))
    assert len(check.images) == figures == 6
    assert all(image["complete"] and image["w"] > 0 for image in check.images), check.images
    assert (tmp_path / "report.png").stat().st_size > 50_000


def test_only_the_requested_formats(real_runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "csv_only"
    assert main(["report", str(real_runs / "lm_eval"), "-o", str(out), "--format", "csv"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["results.csv"]


_IMPORTS_MATPLOTLIB = """
import sys
from inspect_culture.cli import main
import inspect_culture.inspect_entry_point, inspect_culture.lm_eval_tasks.care.utils  # tasks load
code = main(["report", sys.argv[1], "-o", sys.argv[2], "--format", sys.argv[3]])
print(code, "matplotlib" in sys.modules)
"""


@pytest.mark.parametrize(("formats", "imported"), [("csv,tex", False), ("figures", True)])
def test_matplotlib_is_imported_only_to_draw(
    real_runs: Path, tmp_path: Path, formats: str, imported: bool
) -> None:
    """Loading the tasks and a report without figures never import matplotlib."""
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTS_MATPLOTLIB, str(real_runs / "lm_eval"), str(tmp_path),
         formats],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["0", str(imported)]


def _copy_lm_eval_results(real_runs: Path, tmp_path: Path, task: str) -> tuple[Path, dict]:
    """A copy of the lm-eval run holding `task`, samples file included, to alter."""
    for results in sorted((real_runs / "lm_eval").rglob("results_*.json")):
        data = json.loads(results.read_text(encoding="utf-8"))
        if task in data["results"]:
            target = tmp_path / "altered" / results.name
            target.parent.mkdir(parents=True, exist_ok=True)
            stamp = results.stem.removeprefix("results_")
            for samples in results.parent.glob(f"samples_*_{stamp}.jsonl"):
                shutil.copy(samples, target.parent / samples.name)
            return target, data
    raise AssertionError(task)


def test_harness_disagreement_is_shown_side_by_side(real_runs: Path, tmp_path: Path) -> None:
    target, data = _copy_lm_eval_results(real_runs, tmp_path, "normad_rot")
    data["results"]["normad_rot"]["accuracy,none"] = 0.9
    target.write_text(json.dumps(data), encoding="utf-8")
    clear_cache()
    report = build_report([real_runs / "inspect", target])
    [warning] = [w for w in report.warnings if "differs between the harnesses" in w]
    assert "stub-model" in warning and "RoT 18.8 (Inspect) vs 90.0 (lm-eval)" in warning


def test_different_judges_and_limits_are_warned(real_runs: Path, tmp_path: Path) -> None:
    target, data = _copy_lm_eval_results(real_runs, tmp_path, "care_zh")
    data["configs"]["care_zh"]["metadata"]["judge_model"] = "other-judge"
    data["config"]["limit"] = 5
    target.write_text(json.dumps(data), encoding="utf-8")
    clear_cache()
    report = build_report([real_runs / "inspect", target])
    [judges] = [w for w in report.warnings if "differ in judge" in w]
    # each run named by model, harness and setting
    assert (
        "other-judge (stub-model [lm-eval; " in judges and "judge (stub-model [inspect; " in judges
    )
    assert judges.count("language=zh") == 2
    assert any("differ in subset or --limit" in w and "limit=5" in w for w in report.warnings)
    assert any("cover part of the test set" in w for w in report.warnings)


def test_cli_skips_bad_inputs_and_says_so(real_runs: Path, tmp_path: Path, capsys) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a run", encoding="utf-8")
    empty = tmp_path / "empty.eval"
    empty.touch()
    out = tmp_path / "report"
    code = main(["report", str(real_runs / "lm_eval"), str(text), str(empty), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == EXIT_SKIPPED
    assert f"skipped {text}: neither an Inspect log" in err
    assert f"skipped {empty}: empty file" in err
    assert (out / "report.html").is_file()


def test_cli_lists_runs_without_a_table_but_does_not_fail(
    real_runs: Path, tmp_path: Path, capsys
) -> None:
    """An answers-only run beside the runs to report (one folder, as users keep them) is named
    on stderr, and the exit code stays 0: it is ours, and has no table by design."""
    answers = tmp_path / "baseline" / "results_2026-01-01T00-00-00.json"
    answers.parent.mkdir()
    answers.write_text(
        json.dumps(
            {
                "results": {"culturesynth_answers_zh": {"alias": "culturesynth_answers_zh"}},
                "config": {},
            }
        ),
        encoding="utf-8",
    )
    code = main(["report", str(real_runs / "lm_eval"), str(answers), "-o", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert f"not in the report {answers}: its tasks have no report table" in err
    assert code == 0


def test_each_run_is_parsed_once_with_the_cycle_collector_paused(
    real_runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full-scale report's CPU went to parsing: every Inspect log's summaries and every lm-eval
    samples file are parsed once for the outcome records and the judge's tokens together, and
    the cyclic garbage collector rests while the records pile up (resumed afterwards)."""
    import gc

    from inspect_culture.run_files import inspect_outputs, lm_eval_outputs

    reads: dict[str, list[bool]] = {}

    def counted(module: object, name: str) -> None:
        original = getattr(module, name)

        def reading(path: Path, *args: object, **kwargs: object) -> object:
            reads.setdefault(str(path), []).append(gc.isenabled())
            return original(path, *args, **kwargs)

        monkeypatch.setattr(module, name, reading)

    counted(inspect_outputs, "raw_summaries")
    counted(lm_eval_outputs, "sample_lines")
    clear_cache()
    report = build_report([real_runs / "inspect", real_runs / "lm_eval"])
    assert {"care_judge_cost", "culturesynth_judge_cost"} <= {t.key for t in report.tables}
    assert any(p.endswith(".eval") for p in reads) and any(p.endswith(".jsonl") for p in reads)
    assert {p: len(r) for p, r in reads.items() if len(r) != 1} == {}
    assert not any(enabled for r in reads.values() for enabled in r)
    assert gc.isenabled()

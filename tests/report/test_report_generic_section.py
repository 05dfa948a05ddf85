"""A benchmark registered without a report section of its own (`report=""`) gets the generic
one: a table of each run's own metrics, from either harness, with nothing else to write."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match

from inspect_culture import benchmark_registry
from inspect_culture.cli import main
from inspect_culture.report.published import published_rows
from inspect_culture.report.records import clear_cache
from inspect_culture.report.section import all_layouts

TOY = benchmark_registry.Benchmark(
    name="toy",
    title="Toy",
    package="tests.report",
    source="",
    load_all="",
    inspect_module="tests.report",
    inspect_tasks=(benchmark_registry.InspectTask("toy", "a toy task"),),
    lm_eval_folder="toy",
)


@pytest.fixture
def toy() -> Iterator[benchmark_registry.Benchmark]:
    benchmark_registry.register(TOY)
    clear_cache()
    try:
        yield TOY
    finally:
        benchmark_registry.unregister(TOY.name)


def _inspect_log(log_dir: Path) -> Path:
    samples = [Sample(input="Say hi", target="hi"), Sample(input="Say ho", target="ho")]
    task = Task(dataset=samples, scorer=match(), name="toy", metadata={"variant": "short"})
    [log] = inspect_eval(task, model="mockllm/model", log_dir=str(log_dir), display="none")
    return Path(log.location)


def _lm_eval_results(folder: Path) -> Path:
    """A results file as lm-eval writes it (`--output_path`), for one toy task."""
    folder.mkdir(parents=True)
    path = folder / "results_2026-01-01T00-00-00.json"
    result = {
        "alias": "toy_long",
        "accuracy,none": 0.75,
        "accuracy_stderr,none": 0.1,
        "accuracy_ci_low,none": 0.5,
        "accuracy_ci_high,none": 0.9,
        "n_scored,none": 4,
    }
    data = {
        "results": {"toy_long": result},
        "configs": {"toy_long": {"metadata": {"variant": "long", "toy_version": 2}}},
        "versions": {"toy_long": 1},
        "n-samples": {"toy_long": {"original": 4, "effective": 4}},
        "config": {"model": "hf", "model_args": "pretrained=org/toy-model", "limit": None},
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_benchmark_without_a_section_gets_a_generic_table(
    toy: benchmark_registry.Benchmark, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _inspect_log(tmp_path / "logs")
    results = _lm_eval_results(tmp_path / "lm_eval")
    out = tmp_path / "report"

    assert main(["report", str(log), str(results), "-o", str(out), "--format", "csv,md"]) == 0
    assert "2 run(s), 1 table(s)" in capsys.readouterr().out

    with (out / "results.csv").open(encoding="utf-8") as handle:
        cells = [r for r in csv.DictReader(handle) if r["benchmark"] == "Toy"]
    assert {r["table"] for r in cells} == {"toy"}
    by_harness = {(r["harness"], r["metric"]): r for r in cells}
    assert float(by_harness[("lm-eval", "accuracy")]["value"]) == 0.75
    assert float(by_harness[("lm-eval", "accuracy")]["ci_low"]) == 0.5
    assert float(by_harness[("lm-eval", "n_scored")]["value"]) == 4
    assert ("inspect", "accuracy") in by_harness
    assert "variant=long" in by_harness[("lm-eval", "accuracy")]["setting"]
    assert "variant=short" in by_harness[("inspect", "accuracy")]["setting"]
    assert not any(r["metric"].endswith(("stderr", "_ci_low", "_ci_high")) for r in cells)
    assert "Toy: each run's own metrics" in (out / "report.md").read_text(encoding="utf-8")

    assert all_layouts()["toy"].benchmark == "Toy"
    assert published_rows("toy") == []


def test_the_toy_leaves_with_its_fixture() -> None:
    assert "toy" not in all_layouts()
    assert [b.name for b in benchmark_registry.benchmarks()] == [
        "normad",
        "care",
        "culturesynth",
        "cqbench",
    ]

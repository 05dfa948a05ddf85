"""Proof that the package extends: a toy fifth benchmark, one harness-free folder
(`toy_bench/`) and one registry entry, runs in Inspect and lm-eval through the generic adapters
with the same numbers, and `culture-evals list` and `culture-evals report` show it."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai.model import ModelAPI

from inspect_culture import benchmark_registry
from inspect_culture.benchmarks.contract import SimpleBenchmark
from inspect_culture.cli import main
from inspect_culture.inspect_adapter.generic_task import simple_task
from inspect_culture.lm_eval_tasks import generic
from inspect_culture.report.records import clear_cache
from inspect_culture.run_files.lm_eval_outputs import save_lm_eval_outputs
from tests.extend.toy_bench import TOY
from tests.support.harness_runs import inspect_eval_on_stub, inspect_metrics, lm_eval_metrics
from tests.support.openai_stub import StubOpenAIServer

ANSWERS = {  # country -> the stub model's answer
    "Japan": "Bow.",  # right
    "Thailand": "**Handshake** is common",  # wrong (wai)
    "France": "kiss on both cheeks",  # right
    "Germany": "Handshake",  # right
    "New Zealand": "It depends.",  # unparsed
}
# by hand: 3 of 5 right, 1 of 5 unparsed; asia 1 of 2, europe 2 of 2, oceania 0 of 1
EXPECTED = {
    "accuracy": 0.6,
    "unparsed_rate": 0.2,
    "accuracy_asia": 0.5,
    "accuracy_europe": 1.0,
    "accuracy_oceania": 0.0,
}


def respond(prompt: str, body: dict[str, Any]) -> str:
    return next(answer for country, answer in ANSWERS.items() if country in prompt)


def toy_entry(lm_eval_folder: Path) -> benchmark_registry.Benchmark:
    """The toy's one registry entry: its folder, and the generic adapters for both harnesses."""
    return benchmark_registry.Benchmark(
        name="toy",
        title="Toy greetings",
        package="tests.extend.toy_bench",
        source="",
        load_all="tests.extend.toy_bench.data:load_toy",
        inspect_module="inspect_culture.inspect_adapter.generic_task",
        inspect_tasks=(
            benchmark_registry.InspectTask("toy", "Toy greetings, answered in one word"),
        ),
        lm_eval_folder=str(lm_eval_folder),  # where generic.write_config put its YAML
        contract="tests.extend.toy_bench:TOY",
    )


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Registers the toy, writes its lm-eval YAML; yields the YAML's folder."""
    folder = tmp_path_factory.mktemp("toy") / "lm_eval_tasks"
    benchmark_registry.register(toy_entry(folder))
    clear_cache()
    try:
        generic.write_config("toy", folder)
        yield folder
    finally:
        benchmark_registry.unregister("toy")
        clear_cache()


@dataclass(frozen=True)
class Runs:
    inspect: dict[str, float]
    lm_eval: dict[str, float]
    inspect_bodies: list[dict[str, Any]]
    lm_eval_bodies: list[dict[str, Any]]
    folder: Path  # the Inspect log and the lm-eval output folder


async def _offline_token_estimate(self: ModelAPI, text: str) -> int:
    return max(1, len(text) // 4)


@pytest.fixture(scope="module")
def runs(toy: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    """One run in each harness against the same stub model (module-scoped: the function-scoped
    offline fixtures of conftest.py are repeated here)."""
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    folder = tmp_path_factory.mktemp("toy_runs")
    with pytest.MonkeyPatch.context() as patch, StubOpenAIServer(respond) as server:
        patch.setenv("STUB_API_KEY", "test-key")
        patch.setenv("INSPECT_CACHE_DIR", str(folder / "inspect_cache"))
        patch.setenv("HF_DATASETS_CACHE", str(folder / "hf_cache"))
        patch.setattr(ModelAPI, "count_text_tokens", _offline_token_estimate)
        task = benchmark_registry.benchmark("toy").inspect_objects()[
            "toy"
        ]  # through the registry alone
        log = inspect_eval_on_stub(task(), server, folder / "inspect")
        inspect_bodies = [body for body in server.requests if "messages" in body]
        server.requests.clear()

        tracker = EvaluationTracker(output_path=str(folder / "lm_eval"))
        results = simple_evaluate(
            model="local-chat-completions",
            model_args={"model": "stub-model", "base_url": f"{server.base_url}/chat/completions"},
            tasks=["toy"],
            task_manager=TaskManager(include_path=[str(toy)], include_defaults=False),
            apply_chat_template=True,
            log_samples=True,
            evaluation_tracker=tracker,
        )
        save_lm_eval_outputs(tracker, results)
        lm_eval_bodies = [body for body in server.requests if "messages" in body]
    metrics = inspect_metrics(log), lm_eval_metrics(results, "toy")
    yield Runs(*metrics, inspect_bodies, lm_eval_bodies, folder)


@pytest.mark.slow
def test_three_epochs_count_each_question_once(toy: Path, tmp_path: Path) -> None:
    """`simple_scorer` stores every epoch's outcome and `simple_metrics` reads them unreduced:
    Thailand is answered right in its first epoch only, so it counts 1/3 (one epoch read alone
    would count 0 or 1)."""
    asked: list[str] = []

    def thailand_right_once(prompt: str, body: dict[str, Any]) -> str:
        asked.append(prompt)
        first_thailand = "Thailand" in prompt and sum("Thailand" in p for p in asked) == 1
        return "wai" if first_thailand else respond(prompt, body)

    with StubOpenAIServer(thailand_right_once) as server:
        log = inspect_eval_on_stub(simple_task("toy"), server, tmp_path, epochs=3)
    assert [s.name for s in log.results.scores] == ["simple_scorer"]
    assert len(log.samples) == 15
    assert inspect_metrics(log) == pytest.approx(
        {**EXPECTED, "accuracy": (3 + 1 / 3) / 5, "accuracy_asia": (1 + 1 / 3) / 2}
    )


def _sent(bodies: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What each generation request asked, preflight checks left out, in a stable order."""
    return sorted(
        (repr(body["messages"]), body.get("max_tokens"), body.get("temperature"))
        for body in bodies
        if "Reply with the single word OK." not in repr(body["messages"])
    )


@pytest.mark.slow
def test_both_harnesses_send_the_same_requests(runs: Runs) -> None:
    sent = _sent(runs.inspect_bodies)
    assert len(sent) == 5
    assert sent == _sent(runs.lm_eval_bodies)
    assert all(max_tokens == 16 and temperature == 0.0 for _, max_tokens, temperature in sent)
    system, user = TOY.prompt({"id": "q1", "country": "Japan"})
    assert sent[0][0].count(system) == 1 and "Japan" in user


@pytest.mark.slow
def test_both_harnesses_report_the_hand_computed_numbers(runs: Runs) -> None:
    assert runs.inspect == pytest.approx(EXPECTED)
    assert runs.lm_eval == pytest.approx(EXPECTED)


@pytest.mark.slow
def test_the_report_reports_both_runs(runs: Runs, capsys: pytest.CaptureFixture[str]) -> None:
    out = runs.folder / "report"
    inputs = [str(runs.folder / "inspect"), str(runs.folder / "lm_eval")]
    assert main(["report", *inputs, "-o", str(out), "--format", "csv,md"]) == 0
    assert "2 run(s)" in capsys.readouterr().out
    with (out / "results.csv").open(encoding="utf-8") as handle:
        cells = [row for row in csv.DictReader(handle) if row["benchmark"] == "Toy greetings"]
    values = {(row["harness"], row["metric"]): float(row["value"]) for row in cells}
    assert values.pop(("inspect", "unscored")) == 0  # Inspect counts unscored samples
    for harness in ("inspect", "lm-eval"):
        found = {metric: v for (h, metric), v in values.items() if h == harness}
        assert found == pytest.approx(EXPECTED)
    assert "Toy greetings: each run's own metrics" in (out / "report.md").read_text("utf-8")


def test_culture_evals_list_names_the_toy_in_both_harnesses(
    toy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    assert re.search(r"inspect_culture/toy\s+Toy greetings, answered in one word", listed)
    assert re.search(r"^\s*toy\s+Toy greetings$", listed, re.MULTILINE)


def test_every_function_the_yaml_names_is_a_def_of_the_generic_adapter(toy: Path) -> None:
    text = (toy / "toy.yaml").read_text(encoding="utf-8")
    names = set(re.findall(r"!function '?inspect_culture\.lm_eval_tasks\.generic\.(\w+)", text))
    assert names == {"load_docs", "process_results", "aggregate"}
    source = Path(generic.__file__).read_text(encoding="utf-8")
    assert all(f"\ndef {name}(" in source for name in names)
    config = yaml.load(text, Loader=_IgnoreFunctions)
    assert [m["metric"] for m in config["metric_list"]] == list(TOY.metric_names)
    assert config["generation_kwargs"]["max_gen_toks"] == 16


class _IgnoreFunctions(yaml.SafeLoader):
    pass


_IgnoreFunctions.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def test_the_lm_eval_adapter_scores_and_aggregates_with_the_toy_metrics(toy: Path) -> None:
    docs = generic.load_docs("toy")["test"]
    assert docs[0]["system"] and "Japan" in docs[0]["prompt"]
    items = [generic.process_results(doc, ["Bow"]) for doc in docs]  # only Japan is right
    assert generic.aggregate([item["accuracy"] for item in items]) == pytest.approx(0.2)
    assert generic.aggregate([item["accuracy_asia"] for item in items]) == pytest.approx(0.5)
    assert generic.aggregate([item["unparsed_rate"] for item in items]) == 0.0


def test_lm_eval_refuses_an_unknown_metadata_key(toy: Path) -> None:
    with pytest.raises(ValueError, match="toy: unknown --metadata key 'colour'"):
        generic.load_docs("toy", colour="red")


def test_messages_of_another_shape_are_refused_in_one_line() -> None:
    bad = SimpleBenchmark(
        load=TOY.load,
        messages=lambda record: [{"role": "assistant", "content": "hi"}],
        generation=TOY.generation,
        parse=TOY.parse,
        metrics=TOY.metrics,
        metric_names=TOY.metric_names,
        sample_score="correct",
    )
    with pytest.raises(ValueError, match=r"record 'q1': .* not \['assistant'\]$"):
        bad.prompt({"id": "q1"})


def test_a_benchmark_without_a_contract_is_not_run_by_the_generic_adapters() -> None:
    with pytest.raises(ValueError, match="normad: its registry entry names no SimpleBenchmark"):
        benchmark_registry.benchmark("normad").simple()

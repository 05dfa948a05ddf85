import json
import subprocess
import sys
from pathlib import Path

import pytest

from inspect_culture.benchmarks.normad import spec
from inspect_culture.lm_eval_tasks import include_path
from inspect_culture.lm_eval_tasks.normad import utils
from tests.support.harness_runs import lm_eval_all_metrics, lm_eval_metrics, run_lm_eval
from tests.support.openai_stub import StubOpenAIServer

TASKS = ["normad_rot", "normad_value_country", "normad_country", "normad_none"]
ROT = {"context": "rot"}  # normad_rot's variant


def test_task_manager_loads_every_task_and_group(normad_mirror: Path) -> None:
    from lm_eval.tasks import TaskManager, get_task_dict

    manager = TaskManager(include_path=[str(include_path())], include_defaults=False)
    assert set(TASKS + ["normad"]) <= set(manager.all_tasks)
    loaded = get_task_dict(TASKS, manager)
    for name in TASKS:
        task = loaded[name]
        assert task.config.metadata["dataset_revision"].startswith("311049f")
        assert task.config.metadata["version"] == spec.TASK_VERSION
        assert len(task.eval_docs) == 16
        assert {d["context"] for d in task.eval_docs} == {name.removeprefix("normad_")}


def test_every_headline_metric_gets_the_outcome_record(normad_mirror: Path) -> None:
    doc = utils.load_docs({"context": "rot"})["test"][0]  # id "0", gold "yes"
    scored = utils.process_results(doc, ["Yes"])
    assert list(scored) == list(spec.HEADLINE_METRICS)
    record = scored["accuracy"]  # the first metric carries the record
    assert (record["sample_id"], record["gold"], record["pred"]) == ("0", "yes", "yes")
    # the others refer to it: the record in the process, its field's name in the samples line
    assert all(scored[name].record == record for name in spec.HEADLINE_METRICS[1:])
    assert json.dumps(scored["macro_f1"]) == '"accuracy"'
    wrong = utils.process_results({**doc, "id": "1"}, ["No"])
    assert utils.agg_accuracy([record, wrong["accuracy"]]) == 0.5
    assert utils.agg_macro_f1([scored["macro_f1"], wrong["macro_f1"]]) == pytest.approx(
        utils.all_metrics([record, wrong["accuracy"]])["macro_f1"]
    )
    assert utils.all_metrics([record, wrong["accuracy"]])["precision_no"] == 0.0


def test_bad_parser_metadata_names_allowed_values(normad_mirror: Path) -> None:
    with pytest.raises(ValueError, match="parser='fuzzy'.*strict, upstream"):
        utils.load_docs({"context": "rot"}, parser="fuzzy")


def test_metadata_cannot_relabel_the_context(normad_mirror: Path) -> None:
    with pytest.raises(ValueError, match="context is fixed per task.*context=.none."):
        utils.load_docs({"context": "rot"}, context="none")
    assert utils.load_docs({"context": "none"}, context="none")["test"][0]["context"] == "none"
    with pytest.raises(ValueError, match="dataset_revision='main'"):
        utils.load_docs({"context": "rot"}, dataset_revision="main")


@pytest.mark.slow
def test_group_run_headline_and_breakdowns(
    normad_mirror: Path, stub_server: StubOpenAIServer
) -> None:
    results = run_lm_eval(stub_server, ["normad"])
    assert results["n-samples"]["normad_rot"]["original"] == 16
    per_task = [lm_eval_metrics(results, t) for t in TASKS]
    for task, metrics in zip(TASKS, per_task, strict=True):
        assert set(metrics) == set(spec.HEADLINE_METRICS)  # lm-eval's table: headline only
        assert {
            "accuracy",
            "macro_f1",
            "unparsed_rate",
            "accuracy_ci_high",
            "accuracy_iw_confucian",
            "accuracy_subcategory_eating",
            "accuracy_country_egypt",
            "recall_no",
        } <= set(lm_eval_all_metrics(results, task))  # from the samples' outcome records
    group = results["results"]["normad"]
    assert group["accuracy,none"] == pytest.approx(sum(m["accuracy"] for m in per_task) / 4)
    # no breakdown row in lm-eval's table (they were ~100 rows, mostly NaN)
    assert "accuracy_iw_catholic_europe,none" not in results["results"]["normad_rot"]
    # the dataset provenance, once per task in its config's metadata (results_*.json), not per doc
    provenance = results["configs"]["normad_rot"]["metadata"]["provenance"]
    assert provenance["revision"] == "unverified" and provenance["rows"] == 16
    assert len(provenance["sha256"]) == 64  # what was read, by its digest
    assert provenance["parser_version"] == spec.PARSER_VERSION
    doc = results["samples"]["normad_rot"][0]["doc"]
    assert not {"dataset_revision", "dataset_sha256", "dataset_rows", "parser_version"} & set(doc)


@pytest.mark.slow
def test_upstream_parser_via_metadata(normad_mirror: Path) -> None:
    # Every answer is lower-case "yes": strict reads yes, upstream falls back to neutral.
    with StubOpenAIServer(responder=lambda prompt, body: "yes") as server:
        strict = lm_eval_metrics(run_lm_eval(server, ["normad_rot"]), "normad_rot")
        upstream = lm_eval_metrics(
            run_lm_eval(server, ["normad_rot"], metadata={"parser": "upstream"}), "normad_rot"
        )
    assert strict["accuracy"] == pytest.approx(7 / 16)  # 7 gold "yes" rows
    assert upstream["accuracy"] == pytest.approx(4 / 16)  # 4 gold "neutral" rows


@pytest.mark.slow
def test_lm_eval_command_line(
    normad_mirror: Path, stub_server: StubOpenAIServer, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    command = [
        sys.executable, "-m", "lm_eval",
        "--model", "local-chat-completions",
        "--model_args", f"model=stub-model,base_url={stub_server.base_url}/chat/completions,num_concurrent=2",
        "--apply_chat_template",
        "--include_path", str(include_path()),
        "--tasks", "normad_none",
        "--limit", "5",
        "--output_path", str(out),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "accuracy" in done.stdout
    [results_file] = out.rglob("results_*.json")
    results = json.loads(results_file.read_text())
    assert results["n-samples"]["normad_none"] == {"original": 16, "effective": 5}
    assert 0.0 <= results["results"]["normad_none"]["accuracy,none"] <= 1.0

"""`culture-evals judge`: generations saved by an lm-eval run without a judge, judged later,
give the metrics an in-run judge gives; an interrupted run resumes without repeating a call."""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspect_culture.cli import main
from inspect_culture.report.build import build_report
from inspect_culture.run_files.care_judge_comparison import (
    compare_care_judges,
    rating_agreement,
    read_care_judgements,
    weighted_kappa,
)
from tests.support.cqbench_data import use_zip_mirror
from tests.support.culturesynth_data import (
    is_judge_call,
    judge_reply,
    question_of,
    write_culturesynth_jsonl,
    write_stub_baseline,
)
from tests.support.harness_runs import lm_eval_all_metrics, lm_eval_metrics, run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = pytest.mark.slow
JUDGE_PREFIX = "Please serve as"
ROOT = Path(__file__).resolve().parents[2]


def _judge_calls(server: StubOpenAIServer) -> int:
    return sum(p.startswith(JUDGE_PREFIX) for p in server.prompts())


def _results(folder: Path) -> dict:
    [path] = folder.rglob("results_*.json")
    return json.loads(path.read_text())


def _generate_later(server: StubOpenAIServer, tasks: list[str], out: Path, **kw) -> None:
    run_lm_eval(server, tasks, {"judge_later": True}, output_path=out, **kw)


def test_care_judged_later_equals_judged_in_run(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    with StubOpenAIServer(responder=care_responder) as server:
        metadata = {"judge_model": "judge", "judge_base_url": server.base_url}
        in_run = run_lm_eval(server, ["care_zh"], metadata, limit=20)
        server.requests.clear()
        _generate_later(server, ["care_zh"], tmp_path / "gen", limit=20)
        assert _judge_calls(server) == 0  # generation only
        capsys.readouterr()
        code = main(
            ["judge", str(tmp_path / "gen"), "-o", str(tmp_path / "judged"),
             "--judge-model", "judge", "--judge-base-url", server.base_url]
        )  # fmt: skip
        assert code == 0
        assert _judge_calls(server) == 20
    captured = capsys.readouterr()
    # the progress bar: judgments done out of the total, as lm-eval's own bars
    assert "Judging care_zh (judge)" in captured.err and "20/20" in captured.err
    later = _results(tmp_path / "judged")
    expected = lm_eval_metrics(in_run, "care_zh", "judged")
    assert lm_eval_metrics(later, "care_zh", "judged") == pytest.approx(expected, nan_ok=True)
    assert 0 < expected["n_unscored"] < 20  # both paths exercised: scored and unparsable
    assert later["judge"]["model"] == "judge"
    assert later["judge"]["base_url"] == server.base_url
    assert later["configs"]["care_zh"]["metadata"]["judge_model"] == "judge"
    assert "judge_later" not in later["configs"]["care_zh"]["metadata"]
    [samples] = (tmp_path / "judged").rglob("samples_care_zh_*.jsonl")
    replies = [json.loads(json.loads(line)["filtered_resps"][0]) for line in samples.open()]
    assert len(replies) == 20 and all(r["judge_model"] == "judge" for r in replies)
    # lean lines: the record once (the first metric), the others name it; provenance kept
    lines = [json.loads(line) for line in samples.open()]
    assert all(x["rating"] == "n_scored" and isinstance(x["n_scored"], dict) for x in lines)
    provenance = later["configs"]["care_zh"]["metadata"]["provenance"]
    assert provenance == in_run["configs"]["care_zh"]["metadata"]["provenance"]
    assert len(provenance["sha256"]) == 64
    out = captured.out
    assert "care_zh: 1" in out
    # lm-eval's own table of the judged run: the rating, its interval and the unscored count
    [table_row] = [line for line in out.splitlines() if "|rating " in line.replace("  ", " ")]
    assert f"{expected['rating']:.4f}" in table_row
    assert any("|rating_ci_low" in line for line in out.splitlines())
    assert any(
        "|n_unscored" in line and f"{expected['n_unscored']:g}" in line for line in out.splitlines()
    )


def test_report_reads_judged_output(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    with StubOpenAIServer(responder=care_responder) as server:
        _generate_later(server, ["care_zh"], tmp_path / "gen", limit=6)
        args = ["--judge-model", "judge", "--judge-base-url", server.base_url]
        assert main(["judge", str(tmp_path / "gen"), "-o", str(tmp_path / "judged"), *args]) == 0
    report = build_report([tmp_path / "judged"])
    [run] = report.runs
    assert (run.benchmark, run.task, run.judge, run.samples) == ("CARE", "care_zh", "judge", 6)
    assert (
        run.metrics["rating"]
        == _results(tmp_path / "judged")["results"]["care_zh"]["rating,judged"]
    )
    assert run.records_source is not None and run.records_source.is_file()
    [table] = [t for t in report.tables if t.key == "care"]
    [row] = [r for r in table.rows if r.kind == "run"]
    assert row.cells["overall"].value is not None
    assert (
        main(["report", str(tmp_path / "judged"), "-o", str(tmp_path / "rep"), "--format", "md"])
        == 0
    )


def _old_layout(folder: Path) -> None:
    """A run as written before issue 42: the outcome record under every metric field, the
    provenance in each doc, none in the task's metadata."""
    [results] = folder.rglob("results_*.json")
    provenance = json.loads(results.read_text())["configs"]["care_zh"]["metadata"]["provenance"]
    columns = {f"dataset_{k}": provenance[k] for k in ("revision", "sha256", "rows")}

    def line(x: dict) -> None:
        if isinstance(x.get("n_scored"), dict):  # a judged line (not one judged later)
            x.update(dict.fromkeys(x["metrics"], x["n_scored"]))
        x["doc"].update(columns, prompting="zero_shot", judge_prompt_version="care-judge-3")

    _rewrite(results, lambda r: r["configs"]["care_zh"]["metadata"].pop("provenance"))
    [samples] = folder.rglob("samples_care_zh_*.jsonl")
    _rewrite(samples, line)


def test_old_layout_runs_are_judged_and_reported_as_before(tmp_path: Path, monkeypatch) -> None:
    """Saved runs from before lean samples lines still load: `culture-evals judge` re-judges
    one, and the report reads one with the same figures and provenance."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    with StubOpenAIServer(responder=care_responder) as server:
        metadata = {"judge_model": "judge", "judge_base_url": server.base_url}
        run_lm_eval(server, ["care_zh"], metadata, limit=8, output_path=tmp_path / "new")
        _generate_later(server, ["care_zh"], tmp_path / "gen", limit=8)
        _old_layout(tmp_path / "gen")
        args = ["--judge-model", "judge", "--judge-base-url", server.base_url]
        assert main(["judge", str(tmp_path / "gen"), "-o", str(tmp_path / "judged"), *args]) == 0
    new_in_run = _results(tmp_path / "new")
    later = _results(tmp_path / "judged")
    expected = lm_eval_metrics(new_in_run, "care_zh", "judged")
    assert lm_eval_metrics(later, "care_zh", "judged") == pytest.approx(expected, nan_ok=True)
    shutil.copytree(tmp_path / "new", tmp_path / "old")
    _old_layout(tmp_path / "old")
    [new_run], [old_run] = (
        build_report([tmp_path / "new"]).runs,
        build_report([tmp_path / "old"]).runs,
    )
    for field in ("metrics", "dataset", "dataset_sha256", "dataset_rows", "setting", "versions"):
        assert getattr(old_run, field) == getattr(new_run, field), field
    assert len(new_run.dataset_sha256 or "") == 64
    old_table = [t for t in build_report([tmp_path / "old"]).tables if t.benchmark == "CARE"]
    new_table = [t for t in build_report([tmp_path / "new"]).tables if t.benchmark == "CARE"]
    cells = [[r.cells for r in t.rows if r.kind == "run"] for t in (old_table[0], new_table[0])]
    assert cells[0] == cells[1]


def test_all_unscored_exits_nonzero(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_PREFLIGHT", "off")
    with StubOpenAIServer(responder=lambda prompt, body: "no verdict here") as server:
        _generate_later(server, ["care_zh"], tmp_path / "gen", limit=4)
        args = ["--judge-model", "judge", "--judge-base-url", server.base_url]
        code = main(["judge", str(tmp_path / "gen"), "-o", str(tmp_path / "judged"), *args])
    assert code == 1
    assert "every judged sample (4) is unscored" in capsys.readouterr().err


def test_bad_input_names_the_problem(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no results_<timestamp>.json"):
        main(["judge", str(tmp_path), "-o", str(tmp_path / "o"), "--judge-model", "j"])
    with pytest.raises(SystemExit, match="--metadata is not JSON"):
        main(["judge", str(tmp_path), "-o", str(tmp_path / "o"), "--metadata", "{"])
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "results_x.json").write_text(json.dumps({"configs": {"care_zh": {}}}))
    (tmp_path / "m" / "samples_care_zh_x.jsonl").write_text('{"doc_id": 0, "doc": {}}\n')
    with pytest.raises(SystemExit, match=r"samples_care_zh_x.jsonl, line 1: field 'resps'"):
        main(["judge", str(tmp_path), "-o", str(tmp_path / "o"), "--judge-model", "j"])


RESUME_SCRIPT = """
import sys
from inspect_culture.cli import main
from inspect_culture.report.build import build_report
from inspect_culture.run_files.care_judge_comparison import (
    compare_care_judges,
    rating_agreement,
    read_care_judgements,
    weighted_kappa,
)
sys.exit(main(sys.argv[1:]))
"""


def test_killed_run_resumes_without_repeating_calls(tmp_path: Path, monkeypatch) -> None:
    """Kill `culture-evals judge` after k judge requests arrived, rerun: every sample is judged
    once, plus at most the requests in flight at the kill."""
    n, k, concurrency = 16, 5, 2
    cache = tmp_path / "judge.sqlite"
    with StubOpenAIServer(responder=care_responder) as server:
        _generate_later(server, ["care_zh"], tmp_path / "gen", limit=n)
        server.requests.clear()
        server.latency = 0.3
        env = {
            **os.environ,
            "INSPECT_CULTURE_JUDGE_CACHE": str(cache),
            "INSPECT_CULTURE_JUDGE_PREFLIGHT": "off",
            "PYTHONPATH": str(ROOT),
        }
        command = [
            sys.executable, "-c", RESUME_SCRIPT, "judge", str(tmp_path / "gen"),
            "-o", str(tmp_path / "judged"), "--judge-model", "judge",
            "--judge-base-url", server.base_url, "--judge-concurrency", str(concurrency),
        ]  # fmt: skip
        first = subprocess.Popen(command, env=env, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while _judge_calls(server) < k and time.monotonic() < deadline:
            time.sleep(0.02)
        first.send_signal(signal.SIGKILL)
        first.wait()
        before = _judge_calls(server)
        assert k <= before < n  # killed mid-run
        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert second.returncode == 0, second.stderr
        total = _judge_calls(server)
    assert n <= total <= n + concurrency  # only requests in flight at the kill are repeated
    judged = {str(p) for p in server.prompts() if p.startswith(JUDGE_PREFIX)}
    assert len(judged) == n


def test_weighted_kappa_and_rating_agreement_known_answers() -> None:
    # quadratic weights on 1-3: observed disagreement 0.125, chance 0.34375 (worked by hand)
    assert weighted_kappa([1, 2, 3, 3], [1, 3, 3, 2], scale=range(1, 4)) == pytest.approx(7 / 11)
    assert weighted_kappa([1, 2, 3], [1, 2, 3], scale=range(1, 4)) == 1.0
    assert math.isnan(weighted_kappa([4, 4], [4, 4]))  # no chance disagreement: undefined
    found = rating_agreement([7, 5, 9, 2], [7, 6, 6, 2])
    assert (found["exact"], found["within_1"], found["mad"]) == (50.0, 75.0, 1.0)
    assert -1 <= found["kappa_quadratic"] <= 1 and found["spearman"] > 0


def _shifted_judge(prompt: str, body: dict) -> str:
    """Judge B rates one point higher than judge A (capped at 10)."""
    text = care_responder(prompt, body)
    if body.get("model") == "judge-b" and "[[" in text:
        rating = int(text.rsplit("[[", 1)[1].split("]]")[0])
        return text.rsplit("[[", 1)[0] + f"[[{min(10, rating + 1)}]]"
    return text


def test_second_judge_and_care_agreement(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    with StubOpenAIServer(responder=_shifted_judge) as server:
        _generate_later(server, ["care_zh"], tmp_path / "gen", limit=14)
        for judge in ("judge-a", "judge-b"):
            args = ["--judge-model", judge, "--judge-base-url", server.base_url]
            assert main(["judge", str(tmp_path / "gen"), "-o", str(tmp_path / judge), *args]) == 0
    a = read_care_judgements(tmp_path / "judge-a")
    b = read_care_judgements(tmp_path / "judge-b")
    report = compare_care_judges(a, b)
    pairs = [(a.ratings[k], b.ratings[k]) for k in a.ratings if a.ratings[k] is not None]
    assert report.n_compared == len(pairs) > 0 and report.n_unscored == 14 - len(pairs)
    assert report.overall["within_1"] == 100.0
    assert report.overall["exact"] == pytest.approx(
        100 * sum(x == 10 for x, _ in pairs) / len(pairs)
    )
    assert report.n_answers_differ == 0 and (report.judge_a, report.judge_b) == (
        "judge-a",
        "judge-b",
    )
    capsys.readouterr()
    assert main(["agreement", str(tmp_path / "judge-a"), str(tmp_path / "judge-b")]) == 0
    out = capsys.readouterr().out
    assert "CARE judge agreement" in out and "kappa_q" in out and "judge-b" in out


def _culturesynth_responder(prompt: str, body: dict) -> str:
    if is_judge_call(body):
        return judge_reply(prompt)
    return f"TARGET answer to {question_of(prompt)}"


def test_culturesynth_judged_later_equals_judged_in_run(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    write_culturesynth_jsonl(tmp_path / "mirror" / "culturesynth" / "culturesynth.jsonl")
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path / "mirror"))
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_PREFLIGHT", "off")  # the stub knows no probe
    baseline = {"baseline_responses": str(write_stub_baseline(tmp_path / "b.json", model="g"))}
    with StubOpenAIServer(responder=_culturesynth_responder) as server:
        judge = {"judge_model": "judge", "judge_base_url": server.base_url}
        in_run = run_lm_eval(server, ["culturesynth_all"], {**judge, **baseline, "swap": True})
        later = {**baseline, "swap": True, "judge_later": True}
        run_lm_eval(server, ["culturesynth_all"], later, output_path=tmp_path / "gen")
        server.requests.clear()
        for name in ("judge", "judge-2"):
            args = ["--judge-model", name, "--judge-base-url", server.base_url]
            assert main(["judge", str(tmp_path / "gen"), "-o", str(tmp_path / name), *args]) == 0
        judge_calls = sum(is_judge_call(body) for body in server.requests)
    expected = lm_eval_metrics(in_run, "culturesynth_all", "judged")
    got = lm_eval_metrics(_results(tmp_path / "judge"), "culturesynth_all", "judged")
    assert got == pytest.approx(expected) and expected["n_scored"] > 0
    judged = expected["n_scored"] + expected["n_unscored"] - expected["n_missing_baseline"]
    games = 2 * int(judged)  # swap: two games per question with a baseline answer
    assert judge_calls == 2 * games  # two judges
    capsys.readouterr()
    assert main(["agreement", str(tmp_path / "judge"), str(tmp_path / "judge-2")]) == 0
    assert "100.00" in capsys.readouterr().out  # the same verdicts: full agreement


def test_care_group_judged_later_equals_judged_in_run(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    with StubOpenAIServer(responder=care_responder) as server:
        judge = ["--judge-model", "judge", "--judge-base-url", server.base_url]
        in_run = run_lm_eval(
            server, ["care"], {"judge_model": "judge", "judge_base_url": server.base_url}, limit=5
        )
        _generate_later(server, ["care"], tmp_path / "gen", limit=5)
        assert main(["judge", str(tmp_path / "gen"), "-o", str(tmp_path / "judged"), *judge]) == 0
    later = _results(tmp_path / "judged")
    for task in ("care", "care_zh", "care_ar", "care_ja"):
        expected = lm_eval_metrics(in_run, task, "judged")
        assert lm_eval_metrics(later, task, "judged") == pytest.approx(expected), task
    group = later["results"]["care"]  # only the group's aggregate_metric_list, as lm-eval
    assert "rating,judged" in group and "n_scored,judged" not in group
    assert group == in_run["results"]["care"]  # name, sample_len and sample_count too


def test_cqbench_ve_judged_later_equals_judged_in_run(tmp_path: Path, monkeypatch) -> None:
    from tests.benchmarks.cqbench.test_cqbench_ve import ETHICAL_STORIES
    from tests.benchmarks.cqbench.test_cqbench_ve import responder as ve_responder

    members = {"dataset_setting1_social.json": [], "dataset_ethical_original.json": ETHICAL_STORIES}
    use_zip_mirror(monkeypatch, tmp_path / "mirror", members)
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_PREFLIGHT", "off")
    with StubOpenAIServer(responder=ve_responder) as server:
        run_lm_eval(server, ["cqbench_ve_summary_ethical"], output_path=tmp_path / "summaries")
        step2 = {"ve_summaries": str(tmp_path / "summaries")}
        judge = {"judge_model": "judge", "judge_base_url": server.base_url}
        in_run = run_lm_eval(server, ["cqbench_ve_ethical"], {**step2, **judge})
        later = {**step2, "judge_later": True}
        run_lm_eval(server, ["cqbench_ve_ethical"], later, output_path=tmp_path / "gen")
        args = ["--judge-model", "judge", "--judge-base-url", server.base_url]
        code = main(["judge", str(tmp_path / "gen"), "-o", str(tmp_path / "judged"), *args])
    assert code == 0
    expected = lm_eval_metrics(in_run, "cqbench_ve_ethical", "judged")
    got = lm_eval_metrics(_results(tmp_path / "judged"), "cqbench_ve_ethical", "judged")
    assert got == pytest.approx(expected) and expected["n_scored"] > 0


def _rewrite(path: Path, change) -> None:  # type: ignore[no-untyped-def]
    """Apply `change` to a results file (a dict) or to every line of a samples file."""
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        change(data)
        path.write_text(json.dumps(data), encoding="utf-8")
        return
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    for line in lines:
        change(line)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


@pytest.mark.parametrize(
    ("target", "change", "says"),
    [
        ("results", lambda r: r["configs"]["care_zh"]["metric_list"].append({"metric": "bogus"}),
         "names 'bogus', which this version of the task does not compute"),
        ("results", lambda r: r["configs"].update(care_zh=["not", "a", "config"]),
         "field 'configs.care_zh' is list, not an object"),
        ("samples", lambda line: line.update(doc_id=None),
         "line 1: field 'doc_id' is None, not a whole number"),
        ("samples", lambda line: line["doc"].pop("question"),
         "doc_id 0: field 'doc.question' is missing, which the judge prompt needs"),
        ("samples", lambda line: line["doc_id"] == 1 and line["doc"].pop("answer"),
         "line 2, doc_id 1: field 'doc.answer' is missing, which the judge prompt needs"),
        ("samples", lambda line: line["doc"].update(judge_mapping=None),
         "line 1, doc_id 0: the doc does not fit the task's judge prompt (BenchmarkOptionError: judge_mapping"),
    ],
)  # fmt: skip
def test_broken_saved_runs_stop_with_one_line_before_any_judge_call(
    tmp_path: Path, monkeypatch, target: str, change, says: str
) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_PREFLIGHT", "off")
    with StubOpenAIServer(responder=care_responder) as server:
        _generate_later(server, ["care_zh"], tmp_path / "gen", limit=3)
        server.requests.clear()
        [results] = (tmp_path / "gen").rglob("results_*.json")
        [samples] = (tmp_path / "gen").rglob("samples_care_zh_*.jsonl")
        _rewrite(results if target == "results" else samples, change)
        args = ["--judge-model", "judge", "--judge-base-url", server.base_url]
        with pytest.raises(SystemExit) as stopped:
            main(["judge", str(tmp_path / "gen"), "-o", str(tmp_path / "judged"), *args])
        assert _judge_calls(server) == 0  # found before paying for anything
    message = str(stopped.value.code)
    assert message.startswith("culture-evals judge: ") and says in message, message


def test_an_output_folder_inside_the_run_is_not_judged_again(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_PREFLIGHT", "off")
    with StubOpenAIServer(responder=care_responder) as server:
        _generate_later(server, ["care_zh"], tmp_path / "gen", limit=3)
        args = ["--judge-model", "judge", "--judge-base-url", server.base_url]
        for _ in range(2):
            capsys.readouterr()
            server.requests.clear()
            assert (
                main(["judge", str(tmp_path / "gen"), "-o", str(tmp_path / "gen" / "j"), *args])
                == 0
            )
            assert _judge_calls(server) == 3  # the generations only, not our own outputs
    assert capsys.readouterr().out.count("care_zh: ") == 1


def test_group_aggregates_follow_the_groups_weight_by_size() -> None:
    """lm-eval's rule, per the group's aggregate_metric_list: CARE's `rating` is weighted by
    subtask size, CQ-Bench VE's `recall` is not (the plain mean of the categories)."""
    from inspect_culture.judge_command.rejudge import TaskJudgement
    from inspect_culture.judge_command.write import judged_results

    def run(group: str, metric: str, tasks: dict[str, tuple[float, int]]) -> dict:
        original = {
            "results": {t: {"alias": t, "sample_len": n} for t, (_, n) in tasks.items()},
            "groups": {group: {"alias": group, f"{metric},judged": float("nan")}},
            "group_subtasks": {group: list(tasks)},
            "configs": {t: {"metadata": {}} for t in tasks},
            "n-samples": {t: {"effective": n} for t, (_, n) in tasks.items()},
        }
        judged = [
            TaskJudgement(
                t, "judged", [], {f"{metric},judged": v, f"{metric}_stderr,judged": "N/A"}, n, 0
            )
            for t, (v, n) in tasks.items()
        ]
        return judged_results(original, judged, {}, {})["results"][group]

    care = run("care", "rating", {"care_zh": (8.0, 1), "care_ar": (4.0, 3)})
    assert care["rating,judged"] == pytest.approx((8 * 1 + 4 * 3) / 4)  # 5.0
    ve = run(
        "cqbench_ve", "recall", {"cqbench_ve_social": (1.0, 1), "cqbench_ve_ethical": (0.0, 3)}
    )
    assert ve["recall,judged"] == pytest.approx(0.5)  # weighted it would be 0.25
    assert ve["recall_stderr,judged"] == "N/A"


def test_group_stderr_and_weighting_follow_lm_eval(monkeypatch) -> None:
    """The stderr lm-eval pairs with each mean (pooled when weighted, that of a plain mean of
    the subtask means when not), and its reading of `aggregate_metric_list`: a metric without
    `filter_list` applies to every filter, a single entry may be a bare mapping."""
    from lm_eval.api import metrics
    from lm_eval.api.metrics import pooled_sample_stderr

    from inspect_culture.judge_command import write

    # pooled: sqrt(((2-1)*0.1^2*2 + (6-1)*0.3^2*6) / (8-2) / 8) = sqrt(2.72/6/8)
    pooled = 0.2380476142847617
    assert pooled_sample_stderr([0.1, 0.3], [2, 6]) == pytest.approx(pooled)
    if hasattr(metrics, "unweighted_mean_stderr"):  # lm-eval 0.4.13 on: that of a plain mean
        unweighted = math.sqrt(0.1**2 + 0.3**2) / 2  # 0.1581
    else:  # lm-eval 0.4.12 pools every group's stderr (lm_eval/api/group.py)
        unweighted = pooled

    results = {
        "a": {"m,judged": 1.0, "m_stderr,judged": 0.1, "sample_len": 2},
        "b": {"m,judged": 0.0, "m_stderr,judged": 0.3, "sample_len": 6},
    }
    for by_size in (True, False):
        config = {"group": "g", "aggregate_metric_list": {"metric": "m", "weight_by_size": by_size}}
        weights = write.group_weighting(config)
        assert weights == {"m": by_size}
        monkeypatch.setattr(write, "_group_weighting", lambda w=weights: {"g": w})
        got = write._group_metrics("g", ["a", "b"], results, {}, ["m,judged"])
        if by_size:
            assert got["m,judged"] == pytest.approx(0.25)
            assert got["m_stderr,judged"] == pytest.approx(pooled)
        else:
            assert got["m,judged"] == pytest.approx(0.5)
            assert got["m_stderr,judged"] == pytest.approx(unweighted)
        assert got["sample_len"] == 8 and got["sample_count"] == {"m,judged": 8}


def test_a_broken_later_task_stops_before_the_first_task_is_judged(
    tmp_path: Path, monkeypatch
) -> None:
    """Every task of every results file is checked before the first judge call: a broken
    care_zh (judged after care_ar) costs nothing."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_PREFLIGHT", "off")
    with StubOpenAIServer(responder=care_responder) as server:
        _generate_later(server, ["care_ar", "care_zh"], tmp_path / "gen", limit=2)
        server.requests.clear()
        [results] = (tmp_path / "gen").rglob("results_*.json")
        assert list(json.loads(results.read_text())["configs"]) == ["care_ar", "care_zh"]
        bogus = {"metric": "bogus"}
        _rewrite(results, lambda r: r["configs"]["care_zh"]["metric_list"].append(bogus))
        args = ["--judge-model", "judge", "--judge-base-url", server.base_url]
        with pytest.raises(SystemExit, match="configs.care_zh.metric_list names 'bogus'"):
            main(["judge", str(tmp_path / "gen"), "-o", str(tmp_path / "judged"), *args])
        assert _judge_calls(server) == 0
    assert not (tmp_path / "judged").exists()


def test_find_runs_skips_only_an_output_folder_inside_the_source(tmp_path: Path) -> None:
    from inspect_culture.run_files.lm_eval_outputs import find_runs

    run = tmp_path / "runs" / "gen" / "model"
    run.mkdir(parents=True)
    (run / "results_x.json").write_text(json.dumps({"configs": {}}))
    (run / "judged").mkdir()
    (run / "judged" / "results_y.json").write_text(json.dumps({"configs": {}}))
    gen = tmp_path / "runs" / "gen"
    names = [r.results_path.name for r in find_runs(gen, skip=run / "judged")]
    assert names == ["results_x.json"]  # our own output, inside the run: not read
    # an output folder that holds the run (-o runs) skips nothing
    names = {r.results_path.name for r in find_runs(gen, skip=tmp_path / "runs")}
    assert names == {"results_x.json", "results_y.json"}


def test_jury_dry_run_counts_then_judges_later_as_in_run(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """`--judge-models a,b --dry-run` prints each judge's call count and calls none (not even a
    preflight); judging later with the jury equals judging in the run with it."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    from tests.judging.test_jury_parity import _two_judges

    with StubOpenAIServer(responder=_two_judges) as server:
        jury = {"judge_models": ["judge_a", "judge_b"], "judge_base_url": server.base_url}
        in_run = run_lm_eval(server, ["care_zh"], jury, limit=12)
        assert "care_zh: 150 judge calls for each of 2 judges" in capsys.readouterr().err
        _generate_later(server, ["care_zh"], tmp_path / "gen", limit=12)
        server.requests.clear()
        args = ["--judge-models", "judge_a,judge_b", "--judge-base-url", server.base_url]
        gen, out = str(tmp_path / "gen"), str(tmp_path / "judged")
        assert main(["judge", gen, "-o", out, "--dry-run", *args]) == 0
        assert server.requests == []  # nothing asked
        printed = capsys.readouterr().out
        assert "care_zh (samples_care_zh_" in printed
        assert "12 judge calls for each of 2 judges (judge_a, judge_b): 24 in all" in printed
        assert not (tmp_path / "judged").exists() or not any((tmp_path / "judged").rglob("*"))
        assert main(["judge", gen, "-o", out, *args]) == 0
        assert _judge_calls(server) == 24
    later = _results(tmp_path / "judged")
    expected = lm_eval_metrics(in_run, "care_zh", "judged")
    assert lm_eval_metrics(later, "care_zh", "judged") == pytest.approx(expected, nan_ok=True)
    assert later["judge"]["model"] == "jury of 2: judge_a, judge_b"
    assert [j["judge_model"] for j in later["judge"]["settings"]["judges"]] == [
        "judge_a",
        "judge_b",
    ]


def test_rejudging_dry_run_counts_then_judges_later_as_in_run(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """`--judge-repeats 3 --rejudge-fraction 0.5 --dry-run` counts every judging (calls none);
    judging later with them equals re-judging in the run, the two-level interval included."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    from inspect_culture.judging.repeats import chosen
    from tests.judging.test_rejudge_parity import _seeded_judge

    with StubOpenAIServer(responder=_seeded_judge) as server:
        options = {"judge_repeats": 3, "rejudge_fraction": 0.5}
        judge = {"judge_model": "judge", "judge_base_url": server.base_url}
        in_run = run_lm_eval(server, ["care_zh"], {**judge, **options}, limit=12)
        _generate_later(server, ["care_zh"], tmp_path / "gen", limit=12)
        server.requests.clear()
        args = ["--judge-model", "judge", "--judge-base-url", server.base_url]
        args += ["--judge-repeats", "3", "--rejudge-fraction", "0.5"]
        gen, out = str(tmp_path / "gen"), str(tmp_path / "judged")
        assert main(["judge", gen, "-o", out, "--dry-run", *args]) == 0
        assert server.requests == []  # nothing asked
        ids = [s["doc"]["id"] for s in in_run["samples"]["care_zh"]]
        calls = len(ids) + 2 * sum(chosen(i, 0.5) for i in ids)
        assert 12 < calls < 36
        assert f"{calls} judge calls to judge" in capsys.readouterr().out
        assert main(["judge", gen, "-o", out, *args]) == 0
        assert _judge_calls(server) == calls
    later = _results(tmp_path / "judged")
    assert "rating_ci_judge_share" in lm_eval_all_metrics(in_run, "care_zh", "judged")
    # the headline interval is the two-level one: the same after judging later
    expected = lm_eval_metrics(in_run, "care_zh", "judged")
    assert lm_eval_metrics(later, "care_zh", "judged") == pytest.approx(expected, nan_ok=True)
    assert later["judge"]["settings"]["judge_repeats"] == 3

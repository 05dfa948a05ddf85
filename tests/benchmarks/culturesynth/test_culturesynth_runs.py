"""`culture-evals baseline export` and `culture-evals agreement` on real harness outputs: Inspect
logs and lm-eval `--log_samples` runs against the stub server, plus hand-written lm-eval files
for the edge cases (missing results file, several runs, conflicts)."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.benchmarks.culturesynth.baseline_responses import (
    BaselineResponses,
    read_baseline_responses,
    write_baseline_responses,
)
from inspect_culture.benchmarks.culturesynth.spec import PairOutcome
from inspect_culture.cli import main
from inspect_culture.run_files.culturesynth_baseline_export import export_baseline
from inspect_culture.run_files.culturesynth_judge_comparison import (
    compare_judges,
    read_judged_runs,
)
from inspect_culture.run_files.culturesynth_runs import RunsError
from tests.support.culturesynth_data import (
    QUESTIONS,
    is_judge_call,
    question_of,
    write_culturesynth_jsonl,
)
from tests.support.harness_runs import inspect_eval_on_stub, run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, is_check

GREEDY_LM_EVAL = {"until": [], "max_gen_toks": 2048, "do_sample": False, "temperature": 0.0}

# Two judges on the same answers (outcome seen from the target; None = no verdict).
RULINGS: dict[str, dict[str, int | None]] = {
    "judge-a": {**dict.fromkeys(QUESTIONS, 1), "ja-0002": 0},  # +1 but one tie
    "judge-b": {
        "zh-0001": 1,  # agree
        "zh-0002": -1,  # disagree
        "zh-0003": 1,  # agree
        "ja-0001": 1,  # agree
        "ja-0002": 0,  # agree (tie)
        "fr-0001": None,  # unscored by B: not compared
        "fr-0002": 0,  # disagree
    },
}
# 6 compared, 4 agree; zh 2 of 3, ja 2 of 2, fr 0 of 1.
EXPECTED_AGREEMENT = {
    "agreement": 400.0 / 6,
    "n_compared": 6.0,
    "n_agree": 4.0,
    "n_unscored": 1.0,
    "n_unmatched": 0.0,
}
EXPECTED_BY_LANGUAGE = {"fr": 0.0, "ja": 100.0, "zh": 200.0 / 3}


def responder(prompt: str, body: dict[str, Any]) -> str:
    """Judges rule by RULINGS[model]; the `base` model answers "BASELINE ..." (nothing for
    ja-0001), any other model "ANSWER ..." (nothing for fr-0002)."""
    qid = question_of(prompt)
    if is_check(body):  # the judge's check before generation: one judgment, the reference
        return "Compared with the reference... [[C]]"  # standing in for both answers
    if is_judge_call(body):
        outcome = RULINGS[body["model"]][qid]
        target_first = prompt.index("BASELINE") > prompt.index("[The Start of Assistant B's")
        verdict = {
            1: "[[A]]" if target_first else "[[B]]",
            -1: "[[B]]" if target_first else "[[A]]",
            0: "[[C]]",
            None: "Both are fine.",
        }[outcome]
        return f"Compared with the reference... {verdict}"
    if body["model"] == "base":
        return "" if qid == "ja-0001" else f"BASELINE answer to {qid}"
    return "" if qid == "fr-0002" else f"ANSWER to {qid}"


@pytest.fixture
def mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "mirror"
    write_culturesynth_jsonl(root / "culturesynth" / "culturesynth.jsonl")
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(root))
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    return root


@pytest.fixture
def baseline_file(tmp_path: Path) -> Path:
    baseline = BaselineResponses(
        model="stub/gemma",
        responses={qid: f"BASELINE answer to {qid}" for qid in QUESTIONS},
        generation_settings={"temperature": 0.0},
    )
    return write_baseline_responses(baseline, tmp_path / "baseline.json")


def _role(server: StubOpenAIServer, name: str) -> Any:
    from inspect_ai.model import get_model

    return get_model(f"openai-api/stub/{name}", base_url=server.base_url)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _export(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    assert main(["baseline", "export", *args]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


# --- Inspect logs (slow: real runs) -------------------------------------------------------------


@pytest.mark.slow
def test_export_inspect_answers_log(
    mirror: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_culture.culturesynth import culturesynth_answers

    with StubOpenAIServer(responder=responder) as server:
        log = inspect_eval_on_stub(
            culturesynth_answers(), server, tmp_path / "logs", temperature=0.3
        )
    assert log.status == "success", log.error
    out_file = tmp_path / "baseline.json"
    out, err = _export([str(tmp_path / "logs"), "-o", str(out_file)], capsys)
    assert "6 answers of openai-api/stub/stub-model" in out
    assert "1 question(s) left out" in err and "fr-0002" in err
    baseline = read_baseline_responses(out_file)  # valid for both tasks
    assert baseline.model == "openai-api/stub/stub-model"
    # the effective settings: the task's max_tokens, the eval's temperature; no client settings
    assert baseline.generation_settings == {"max_tokens": 2048, "temperature": 0.3}
    assert baseline.responses == {qid: f"ANSWER to {qid}" for qid in QUESTIONS if qid != "fr-0002"}
    log_path = Path(log.location)
    assert baseline.sources == [
        {
            "harness": "inspect",
            "path": str(log_path),
            "sha256": _sha256(log_path),
            "task": "culturesynth_answers",
            "dataset_sha256": _sha256(mirror / "culturesynth" / "culturesynth.jsonl"),
        }
    ]
    # the questions' file is recorded, so a run on a changed file can warn
    assert baseline.dataset_sha256 == baseline.sources[0]["dataset_sha256"]
    # the log file itself, and --model naming the model
    _export([str(log_path), "-o", str(out_file), "--model", "my/baseline"], capsys)
    assert read_baseline_responses(out_file).model == "my/baseline"


@pytest.mark.slow
def test_export_baseline_role_of_a_judged_log(
    mirror: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_culture.culturesynth import culturesynth

    with StubOpenAIServer(responder=responder) as server:
        log = inspect_eval_on_stub(
            culturesynth(),
            server,
            tmp_path / "logs",
            model_roles={"grader": _role(server, "judge-a"), "baseline": _role(server, "base")},
        )
    assert log.status == "success", log.error
    out_file = tmp_path / "baseline.json"
    out, err = _export([log.location, "-o", str(out_file), "--role", "baseline"], capsys)
    assert "6 answers of openai-api/stub/base" in out
    assert "1 question(s) left out" in err and "ja-0001" in err
    baseline = read_baseline_responses(out_file)
    assert baseline.model == "openai-api/stub/base"
    assert baseline.generation_settings == {"max_tokens": 2048, "temperature": 0.0}
    assert baseline.responses == {
        qid: f"BASELINE answer to {qid}" for qid in QUESTIONS if qid != "ja-0001"
    }
    assert baseline.sources[0]["role"] == "baseline"
    assert baseline.sources[0]["task"] == "culturesynth"
    # without --role: the evaluated model's answers of the same log
    targets = export_baseline([log.location])
    assert targets.model == "openai-api/stub/stub-model"
    assert targets.responses == {qid: f"ANSWER to {qid}" for qid in QUESTIONS if qid != "fr-0002"}


@pytest.mark.slow
def test_role_baseline_needs_a_judged_log(mirror: Path, tmp_path: Path) -> None:
    from inspect_culture.culturesynth import culturesynth_answers

    with StubOpenAIServer(responder=responder) as server:
        log = inspect_eval_on_stub(culturesynth_answers(language="fr"), server, tmp_path)
    with pytest.raises(SystemExit, match="--role baseline needs a culturesynth log"):
        main(["baseline", "export", log.location, "-o", str(tmp_path / "b.json"), "--role", "baseline"])  # fmt: skip


def _inspect_judged(
    server: StubOpenAIServer, log_dir: Path, judge: str, baseline: Path, **eval_args: Any
) -> Any:
    from inspect_culture.culturesynth import culturesynth

    log = inspect_eval_on_stub(
        culturesynth(baseline_responses=str(baseline)),
        server,
        log_dir,
        model_roles={"grader": _role(server, judge)},
        **eval_args,
    )
    assert log.status == "success", log.error
    return log


def _check_known_agreement(out: str, target: str) -> None:
    row = next(line for line in out.splitlines() if line.startswith(target))
    cells = row.split()
    assert cells[1:] == ["judge-a", "judge-b", "66.67", "6", "1", "0", "0.00", "100.00", "66.67"]
    header = next(line for line in out.splitlines() if line.startswith("target model"))
    assert header.split()[-3:] == ["fr", "ja", "zh"]  # the dataset's language order
    assert next(line for line in out.splitlines() if line.startswith("Average")).split()[-1] == (
        "66.67"
    )


@pytest.mark.slow
def test_agreement_of_two_inspect_runs(
    mirror: Path, baseline_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_culture.culturesynth import culturesynth

    with StubOpenAIServer(responder=responder) as server:
        # a failed attempt (no judge bound) next to the run that worked
        failed = inspect_eval_on_stub(culturesynth(), server, tmp_path / "a")
        assert failed.status == "error"
        _inspect_judged(server, tmp_path / "a", "judge-a", baseline_file)
        _inspect_judged(server, tmp_path / "b", "judge-b", baseline_file, log_format="json")
    a, b = read_judged_runs(tmp_path / "a"), read_judged_runs(tmp_path / "b")
    target = "openai-api/stub/stub-model"
    assert list(a) == [target]
    assert a[target].judge == "openai-api/stub/judge-a"
    assert a[target].outcomes["zh-0002"] == (1, "zh")
    assert b[target].outcomes["fr-0001"] == (None, "fr")
    report = compare_judges(a, b)
    [model] = report.models
    assert model.overall == pytest.approx(EXPECTED_AGREEMENT)
    assert {k: v["agreement"] for k, v in model.by_language.items()} == pytest.approx(
        EXPECTED_BY_LANGUAGE
    )
    assert model.n_answers_differ == 0
    assert report.average == pytest.approx(EXPECTED_AGREEMENT["agreement"])
    capsys.readouterr()
    assert main(["agreement", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    captured = capsys.readouterr()
    # Inspect names the judge with its provider
    _check_known_agreement(
        captured.out.replace("openai-api/stub/judge", "judge"), "openai-api/stub/stub-model"
    )
    assert captured.err.strip() == (
        f"culture-evals: {failed.location}: skipped, the run's status is error"
    )
    assert list((tmp_path / "b").glob("*.json"))  # a JSON log


# --- lm-eval runs (slow: real runs) -------------------------------------------------------------


@pytest.mark.slow
def test_export_lm_eval_answers_run(
    mirror: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubOpenAIServer(responder=responder) as server:
        run_lm_eval(server, ["culturesynth_answers_zh"], output_path=tmp_path / "lm")
    capsys.readouterr()  # lm-eval's progress bars
    out_file = tmp_path / "baseline.json"
    out, err = _export([str(tmp_path / "lm"), "-o", str(out_file)], capsys)
    assert "3 answers of stub-model" in out and err == ""
    baseline = read_baseline_responses(out_file)
    assert baseline.model == "stub-model"
    assert baseline.generation_settings == GREEDY_LM_EVAL
    assert baseline.responses == {q: f"ANSWER to {q}" for q in ("zh-0001", "zh-0002", "zh-0003")}
    [samples] = (tmp_path / "lm").rglob("samples_culturesynth_answers_zh_*.jsonl")
    assert baseline.sources == [
        {
            "harness": "lm-eval",
            "path": str(samples),
            "sha256": _sha256(samples),
            "task": "culturesynth_answers_zh",
            "dataset_sha256": _sha256(mirror / "culturesynth" / "culturesynth.jsonl"),
        }
    ]
    assert baseline.dataset_sha256 == baseline.sources[0]["dataset_sha256"]


@pytest.mark.slow
def test_agreement_of_two_lm_eval_runs(
    mirror: Path, baseline_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubOpenAIServer(responder=responder) as s:
        for judge in ("judge-a", "judge-b"):
            metadata = {
                "judge_model": judge,
                "judge_base_url": s.base_url,
                "baseline_responses": str(baseline_file),
            }
            run_lm_eval(s, ["culturesynth_all"], metadata, output_path=tmp_path / judge)
    assert main(["agreement", str(tmp_path / "judge-a"), str(tmp_path / "judge-b")]) == 0
    _check_known_agreement(capsys.readouterr().out, "stub-model")


# --- hand-written lm-eval files -----------------------------------------------------------------


def _lm_eval_run(
    root: Path,
    task: str,
    lines: list[dict[str, Any]],
    *,
    model: str | None = "org/model",
    stamp: str = "2025-06-01T10-00-00.000001",
    generation_kwargs: dict[str, Any] | None = None,
) -> Path:
    """A run as `lm_eval --output_path root --log_samples` lays it out; `model=None` writes no
    results file."""
    folder = root / (model or "org/model").replace("/", "__")
    folder.mkdir(parents=True, exist_ok=True)
    samples = folder / f"samples_{task}_{stamp}.jsonl"
    samples.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )
    if model is not None:  # one results file per run, covering all its tasks
        path = folder / f"results_{stamp}.json"
        results = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        results.setdefault("results", {})[task] = {}
        config = {"generation_kwargs": generation_kwargs or GREEDY_LM_EVAL}
        results.setdefault("configs", {})[task] = config
        results["config"] = {"model": "local-chat-completions", "model_args": f"model={model}"}
        results["model_name"] = model
        path.write_text(json.dumps(results), encoding="utf-8")
    return samples


def _answer_line(qid: str, answer: str) -> dict[str, Any]:
    language = qid.split("-")[0]
    doc = {"id": qid, "language": language, "question": QUESTIONS.get(qid, "?"), "primary_topic": "Arts"}  # fmt: skip
    return {"doc": doc, "resps": [[answer]], "filtered_resps": [answer]}


def _judged_line(
    qid: str, outcome: int | None, judge: str, answer: str = "TARGET"
) -> dict[str, Any]:
    line = _answer_line(qid, answer)
    line["doc"]["baseline_answer"] = "BASELINE"
    item = PairOutcome(qid, outcome, line["doc"]["language"], "Arts", None, None, 0).to_record()
    line["filtered_resps"] = [json.dumps({"judge_model": judge, "games": []})]
    return {**line, "net_win_rate": item, "n_scored": item}


def test_lm_eval_export_reads_results_and_leaves_out_empty_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = {"until": [], "max_gen_toks": 512, "do_sample": False, "temperature": 0.0}
    for lang in ("zh", "ja"):
        lines = [_answer_line(q, f"A {q}") for q in QUESTIONS if q.startswith(lang)]
        lines[-1]["resps"] = [["  "]]  # an empty answer
        _lm_eval_run(tmp_path / "out", f"culturesynth_answers_{lang}", lines, generation_kwargs=settings)  # fmt: skip
    out, err = _export([str(tmp_path / "out"), "-o", str(tmp_path / "b.json")], capsys)
    assert "3 answers of org/model from 2 run file(s)" in out
    assert "2 question(s) left out" in err and "ja-0002, zh-0003" in err
    baseline = read_baseline_responses(tmp_path / "b.json")
    assert baseline.generation_settings == settings
    assert sorted(baseline.responses) == ["ja-0001", "zh-0001", "zh-0002"]
    assert [s["task"] for s in baseline.sources] == [
        "culturesynth_answers_ja",
        "culturesynth_answers_zh",
    ]


def test_lm_eval_export_without_results_needs_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    samples = _lm_eval_run(
        tmp_path, "culturesynth_answers_fr", [_answer_line("fr-0001", "x")], model=None
    )
    with pytest.raises(SystemExit, match="pass --model NAME"):
        main(["baseline", "export", str(samples), "-o", str(tmp_path / "b.json")])
    out, err = _export([str(samples), "-o", str(tmp_path / "b.json"), "--model", "m"], capsys)
    assert "generation settings are not recorded" in err
    baseline = read_baseline_responses(tmp_path / "b.json")
    assert (baseline.model, baseline.generation_settings) == ("m", {})


def test_results_file_as_input_and_newest_samples_file_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _lm_eval_run(tmp_path, "culturesynth_answers_fr", [_answer_line("fr-0001", "old")], stamp="2025-01-01T00-00-00.1")  # fmt: skip
    new = _lm_eval_run(tmp_path, "culturesynth_answers_fr", [_answer_line("fr-0001", "new")], stamp="2025-02-01T00-00-00.1")  # fmt: skip
    _, err = _export([str(tmp_path), "-o", str(tmp_path / "b.json")], capsys)
    assert f"{old}: ignored, {new} is a newer run" in err
    assert read_baseline_responses(tmp_path / "b.json").responses == {"fr-0001": "new"}
    results = old.parent / "results_2025-01-01T00-00-00.1.json"
    _export([str(results), "-o", str(tmp_path / "b.json")], capsys)
    assert read_baseline_responses(tmp_path / "b.json").responses == {"fr-0001": "old"}


def test_conflicting_inputs_are_errors_naming_both(tmp_path: Path) -> None:
    a = _lm_eval_run(tmp_path / "a", "culturesynth_answers_fr", [_answer_line("fr-0001", "one")])
    b = _lm_eval_run(tmp_path / "b", "culturesynth_answers_fr", [_answer_line("fr-0001", "two")])
    out = str(tmp_path / "b.json")
    with pytest.raises(SystemExit, match=f"fr-0001 has different answers in {a} and {b}"):
        main(["baseline", "export", str(a), str(b), "-o", out])
    same = _lm_eval_run(tmp_path / "c", "culturesynth_answers_fr", [_answer_line("fr-0001", "one")])  # fmt: skip
    export_baseline([a, same])  # the same answer twice is fine
    other = _lm_eval_run(tmp_path / "d", "culturesynth_answers_ja", [_answer_line("ja-0001", "x")], model="org/other")  # fmt: skip
    with pytest.raises(SystemExit, match="different models: org/model .* and org/other"):
        main(["baseline", "export", str(a), str(other), "-o", out])
    hot = _lm_eval_run(tmp_path / "e", "culturesynth_answers_ja", [_answer_line("ja-0001", "x")], generation_kwargs={"temperature": 1.0})  # fmt: skip
    with pytest.raises(SystemExit, match="different settings"):
        main(["baseline", "export", str(a), str(hot), "-o", out])
    assert not Path(out).exists()


def test_export_errors_are_one_line(tmp_path: Path) -> None:
    out = str(tmp_path / "b.json")
    with pytest.raises(SystemExit, match="does not exist"):
        main(["baseline", "export", str(tmp_path / "nope"), "-o", out])
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit, match="no CultureSynth run in"):
        main(["baseline", "export", str(tmp_path / "empty"), "-o", out])
    other = tmp_path / "notes.json"
    other.write_text("{}", encoding="utf-8")
    with pytest.raises(SystemExit, match="not an Inspect log of culturesynth"):
        main(["baseline", "export", str(other), "-o", out])
    a = _lm_eval_run(tmp_path, "culturesynth_answers_fr", [_answer_line("fr-0001", "x")])
    with pytest.raises(SystemExit, match="--role baseline reads the baseline answers recorded in Inspect"):  # fmt: skip
        main(["baseline", "export", str(a), "-o", out, "--role", "baseline"])
    a.write_text("not json\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="line 1: not JSON"):
        main(["baseline", "export", str(a), "-o", out])


# Judge A and judge B on two target models. m1: 3 compared (q4 unscored by B), 2 agree; zh 1 of 2,
# ja 1 of 1. m2: 2 of 2. Average (66.67 + 100) / 2.
HAND = {
    "org/m1": {
        "a": {"zh-0001": 1, "zh-0002": -1, "ja-0001": 0, "ja-0002": 1},
        "b": {"zh-0001": 1, "zh-0002": 1, "ja-0001": 0, "ja-0002": None},
    },
    "org/m2": {"a": {"zh-0001": 1, "zh-0002": 0}, "b": {"zh-0001": 1, "zh-0002": 0}},
}


def _hand_runs(root: Path) -> None:
    for model, sides in HAND.items():
        for side, outcomes in sides.items():
            for lang in ("zh", "ja"):
                lines = [
                    _judged_line(q, o, f"judge-{side}")
                    for q, o in outcomes.items()
                    if q.startswith(lang)
                ]
                if lines:
                    _lm_eval_run(root / side, f"culturesynth_{lang}", lines, model=model)


def test_agreement_per_model_language_and_average(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _hand_runs(tmp_path)
    # answers-only runs in the same folder are ignored
    _lm_eval_run(tmp_path / "a", "culturesynth_answers_zh", [_answer_line("zh-0001", "x")])
    report = compare_judges(read_judged_runs(tmp_path / "a"), read_judged_runs(tmp_path / "b"))
    m1, m2 = report.models
    assert (m1.target, m1.judge_a, m1.judge_b) == ("org/m1", "judge-a", "judge-b")
    assert m1.overall == pytest.approx(
        {"agreement": 200 / 3, "n_compared": 3, "n_agree": 2, "n_unscored": 1, "n_unmatched": 0}
    )
    assert m1.by_language["zh"]["agreement"] == 50.0
    assert m1.by_language["ja"]["agreement"] == 100.0
    assert m2.overall["agreement"] == 100.0 and "ja" not in m2.by_language
    assert report.average == pytest.approx((200 / 3 + 100) / 2)
    assert main(["agreement", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert rows["org/m1"] == ["judge-a", "judge-b", "66.67", "3", "1", "0", "100.00", "50.00"]  # fmt: skip
    assert rows["org/m2"] == ["judge-a", "judge-b", "100.00", "2", "0", "0", "-", "100.00"]
    assert rows["Average"] == ["(2", "models)", "83.33"]


def test_agreement_reports_unpaired_models_and_different_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _lm_eval_run(tmp_path / "a", "culturesynth_fr", [_judged_line("fr-0001", 1, "j1")], model="x")
    _lm_eval_run(tmp_path / "a", "culturesynth_fr", [_judged_line("fr-0001", 1, "j1")], model="y")
    _lm_eval_run(tmp_path / "b", "culturesynth_fr", [_judged_line("fr-0001", 1, "j2", "other")], model="x")  # fmt: skip
    assert main(["agreement", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    err = capsys.readouterr().err
    assert "only in A, not compared: y" in err
    assert "x: the answers judged differ between the runs on 1 question(s)" in err


def test_agreement_errors(tmp_path: Path) -> None:
    _lm_eval_run(tmp_path / "a", "culturesynth_fr", [_judged_line("fr-0001", 1, "j1")], model="x")
    _lm_eval_run(tmp_path / "b", "culturesynth_fr", [_judged_line("fr-0001", 1, "j2")], model="y")
    with pytest.raises(SystemExit, match=r"no target model is judged in both runs \(A: x; B: y\)"):
        main(["agreement", str(tmp_path / "a"), str(tmp_path / "b")])
    with pytest.raises(SystemExit, match="does not exist"):
        main(["agreement", str(tmp_path / "a"), str(tmp_path / "nope")])
    _lm_eval_run(tmp_path / "c", "culturesynth_answers_fr", [_answer_line("fr-0001", "x")])
    with pytest.raises(SystemExit, match="no judged CultureSynth run"):
        main(["agreement", str(tmp_path / "a"), str(tmp_path / "c")])
    # one side mixing judges for one target model
    _lm_eval_run(tmp_path / "d", "culturesynth_fr", [_judged_line("fr-0001", 1, "j1")], model="x")
    _lm_eval_run(tmp_path / "d", "culturesynth_ja", [_judged_line("ja-0001", 1, "j2")], model="x")
    with pytest.raises(RunsError, match="x is judged by j1 .* and by j2"):
        read_judged_runs(tmp_path / "d")
    bad = _lm_eval_run(tmp_path / "e", "culturesynth_fr", [_judged_line("fr-0001", 2, "j1")])
    with pytest.raises(SystemExit, match="outcome 2 is not"):
        main(["agreement", str(bad), str(bad)])


def test_runs_before_task_version_2_are_read(tmp_path: Path) -> None:
    """Those stored each judged result as the list [outcome, language, topic, consistent,
    reason(, seed)] instead of the outcome record."""
    old = _judged_line("fr-0001", -1, "j1")
    old["net_win_rate"] = [-1, "fr", "Arts", True, None, 0]
    _lm_eval_run(tmp_path / "a", "culturesynth_fr", [old])
    assert read_judged_runs(tmp_path / "a")["org/model"].outcomes == {"fr-0001": (-1, "fr")}
    old["net_win_rate"] = {"outcome": 1}  # neither form
    bad = _lm_eval_run(tmp_path / "b", "culturesynth_fr", [old])
    with pytest.raises(RunsError, match="expected a judged result"):
        read_judged_runs(bad)


def test_nothing_compared_is_nan_not_zero(tmp_path: Path) -> None:
    _lm_eval_run(tmp_path / "a", "culturesynth_fr", [_judged_line("fr-0001", None, "j1")])
    _lm_eval_run(tmp_path / "b", "culturesynth_fr", [_judged_line("fr-0001", 1, "j2")])
    report = compare_judges(read_judged_runs(tmp_path / "a"), read_judged_runs(tmp_path / "b"))
    assert math.isnan(report.models[0].overall["agreement"]) and math.isnan(report.average)

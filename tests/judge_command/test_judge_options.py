"""`culture-evals judge` honours the judging options it is given: `jury_rule` decides a CARE
jury's rating over the rule the generation run saved (and is recorded), and without one the
saved rule holds. (Refusals of bad and unknown keys: tests/test_bad_options_everywhere.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.cli import main
from tests.support.harness_runs import run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = pytest.mark.slow
RATINGS = {"judge_a": 2, "judge_b": 6, "judge_c": 9}  # mean 17/3, median 6
JURY = ["--judge-models", ",".join(RATINGS)]


def _three_judges(prompt: str, body: dict[str, Any]) -> str:
    if not prompt.startswith("Please serve as"):
        return care_responder(prompt, body)
    return f"Fine.\nRating: [[{RATINGS[body['model']]}]]"


def _judged(server: StubOpenAIServer, gen: Path, out: Path, *options: str) -> dict[str, Any]:
    args = ["judge", str(gen), "-o", str(out), *JURY, "--judge-base-url", server.base_url]
    assert main([*args, *options]) == 0
    [path] = out.rglob("results_*.json")
    results = json.loads(path.read_text("utf-8"))
    [samples] = out.rglob("samples_care_zh_*.jsonl")
    rules = {
        json.loads(json.loads(line)["filtered_resps"][0])["jury"]["rule"] for line in samples.open()
    }
    return {
        "rating": results["results"]["care_zh"]["rating,judged"],
        "rules": rules,
        "results": results,
    }


def test_a_jury_rule_given_wins_over_the_saved_one(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    median = ["--metadata", json.dumps({"jury_rule": "median"})]
    with StubOpenAIServer(responder=_three_judges) as server:
        # generated with no rule (a lone judge's run): the mean, unless the median is given
        run_lm_eval(
            server, ["care_zh"], {"judge_later": True}, output_path=tmp_path / "g1", limit=3
        )
        by_default = _judged(server, tmp_path / "g1", tmp_path / "default")
        given = _judged(server, tmp_path / "g1", tmp_path / "median", *median)
        # generated with the median: kept, unless the mean is given
        saved = {"judge_later": True, "jury_rule": "median"}
        run_lm_eval(server, ["care_zh"], saved, output_path=tmp_path / "g2", limit=3)
        kept = _judged(server, tmp_path / "g2", tmp_path / "kept")
        mean = ["--metadata", json.dumps({"jury_rule": "mean"})]
        overridden = _judged(server, tmp_path / "g2", tmp_path / "mean", *mean)
    assert by_default["rating"] == pytest.approx(17 / 3) and by_default["rules"] == {"mean"}
    assert given["rating"] == 6 and given["rules"] == {"median"}
    assert kept["rating"] == 6 and kept["rules"] == {"median"}
    assert overridden["rating"] == pytest.approx(17 / 3) and overridden["rules"] == {"mean"}
    # the rule used is recorded with the judge, as the report reads the run's settings
    assert given["results"]["configs"]["care_zh"]["metadata"]["jury_rule"] == "median"
    assert given["results"]["judge"]["settings"]["jury_rule"] == "median"

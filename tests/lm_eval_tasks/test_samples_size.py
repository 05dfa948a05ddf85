"""lm-eval's samples file holds each doc's outcome record under its headline metric names only
(the breakdowns are computed from it by `culture-evals report`): a line stays small."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.culturesynth_data import write_stub_baseline
from tests.support.harness_runs import run_lm_eval
from tests.support.openai_stub import StubOpenAIServer
from tests.support.report_runs import responder

pytestmark = pytest.mark.slow
# what a line holds besides the doc and the model's (or the judge's) response text
RESPONSE_FIELDS = ("doc", "arguments", "resps", "filtered_resps")
LIMIT_BYTES = 2000


def test_samples_lines_stay_small(full_mirror: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    out = tmp_path / "out"
    baseline = write_stub_baseline(tmp_path / "baseline.json")
    with StubOpenAIServer(responder=responder) as server:
        judge = {"judge_model": "judge", "judge_base_url": server.base_url}
        run_lm_eval(
            server,
            ["normad_rot", "cqbench_ad_social", "cqbench_vs_ethical"],
            output_path=out,
            limit=4,
        )
        run_lm_eval(server, ["care_zh"], judge, output_path=out, limit=4)
        culturesynth = {**judge, "baseline_responses": str(baseline)}
        run_lm_eval(server, ["culturesynth_all"], culturesynth, output_path=out, limit=4)
    files = sorted(out.rglob("samples_*.jsonl"))
    tasks = {f.name.rsplit("_", 1)[0].removeprefix("samples_") for f in files}
    assert tasks == {
        "normad_rot",
        "cqbench_ad_social",
        "cqbench_vs_ethical",
        "care_zh",
        "culturesynth_all",
    }
    for path in files:
        lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
        assert lines, path
        for line in lines:
            assert isinstance(line[line["metrics"][0]], dict)  # the outcome record is there
            rest = {k: v for k, v in line.items() if k not in RESPONSE_FIELDS}
            size = len(json.dumps(rest, ensure_ascii=False).encode("utf-8"))
            assert size < LIMIT_BYTES, f"{path.name}: {size} bytes besides doc and response"

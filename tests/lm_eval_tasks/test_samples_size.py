"""What we add to lm-eval's samples line stays under 1 kB (issue 42): one metric field carries
the doc's outcome record, the others name that field, and the provenance sits once in the task's
metadata. The readers find the record under every metric field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspect_culture.run_files.lm_eval_outputs import outcome_records, results_json
from tests.support.culturesynth_data import write_stub_baseline
from tests.support.harness_runs import run_lm_eval
from tests.support.openai_stub import StubOpenAIServer
from tests.support.report_runs import responder

pytestmark = pytest.mark.slow
# what a line holds besides what we add: the doc, the prompt lm-eval echoes, the responses
RESPONSE_FIELDS = ("doc", "arguments", "resps", "filtered_resps")
LIMIT_BYTES = 1000
TASKS = {"normad_rot", "cqbench_ad_social", "cqbench_vs_ethical", "care_zh", "culturesynth_all"}


def added_bytes(line: dict) -> int:
    """The bytes of a samples line beyond the doc, the prompt and the responses."""
    rest = {k: v for k, v in line.items() if k not in RESPONSE_FIELDS}
    return len(json.dumps(rest, ensure_ascii=False).encode("utf-8"))


def test_samples_lines_add_under_1_kb(full_mirror: Path, tmp_path: Path, monkeypatch) -> None:
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
    assert {f.name.rsplit("_", 1)[0].removeprefix("samples_") for f in files} == TASKS
    for path in files:
        lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
        assert lines, path
        for line in lines:
            carrier, *others = line["metrics"]
            assert isinstance(line[carrier], dict)  # the outcome record is there, once
            assert all(line[name] == carrier for name in others)  # the others name it
            size = added_bytes(line)
            assert size < LIMIT_BYTES, f"{path.name}: {size} bytes besides doc and response"
        # every metric field reads as the record (the report reads e.g. CARE's `rating`)
        records = outcome_records(path, lines[0]["metrics"][0])
        for name in lines[0]["metrics"][1:]:
            assert outcome_records(path, name) == records
    # the provenance: once per task, in its config's metadata
    for results in out.rglob("results_*.json"):
        for task, config in results_json(results)["configs"].items():
            provenance = config["metadata"]["provenance"]
            assert len(provenance["sha256"]) == 64 and provenance["rows"] > 0, task

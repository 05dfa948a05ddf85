"""Every registered task, end to end on Inspect's mock model, and the Register listing
(`inspect_culture/eval.yaml`) in step with the code: the same tasks, the same pinned revisions.

It sits at the root of `tests/` on purpose: inspect-evals-lint's single-eval layout finds a
package's tests through test files directly under `tests/`, then searches the whole tree."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

import inspect_culture.inspect_entry_point as registry
from inspect_culture.benchmark_registry import benchmarks

EVAL_YAML = Path(registry.__file__).with_name("eval.yaml")


def _listing() -> dict:
    return yaml.safe_load(EVAL_YAML.read_text(encoding="utf-8"))


def test_listing_names_every_registered_task() -> None:
    listed = [task["name"] for task in _listing()["tasks"]]
    assert sorted(listed) == sorted(registry.__all__)
    assert len(set(listed)) == len(listed)


def test_listing_pins_the_revisions_the_loaders_use() -> None:
    sources = {b.name: b.load_source() for b in benchmarks()}
    assets = {
        asset["source"]: asset
        for task in _listing()["tasks"]
        for asset in task["external_assets"]
        if asset["source"] in sources
    }
    assert set(sources) <= set(assets)
    for name, source in sources.items():
        assert assets[name]["revision"] == source.revision, name
        assert assets[name]["license"] == source.license, name


def test_every_task_cites_its_paper_and_licence() -> None:
    for task in _listing()["tasks"]:
        assert task["paper"].startswith("https://arxiv.org/abs/"), task["name"]
        assert all(asset["license"] for asset in task["external_assets"]), task["name"]


# registry name -> task arguments that pick the synthetic data's settings
TASK_ARGS: dict[str, dict[str, object]] = {
    "normad": {},
    "care": {"per_category": 1},
    "care_judge_agreement": {},
    "cqbench_ad": {"setting": "social"},
    "cqbench_vs": {"setting": "ethical"},
    "cqbench_ve": {"setting": "social"},
    "culturesynth": {"language": "zh"},
    "culturesynth_answers": {"language": "zh"},
}
# Each benchmark's task version, as its spec sets it (bumped when prompts, parsers or metrics
# change): a task that reported another would record the wrong version in every log.
TASK_VERSIONS = {"normad": 2, "care": 4, "cqbench": 4, "culturesynth": 4}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TASK_ARGS))
def test_every_task_runs_end_to_end_on_the_mock_model(
    name: str, full_mirror: Path, tmp_path: Path
) -> None:
    """Each task the entry point registers (`inspect eval inspect_culture/<name>` by name is
    tests/inspect_adapter/test_inspect_cli.py's job: in one process the name depends on import order).
    The mock model's fixed reply is no answer and no verdict: answers count as unparsed, judged
    samples are unscored with a reason in words, and the run still succeeds."""
    from inspect_ai import eval as inspect_eval

    assert sorted(TASK_ARGS) == sorted(registry.__all__)
    roles = {"grader": "mockllm/model", "baseline": "mockllm/model"}
    [log] = inspect_eval(
        getattr(registry, name)(**TASK_ARGS[name]), model="mockllm/model", model_roles=roles,
        limit=3, log_dir=str(tmp_path / "logs"), display="none",
    )  # fmt: skip
    assert log.status == "success", log.error
    assert log.eval.task_version == TASK_VERSIONS[name.split("_")[0]]
    assert log.samples and all(s.output.completion for s in log.samples)
    scores = [score for s in log.samples for score in (s.scores or {}).values()]
    assert scores or name == "culturesynth_answers"
    for score in scores:
        if isinstance(score.value, float) and math.isnan(score.value):
            assert score.reason and " " in score.reason, score  # a reason in words, not a key

"""CQ-Bench value extraction (VE): two generations and a per-value judge, in both harnesses.

lm-eval runs VE as two tasks (step 1 writes the summaries file, step 2 reads it); Inspect runs
both steps in one eval. Same outputs and verdicts must give the same numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.cqbench import cqbench_ve
from inspect_culture.datasets_hub.errors import DatasetUnavailableError
from inspect_culture.judging.defaults import DEFAULT_SEED
from inspect_culture.judging.options import JudgeConfigError
from tests.support.cqbench_data import use_zip_mirror
from tests.support.harness_runs import (
    inspect_eval_on_stub,
    lm_eval_all_metrics,
    run_lm_eval,
    stub_grader,
)
from tests.support.openai_stub import StubOpenAIServer, honouring_constraints

pytestmark = [pytest.mark.slow, pytest.mark.compat]

ETHICAL_STORIES = [
    {
        "story": "Cara and Dev argue about honesty at work.",
        "values": ["Honesty matters--agree", "Lying is acceptable--disagree"],
        "contradiction": [],
    },
    {
        "story": "Eli and Fay plan a charity drive.",
        "values": ["Helping others is a duty--agree", "Wealth should be shared--agree", "Charity is pointless--disagree"],
        "contradiction": [],
    },
    {  # every value contradicted: no gold set, not evaluated
        "story": "Gus and Hal discuss a broken promise.",
        "values": ["Promises bind--agree"],
        "contradiction": ["Promises bind--agree"],
    },
    {
        "story": "Ida and Jo debate a lost wallet.",
        "values": ["Return lost items--agree", "Finders keepers--disagree"],
        "contradiction": [],
    },
]  # fmt: skip
JUDGE_REPLIES = {
    "Honesty matters": "[Final answer]:\n[Ground truth 1]: 1\n[Ground truth 2]: 0",
    # value 2 scored off-scale (unscored), the lines out of order
    "Helping others": "[Final answer]:\n[Ground truth 1]: 0.5\n[Ground truth 3]: 1\n[Ground truth 2]: 7",
    "Return lost items": "I cannot judge this.",  # no verdict: both values unscored
}
# scored values 1, 0, 0.5, 1 -> recall 2.5 / 4, in both harnesses
EXPECTED = {"recall": 0.625, "recall_ethical": 0.625, "n_scored": 4.0}
# Unscored gold values: 1 in a judged story, and the 2 of the story with no verdict: lm-eval's
# n_unscored. Inspect reports no n_unscored: that story is its one unscored sample.
UNSCORED_VALUES = 3.0
# the names only lm-eval reports: its unscored-value count and step 2's missing summaries
LM_EVAL_ONLY = {"n_unscored", "stories_without_summary"}


def _assert_same_numbers(ours: dict[str, float], theirs: dict[str, float]) -> None:
    """Every metric name both harnesses report has the same number."""
    assert set(ours) == set(theirs) - LM_EVAL_ONLY
    assert ours == {name: theirs[name] for name in ours}


def _name(prompt: str) -> str:
    return next(s["story"].split()[0] for s in ETHICAL_STORIES if s["story"] in prompt)


def responder(prompt: str, body: dict[str, Any]) -> str:
    if "ground truth set of values" in prompt:
        return next(reply for key, reply in JUDGE_REPLIES.items() if key in prompt)
    if "Your goal is to summarize the main themes" in prompt:
        return f"Themes of {_name(prompt)}."
    if "Your goal is to identify the most prevalent" in prompt:
        name = _name(prompt)
        assert f"Themes of {name}." in prompt  # step 2 sees this story's step-1 summary
        return f"Reasoning.\n[Final answer]:\n{name} values honesty."
    raise AssertionError(prompt[:200])


@pytest.fixture
def mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    members = {"dataset_setting1_social.json": [], "dataset_ethical_original.json": ETHICAL_STORIES}
    use_zip_mirror(monkeypatch, tmp_path / "mirror", members)
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")


def _requests(server: StubOpenAIServer, marker: str) -> list[list[dict[str, str]]]:
    return sorted(
        (
            [{"role": m["role"], "content": m["content"]} for m in body["messages"]]
            for body in server.run_requests()  # the check before generation apart
            if marker in body["messages"][-1]["content"]
        ),
        key=json.dumps,
    )


def _run_inspect_ve(server: StubOpenAIServer, log_dir: Path, **task_args: Any) -> Any:
    """Both VE steps and the judge in one Inspect eval; its log."""
    log = inspect_eval_on_stub(
        cqbench_ve(setting="ethical", **task_args),
        server,
        log_dir,
        model_roles={"grader": stub_grader(server)},
    )
    assert log.status == "success", log.error
    return log


def _metrics(log: Any) -> dict[str, float]:
    return {k: v.value for k, v in log.results.scores[0].metrics.items()}


def _run_lm_eval_ve(
    server: StubOpenAIServer, out: Path, limit: int | None = None, **extra: Any
) -> dict:
    run_lm_eval(server, ["cqbench_ve_summary_ethical"], output_path=out, limit=limit)
    metadata = {"judge_model": "judge", "judge_base_url": server.base_url, "ve_summaries": str(out)}
    return run_lm_eval(server, ["cqbench_ve_ethical"], {**metadata, **extra})


def test_ve_parity_and_known_answer(mirror, tmp_path: Path) -> None:
    with StubOpenAIServer(responder=responder) as inspect_server:
        log = _run_inspect_ve(inspect_server, tmp_path / "logs")
    ours = _metrics(log)

    with StubOpenAIServer(responder=responder) as lm_server:
        results = _run_lm_eval_ve(lm_server, tmp_path / "out")
    theirs = lm_eval_all_metrics(results, "cqbench_ve_ethical", "judged")

    assert ours == EXPECTED
    _assert_same_numbers(ours, theirs)
    assert theirs["n_unscored"] == UNSCORED_VALUES
    [unscored] = [s for s in log.samples if s.scores["cqbench_ve_judge"].reason is not None]
    score = unscored.scores["cqbench_ve_judge"]
    assert score.reason == "the judge reply has no parsable per-value scores"
    assert score.explanation == "I cannot judge this."
    assert score.metadata["value_scores"] == [None, None]
    assert log.results.scores[0].unscored_samples == 1
    assert theirs["stories_without_summary"] == 0
    # the same prompts, system messages included, at every step
    for marker in ("summarize the main themes", "identify the most prevalent", "ground truth set"):
        sent_inspect = _requests(inspect_server, marker)
        assert len(sent_inspect) == 3  # the story without gold values is not evaluated
        assert sent_inspect == _requests(lm_server, marker), marker
    samples = results["samples"]["cqbench_ve_ethical"]
    assert {s["doc"]["summary"] for s in samples} == {
        "Themes of Cara.",
        "Themes of Eli.",
        "Themes of Ida.",
    }


def test_ve_step2_without_summaries_fails_before_generation(mirror) -> None:
    with StubOpenAIServer(responder=responder) as server:
        metadata = {"judge_model": "judge", "judge_base_url": server.base_url}
        with pytest.raises(DatasetUnavailableError, match="cqbench_ve_summary_ethical"):
            run_lm_eval(server, ["cqbench_ve_ethical"], metadata)
        with pytest.raises(DatasetUnavailableError, match="no samples_cqbench_ve_summary_ethical"):
            run_lm_eval(
                server, ["cqbench_ve_ethical"], {**metadata, "ve_summaries": str(Path.cwd())}
            )
        with pytest.raises(JudgeConfigError):
            run_lm_eval(server, ["cqbench_ve_ethical"], {"ve_summaries": "x"})
        assert server.requests == []


def test_ve_stories_without_summary_are_counted(mirror, tmp_path: Path) -> None:
    with StubOpenAIServer(responder=responder) as server:
        results = _run_lm_eval_ve(server, tmp_path / "out", limit=1)  # step 1 summarizes one story
        step2 = [s for s in server.prompts() if "identify the most prevalent" in s]
    metrics = lm_eval_all_metrics(results, "cqbench_ve_ethical", "judged")
    assert len(step2) == 1 and "Cara" in step2[0]
    assert metrics["stories_without_summary"] == 2
    assert metrics["recall"] == 0.5 and metrics["n_scored"] == 2


def test_ve_summaries_of_another_dataset_revision_fail(mirror, tmp_path: Path) -> None:
    with StubOpenAIServer(responder=responder) as server:
        run_lm_eval(server, ["cqbench_ve_summary_ethical"], output_path=tmp_path / "out")
        [samples_file] = (tmp_path / "out").rglob("samples_cqbench_ve_summary_ethical_*.jsonl")
        lines = samples_file.read_text().splitlines()
        first = json.loads(lines[0])
        first["doc"]["story"] = "A different story."
        samples_file.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
        metadata = {
            "judge_model": "j",
            "judge_base_url": server.base_url,
            "ve_summaries": str(samples_file),
        }
        with pytest.raises(DatasetUnavailableError, match="another dataset revision"):
            run_lm_eval(server, ["cqbench_ve_ethical"], metadata)


def test_cqbench_group_includes_ve(mirror) -> None:
    from lm_eval.tasks import TaskManager

    from inspect_culture.lm_eval_tasks import include_path

    manager = TaskManager(include_path=[str(include_path())], include_defaults=False)
    assert {
        f"cqbench_ve_{s}" for s in ("random", "political", "social", "religious", "ethical")
    } <= set(manager.all_tasks)
    assert "cqbench_ve" in manager.all_groups and "cqbench_ve_summary" in manager.all_groups


def test_ve_constrained_judge_scores_every_value_in_both_harnesses(mirror, tmp_path: Path) -> None:
    judge = honouring_constraints(responder)
    with StubOpenAIServer(responder=judge) as inspect_server:
        log = _run_inspect_ve(inspect_server, tmp_path / "logs", judge_constraint="grammar")
    ours = _metrics(log)
    with StubOpenAIServer(responder=judge) as lm_server:
        results = _run_lm_eval_ve(lm_server, tmp_path / "out", judge_constraint="grammar")
    theirs = lm_eval_all_metrics(results, "cqbench_ve_ethical", "judged")
    # 2 + 3 + 2 gold values, each with a verdict line (the unconstrained judge left 3 unscored)
    assert ours["n_scored"] == theirs["n_scored"] == 7
    assert theirs["n_unscored"] == log.results.scores[0].unscored_samples == 0
    _assert_same_numbers(ours, theirs)
    grammars = [
        body["grammar"]
        for body in lm_server.requests
        if "ground truth set" in body["messages"][-1]["content"]
    ]
    assert sorted(g.count("[Ground truth") for g in grammars) == [2, 2, 3]  # one line per value


def _jury_responder(prompt: str, body: dict[str, Any]) -> str:
    """judge_a answers as JUDGE_REPLIES says; judge_b scores every value 1."""
    if "ground truth set of values" in prompt and body["model"] == "judge_b":
        n = prompt.count("\n- ") or 2
        lines = "".join(f"\n[Ground truth {k}]:1" for k in range(1, n + 1))
        return f"[Reasoning]:\nAll there.\n[Final answer]:{lines}"
    return responder(prompt, body)


def test_ve_jury_parity(mirror, tmp_path: Path) -> None:
    """Two judges of different rules: the per-value majority (a split is not a recall), each
    judge's recall and Krippendorff's alpha are the same in both harnesses."""
    from inspect_ai.model import get_model

    with StubOpenAIServer(responder=_jury_responder) as inspect_server:
        roles = {
            "grader": get_model("openai-api/stub/judge_a", base_url=inspect_server.base_url),
            "grader_2": get_model("openai-api/stub/judge_b", base_url=inspect_server.base_url),
        }
        log = inspect_eval_on_stub(
            cqbench_ve(setting="ethical"), inspect_server, tmp_path / "logs", model_roles=roles
        )
    assert log.status == "success", log.error
    ours = _metrics(log)
    with StubOpenAIServer(responder=_jury_responder) as lm_server:
        run_lm_eval(lm_server, ["cqbench_ve_summary_ethical"], output_path=tmp_path / "out")
        metadata = {
            "judge_models": ["judge_a", "judge_b"],
            "judge_base_url": lm_server.base_url,
            "ve_summaries": str(tmp_path / "out"),
        }
        results = run_lm_eval(lm_server, ["cqbench_ve_ethical"], metadata)
    theirs = lm_eval_all_metrics(results, "cqbench_ve_ethical", "judged")
    _assert_same_numbers(ours, theirs)
    assert ours["n_judges"] == 2 and "judges_alpha" in ours
    assert ours["judge_2_mean"] == 1.0  # judge_b recalls everything
    # the story judge_a could not judge is judged by judge_b alone: no story unscored
    assert log.results.scores[0].unscored_samples == 0


def _rejudging_responder(prompt: str, body: dict[str, Any]) -> str:
    """Judgings 1 and 2 answer as JUDGE_REPLIES says; judging 3 scores every value 1."""
    if "ground truth set of values" in prompt and body["seed"] == DEFAULT_SEED + 2:
        return _jury_responder(prompt, {**body, "model": "judge_b"})
    return responder(prompt, body)


def test_ve_rejudging_parity(mirror, tmp_path: Path) -> None:
    """Three judgings of each story: each gold value's score is its judgings' majority, so
    judging 3's full recall changes only values judgings 1 and 2 left unscored; the same
    requests, seeds and numbers in both harnesses."""
    with StubOpenAIServer(responder=_rejudging_responder) as inspect_server:
        log = inspect_eval_on_stub(
            cqbench_ve(setting="ethical", judge_repeats=3),
            inspect_server,
            tmp_path / "logs",
            model_roles={"grader": stub_grader(inspect_server)},
        )
        inspect_seeds = sorted(
            b["seed"] for b in inspect_server.run_requests() if "ground truth" in str(b)
        )
    assert log.status == "success", log.error
    ours = _metrics(log)
    with StubOpenAIServer(responder=_rejudging_responder) as lm_server:
        run_lm_eval(lm_server, ["cqbench_ve_summary_ethical"], output_path=tmp_path / "out")
        lm_server.requests.clear()
        metadata = {
            "judge_model": "judge",
            "judge_base_url": lm_server.base_url,
            "ve_summaries": str(tmp_path / "out"),
            "judge_repeats": 3,
        }
        results = run_lm_eval(lm_server, ["cqbench_ve_ethical"], metadata)
        lm_seeds = sorted(b["seed"] for b in lm_server.run_requests() if "ground truth" in str(b))
    theirs = lm_eval_all_metrics(results, "cqbench_ve_ethical", "judged")
    _assert_same_numbers(ours, theirs)
    stories = len(log.samples)
    assert lm_seeds == inspect_seeds
    assert inspect_seeds == sorted([DEFAULT_SEED, DEFAULT_SEED + 1, DEFAULT_SEED + 2] * stories)
    for sample in log.samples:
        meta = sample.scores["cqbench_ve_judge"].metadata
        assert meta["repeats"]["n_judgings"] == 3 and len(meta["judgments"]) == 3
        # judging 3 scores every value: none is left unscored, and where judgings 1 and 2
        # scored a value their score is the majority, so recall only gains where they failed
        assert None not in meta["value_scores"]
        first = meta["repeats"]["values"][0]
        if first is not None:
            assert sample.scores["cqbench_ve_judge"].value >= first

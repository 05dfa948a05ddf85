"""`judge_price` (IN,OUT per million tokens) in each harness: a malformed price is refused in one
line naming the option and the form, before anything runs; a good one prices the estimate said
before generation, which every judged lm-eval run now says (one judge too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspect_culture.benchmarks.care.judging import CareJudging
from inspect_culture.cli import main
from inspect_culture.inspect_adapter.roles import prerequisite_error
from inspect_culture.judging.options import JudgeConfigError, metadata_options
from inspect_culture.judging.usage import Price, reference_estimate
from inspect_culture.lm_eval_tasks import include_path
from inspect_culture.lm_eval_tasks.judge import batch

CLOSED = "http://127.0.0.1:9/v1"  # a judge the checks never reach
BAD = "2.5;10"


def _one_line_naming_the_form(message: str) -> None:
    assert "\n" not in message.strip() and "Traceback" not in message, message
    assert "judge_price" in message and "IN,OUT" in message and "2.5,10" in message, message


def test_inspect_refuses_a_malformed_price_in_one_line() -> None:
    from inspect_culture.care import care

    with pytest.raises(prerequisite_error()) as raised:
        care(language="zh", judge_price=BAD)
    _one_line_naming_the_form(str(raised.value))


def test_lm_eval_refuses_a_malformed_price_in_one_line(
    full_mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lm_eval.tasks import TaskManager, get_task_dict

    monkeypatch.setattr(batch, "run_judges", lambda: True)  # as in a run that judges
    metadata = {"judge_model": "j", "judge_base_url": CLOSED, "judge_preflight": False}
    manager = TaskManager(
        include_path=[str(include_path())],
        include_defaults=False,
        metadata={**metadata, "judge_price": BAD},
    )
    with pytest.raises(JudgeConfigError) as raised:
        get_task_dict(["care_zh"], manager)
    _one_line_naming_the_form(str(raised.value))


def test_culture_evals_judge_refuses_a_malformed_price_in_one_line(tmp_path: Path) -> None:
    args = ["judge", str(tmp_path / "run"), "-o", str(tmp_path / "out"), "--dry-run"]
    with pytest.raises(SystemExit) as raised:
        main([*args, "--judge-model", "j", "--judge-base-url", CLOSED, "--judge-price", BAD])
    message = str(raised.value.code)
    assert message.startswith("culture-evals judge: ")
    _one_line_naming_the_form(message)


def test_one_judge_is_announced_with_the_estimate_and_its_cost(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before this, only a jury or re-judging was announced; cost matters with one judge too."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    docs = [
        {"id": f"q{i}", "category": "literacy", "question": "问题？", "answer": "参考答案。" * i}
        for i in range(1, 4)
    ]
    judge = {
        "judge_model": "j", "judge_base_url": CLOSED, "judge_price": "2.5,10",
        "judge_preflight": False,  # no check: each reply the declared verdict
    }  # fmt: skip
    options = metadata_options(judge)
    with batch.use_task_options("t", options):
        batch.announce_judge_calls(
            "t", 1, [d["id"] for d in docs], judging=CareJudging(), docs=docs
        )
    said = capsys.readouterr().err.strip()
    prompt, completion = reference_estimate(CareJudging(), docs)
    assert completion == 3 * 250 and prompt > 3 * 400  # the rubric is about 430 tokens
    money = (prompt * 2.5 + completion * 10) / 1e6
    assert said == (
        "t: 3 judge calls to j (fewer with --limit): 3 to make, 0 cached; estimated "
        f"{prompt} prompt + {completion} completion tokens (completion assumed 250 a verdict), "
        f"about {money:.4f} at 2.5,10 per million"
    )
    assert options.judge_price == Price(2.5, 10.0)

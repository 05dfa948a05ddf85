"""What every judged Inspect task (CARE, CultureSynth-7, CQ-Bench VE) does alike, in one place:
its judge scorer's judgment of one sample (the one orchestration, `judging/orchestration.py`,
through the grader roles), the score it records, and its metrics over the outcome records with a
jury's figures. A task file says only what is its benchmark's: its judging, its fields, its
metrics function."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from inspect_ai.model import Model
from inspect_ai.scorer import Metric, SampleScore, Score
from inspect_ai.solver import TaskState

from inspect_culture.inspect_adapter.eval_hooks import ALL_UNSCORED, note_judge_later
from inspect_culture.inspect_adapter.judge import GraderTransport, jury_roles
from inspect_culture.judging.jury import JURY_KEY, JuryJudging
from inspect_culture.judging.jury_agreement import VoteKind, with_jury
from inspect_culture.judging.options import JudgeOptions
from inspect_culture.judging.orchestration import (
    JudgedLater,
    judge_answers,
    judge_names,
    judges_named,
)
from inspect_culture.judging.protocol import Judged, JudgeReply, JudgeRequest
from inspect_culture.judging.repeats import REPEATS_KEY
from inspect_culture.judging.usage import TOKENS_KEY


class _Later(JudgedLater):
    """A generation-only run's transport, which Inspect's end-of-task note learns of."""

    async def send(self, requests: Sequence[JudgeRequest], judging: int) -> list[JudgeReply]:
        if requests:
            note_judge_later()
        return await super().send(requests, judging)


@dataclass(frozen=True)
class SampleJudgment:
    """One sample's judgment: its judges by name (none without a request), the outcome, each
    judge's replies (a re-judged answer's judging r as "<judge>, judging r") and the model's
    answer that was judged."""

    judges: dict[str, Model]
    judged: Judged
    replies: dict[str, list[JudgeReply]]
    answer: str | None = None

    def judges_shown(self) -> dict[str, Any]:
        """What a score's metadata says of its judges (`orchestration.judges_named`), with a
        jury's votes and reasons (`jury`), each judging's value (`repeats`) and each judge's
        tokens (`judge_tokens`: the report's "Judge cost" reads them)."""
        if not self.judges:
            return {"judge_model": "none (judge_later)"}
        details = self.judged.details
        kept = {key: details[key] for key in (JURY_KEY, REPEATS_KEY, TOKENS_KEY) if key in details}
        return {**judges_named([str(model) for model in self.judges.values()]), **kept}

    def replies_shown(self) -> list[str | None]:
        """Every reply's text, judge by judge; a jury's each headed by its judge's name."""
        if len(self.replies) == 1:
            return [r.text for r in next(iter(self.replies.values()))]
        named = self.replies.items()
        return [f"[{name}] {r.text or r.error or ''}" for name, rs in named for r in rs]

    def explanation(self) -> str | None:
        """A lone reply as it is; several, one after another."""
        shown = self.replies_shown()
        return shown[0] if len(shown) == 1 else "\n\n---\n\n".join(r or "" for r in shown)

    def score(self, **shown: Any) -> Score:
        """The sample's score: its value, or unscored with the benchmark's reason (never 0).
        Its `answer` is the model's answer, as Inspect's `model_graded_qa` records it: Inspect
        View's sample list shows it in its ANSWER column (scored, unscored, judged later or by
        a jury alike)."""
        shown = {**shown, "answer": self.answer}
        if self.judged.value is None:
            return Score.unscored(reason=self.judged.reason, **shown)
        return Score(value=self.judged.value, **shown)


async def judge_sample(
    judging: JuryJudging,
    state: TaskState,
    options: JudgeOptions,
    reference: str | None = None,
    rule: str = "majority",
) -> SampleJudgment:
    """The benchmark's judge requests for the sample's answer (its record: the sample's metadata,
    its id, and the `reference` answer when the judge reads one), sent concurrently by the one
    orchestration; the jury is looked up only when there is a request. A jury's outcome by
    `rule` (`judging/jury.py`), judged again as `options.repeats` says (`judging/repeats.py`)."""
    item = {**state.metadata, "id": str(state.sample_id)}
    if reference is not None:
        item["answer"] = reference
    answer = state.output.completion
    requests = judging.requests(item, answer)
    jury = jury_roles(options.self_grade, options.judge_later) if requests else {}
    transports = [GraderTransport(grader, options) for grader in jury.values()] or [_Later()]
    [done] = await judge_answers(
        judging,
        [(item, answer)],
        transports,
        rule=rule,
        repeats=options.repeats,
        requests=[requests],
    )
    shown = {
        (name if r == 1 else f"{name}, judging {r}"): replies
        for r, replies_by_name in enumerate(done.judgings, 1)
        for name, replies in replies_by_name.items()
    }
    judges = dict(zip(judge_names(len(jury)), jury.values()))
    return SampleJudgment(judges, done.judged, shown, answer)


def judged_metrics(
    outcome: Callable[[dict[str, Any]], Any],
    metrics: Callable[..., dict[str, float]],
    votes: VoteKind,
    dropped: Collection[str],
    scale: float = 1.0,
) -> Metric:
    """A judged task's metric over every epoch's score (the same full computation for Inspect's
    live display and for the log: a metric cannot tell them apart without Inspect's internals,
    and the bootstrap of a judged task costs milliseconds): the benchmark's `metrics` of each
    score's `outcome` record, with a jury's figures, less `dropped` (Inspect counts unscored
    samples itself). None scored: `all_unscored` = 1, which `eval_hooks` turns into the alarm
    when the task ends."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        if not scores:
            return {"n_scored": 0.0, ALL_UNSCORED: 1.0}
        outcomes = [outcome(s.score.metadata or {}) for s in scores]
        juries = [(s.score.metadata or {}).get(JURY_KEY) for s in scores]
        computed = with_jury(partial(metrics, outcomes), juries, votes, scale)()
        return {k: v for k, v in computed.items() if k not in dropped}

    return compute

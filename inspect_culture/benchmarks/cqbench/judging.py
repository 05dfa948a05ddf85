"""CQ-Bench VE's judging: one request per story scores each gold value (unscored if none is)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from inspect_culture.benchmarks.cqbench.parse import score_ve, ve_prediction, ve_unscored_reason
from inspect_culture.benchmarks.cqbench.prompts import ve_judge_prompt
from inspect_culture.benchmarks.cqbench.spec import VeOutcome
from inspect_culture.judging.constraints import Slot, VerdictFormat
from inspect_culture.judging.jury import majority_score, per_vote, unscored_reason
from inspect_culture.judging.protocol import Item, Judged, JudgeReply, JudgeRequest, user_message


def ve_scores_format(n_values: int) -> VerdictFormat:
    """`llm_judge`'s `[Final answer]:` block: one `[Ground truth k]:s` per value, s in 0/0.5/1."""
    slots: list[Slot] = ["[Final answer]:"]
    for k in range(1, n_values + 1):
        slots += [f"\n[Ground truth {k}]:", (f"ground_truth_{k}", ("0", "0.5", "1"))]
    return VerdictFormat("CQ-Bench VE scores", tuple(slots), prefix="[Reasoning]:\n")


# A judge's reply, for the cost estimate (`judging/usage.py`): "[Reasoning]:" over each gold
# value, then a "[Final answer]:" block of scores; about 250 tokens (an assumption: docs/judge.md)
VERDICT_TOKENS = 250


@dataclass(frozen=True)
class VeJudging:
    verdict_tokens: ClassVar[int] = VERDICT_TOKENS

    def requests(self, item: Item, answer: str | None) -> list[JudgeRequest]:
        gold = item["gold_values"]
        prompt = ve_judge_prompt(ve_prediction(answer or ""), gold)
        return [JudgeRequest(user_message(prompt), ve_scores_format(len(gold)))]

    def outcome(self, item: Item, answer: str | None, replies: Sequence[JudgeReply]) -> Judged:
        [reply] = replies
        outcome = score_ve(str(item["id"]), item, reply.text, reply.error)
        scored = [v for v in outcome.value_scores if v is not None]
        details = {"prediction": ve_prediction(answer or "")}
        if not scored:
            reason = ve_unscored_reason(reply.text, len(item["gold_values"]), reply.error)
            return Judged(outcome.to_record(), None, reason, details)
        return Judged(outcome.to_record(), sum(scored) / len(scored), None, details)

    def votes(self, judged: Judged) -> list[Any]:
        """Each gold value's score (1, 0.5, 0; None: not scored), in gold order."""
        return list(judged.record["value_scores"])

    def combine(
        self, item: Item, answer: str | None, per_judge: Mapping[str, Judged], rule: str
    ) -> Judged:
        """Per gold value, the score a strict majority of its judges gave, else the lower
        median: a value counts as recalled when the majority says so."""
        first = next(iter(per_judge.values()))
        scores = tuple(majority_score(row) for row in per_vote(per_judge, self.votes))
        outcome = VeOutcome(str(item["id"]), item["category"], scores)
        scored = [v for v in scores if v is not None]
        if not scored:
            reason = unscored_reason(per_judge, "a score for any gold value")
            return Judged(outcome.to_record(), None, reason, first.details)
        return Judged(outcome.to_record(), sum(scored) / len(scored), None, first.details)

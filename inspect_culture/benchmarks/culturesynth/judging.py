"""CultureSynth-7's judging: target vs baseline answer, reference-guided; none without a baseline."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from inspect_culture.benchmarks.culturesynth import prompts
from inspect_culture.benchmarks.culturesynth.parse import (
    PairJudgement,
    combine_swapped,
    judge_games,
    missing_baseline,
)
from inspect_culture.judging.constraints import VerdictFormat
from inspect_culture.judging.jury import majority_vote, per_vote, unscored_reason
from inspect_culture.judging.protocol import Item, Judged, JudgeReply, JudgeRequest


def pairwise_verdict_format() -> VerdictFormat:
    """CultureSynth-7 (Fig. 18): "[[A]]", "[[B]]" or "[[C]]"."""
    return VerdictFormat("pairwise verdict", ("[[", ("verdict", ("A", "B", "C")), "]]"))


# A judge's reply to one game, for the cost estimate (`judging/usage.py`): MT-Bench's
# reference-guided pairwise prompt asks for an explanation comparing both answers with the
# reference, then "[[A]]", "[[B]]" or "[[C]]"; about 300 tokens (an assumption: docs/judge.md)
VERDICT_TOKENS = 300


def estimate_items(
    records: Iterable[Mapping[str, Any]], baseline: Mapping[str, str] | None
) -> list[Item]:
    """The questions the judge will see, as the estimate before generation (and the check's
    one judgment) read them, in both harnesses: each record (its reference under "answer",
    standing in for the model's) with its baseline answer from the `baseline` file's answers by
    id. A question the file has no answer for is left out (it makes no judge request); without
    a file (the `baseline` role answers during the run), the reference stands in for it too."""
    items = []
    for record in records:
        given = baseline.get(str(record["id"])) if baseline is not None else record["answer"]
        if given is not None:
            items.append({**record, "id": str(record["id"]), "baseline_answer": given})
    return items


@dataclass(frozen=True)
class CultureSynthJudging:
    swap: bool = True
    seed: int = 0
    verdict_tokens: ClassVar[int] = VERDICT_TOKENS

    def positions(self, item: Item) -> tuple[prompts.Position, ...]:
        return prompts.game_positions(str(item["id"]), swap=self.swap, seed=self.seed)

    def requests(self, item: Item, answer: str | None) -> list[JudgeRequest]:
        baseline = item.get("baseline_answer")
        if baseline is None:
            return []
        orders = [prompts.ordered_answers(answer or "", baseline, p) for p in self.positions(item)]
        games = [prompts.judge_messages(item["question"], item["answer"], *pair) for pair in orders]
        return [JudgeRequest(tuple(game), pairwise_verdict_format()) for game in games]

    def outcome(self, item: Item, answer: str | None, replies: Sequence[JudgeReply]) -> Judged:
        positions = self.positions(item)
        if item.get("baseline_answer") is None:
            judgement = missing_baseline(item.get("baseline_error"))
        else:
            texts, errors = [r.text for r in replies], [r.error for r in replies]
            judgement = judge_games(texts, positions, errors)
        pair = judgement.record(str(item["id"]), item["language"], item["primary_topic"], self.seed)
        value = None if judgement.outcome is None else float(judgement.outcome)
        details = {
            "target_positions": list(positions),
            "game_outcomes": list(judgement.game_outcomes),
            **judgement.provenance,
        }
        return Judged(pair.to_record(), value, judgement.reason, details)

    def votes(self, judged: Judged) -> list[Any]:
        """Each game's outcome for the target (+1, 0, -1; None: no verdict), in position order."""
        return list(judged.details.get("game_outcomes", []))

    def combine(
        self, item: Item, answer: str | None, per_judge: Mapping[str, Judged], rule: str
    ) -> Judged:
        """Per answer order, the verdict most judges gave (a split is a tie); then the orders
        combine as a lone judge's do (`combine_swapped`)."""
        first = next(iter(per_judge.values()))
        games = tuple(majority_vote(row, tie=0) for row in per_vote(per_judge, self.votes))
        if len(games) == 1:
            judgement = PairJudgement(games[0], None, None, games)
        else:
            judgement = combine_swapped(*games)
        if judgement.outcome is None:
            reason = unscored_reason(per_judge, "a verdict in every answer order")
            judgement = replace(judgement, reason=reason)
        pair = judgement.record(str(item["id"]), item["language"], item["primary_topic"], self.seed)
        value = None if judgement.outcome is None else float(judgement.outcome)
        details = {**first.details, "game_outcomes": list(games)}
        return Judged(pair.to_record(), value, judgement.reason, details)

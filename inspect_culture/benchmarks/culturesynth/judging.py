"""CultureSynth-7's judging: target vs baseline answer, reference-guided; none without a baseline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inspect_culture.benchmarks.culturesynth import prompts
from inspect_culture.benchmarks.culturesynth.parse import judge_games, missing_baseline
from inspect_culture.judging.constraints import VerdictFormat
from inspect_culture.judging.protocol import Item, Judged, JudgeReply, JudgeRequest


def pairwise_verdict_format() -> VerdictFormat:
    """CultureSynth-7 (Fig. 18): "[[A]]", "[[B]]" or "[[C]]"."""
    return VerdictFormat("pairwise verdict", ("[[", ("verdict", ("A", "B", "C")), "]]"))


@dataclass(frozen=True)
class CultureSynthJudging:
    swap: bool = True
    seed: int = 0

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

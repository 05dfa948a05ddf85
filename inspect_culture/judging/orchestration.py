"""One orchestration of judging for every transport: a set of answers, their benchmark's judge
requests sent through each judge's transport (Inspect's grader roles, the HTTP client lm-eval's
filters use, the OpenAI Batch API, `culture-evals judge`), each answer judged again as re-judging
says, and the replies combined into one outcome an answer. A transport only sends requests."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any, Protocol

from inspect_culture.judging.jury import JuryJudging, jury_label
from inspect_culture.judging.protocol import Item, Judged, JudgeReply, JudgeRequest
from inspect_culture.judging.reasons import JUDGE_LATER_REASON
from inspect_culture.judging.repeats import ONCE, Repeats, judgings_outcome
from inspect_culture.judging.usage import TOKENS_KEY, sample_tokens

Answer = tuple[Item, str | None]  # the benchmark record (reference under "answer"), the answer
Replies = dict[str, list[JudgeReply]]  # one judging's replies, by judge name (`judge_names`)


class Transport(Protocol):
    """How one judge's requests are sent: judging r of a re-judged answer sends the judge's
    seed plus r-1 (`repeats.repeat_seed`). Failures come back as replies with an `error`."""

    async def send(self, requests: Sequence[JudgeRequest], judging: int) -> list[JudgeReply]: ...


class JudgedLater:
    """The transport of a generation-only run (`judge_later`): no judge is asked; each reply
    says how to judge the answers later."""

    async def send(self, requests: Sequence[JudgeRequest], judging: int) -> list[JudgeReply]:
        return [JudgeReply(None, error=JUDGE_LATER_REASON) for _ in requests]


@dataclass(frozen=True)
class JudgedAnswer:
    judged: Judged  # the outcome, combined over the jury and the judgings
    judgings: list[Replies]  # judging 1 first; one entry for an answer judged once
    asked: bool  # whether the benchmark had any request for this answer


def judge_names(count: int) -> list[str]:
    """The names a jury's judges go by in records, metrics and reports, in order."""
    return [f"judge_{k}" for k in range(1, count + 1)]


def judges_named(models: Sequence[str]) -> dict[str, Any]:
    """What a record says of its judges: the model, or for a jury its label (as the report
    names a jury) and each judge's model by name."""
    if len(models) <= 1:
        return {"judge_model": models[0] if models else None}
    return {
        "judge_model": jury_label(list(models)),
        "judge_models": dict(zip(judge_names(len(models)), models)),
    }


async def judge_answers(
    judging: JuryJudging,
    answers: Sequence[Answer],
    transports: Sequence[Transport],
    *,
    rule: str,
    repeats: Repeats = ONCE,
    judges_together: bool = True,
    requests: Sequence[Sequence[JudgeRequest]] | None = None,
) -> list[JudgedAnswer]:
    """Every answer's requests to every judge, judging r only for the answers re-judging chose
    r times, and each answer's outcome (`repeats.judgings_outcome`). `judges_together`: every
    judge and judging at once (Inspect: one answer a call); else one after another (lm-eval,
    whose batches each fill the judge's rate limit). `requests`: each answer's, when the caller
    made them already (Inspect looks up the jury only for an answer with a request)."""
    per_answer = (
        [list(q) for q in requests]
        if requests is not None
        else [judging.requests(item, answer) for item, answer in answers]
    )
    names = judge_names(len(transports))
    later = all(isinstance(t, JudgedLater) for t in transports)
    wanted = [
        1 if later or not q else repeats.of(item["id"]) for (item, _), q in zip(answers, per_answer)
    ]
    rounds = [
        (r, [i for i, n in enumerate(wanted) if n >= r])
        for r in range(1, max(wanted, default=1) + 1)
    ]

    async def judged_round(r: int, chosen: list[int]) -> list[list[JudgeReply]]:
        flat = [request for i in chosen for request in per_answer[i]]
        sends = [t.send(flat, r) for t in transports]
        if judges_together:
            return list(await asyncio.gather(*sends))
        return [await send for send in sends]

    if judges_together:  # every judging at once too
        replies = await asyncio.gather(*(judged_round(r, chosen) for r, chosen in rounds))
    else:
        replies = [await judged_round(r, chosen) for r, chosen in rounds]
    judgings: list[list[Replies]] = [[] for _ in answers]
    for (_, chosen), round_replies in zip(rounds, replies, strict=True):
        asked = [per_answer[i] for i in chosen]
        for i, answer_replies in zip(chosen, _by_answer(round_replies, asked), strict=True):
            judgings[i].append(dict(zip(names, answer_replies)))
    return [
        JudgedAnswer(
            _with_tokens(
                judgings_outcome(judging, item, answer, answer_judgings, rule),
                answer_judgings if answer_requests and not later else None,
            ),
            answer_judgings,
            bool(answer_requests),
        )
        for (item, answer), answer_judgings, answer_requests in zip(
            answers, judgings, per_answer, strict=True
        )
    ]


def _with_tokens(judged: Judged, judgings: list[Replies] | None) -> Judged:
    """The outcome with its judges' tokens (`usage.TOKENS_KEY`), summed over its judgings;
    as it was when no judge was asked (no request, or judged later)."""
    if judgings is None:
        return judged
    return replace(judged, details={**judged.details, TOKENS_KEY: sample_tokens(judgings)})


def _by_answer(
    replies: Sequence[Sequence[JudgeReply]], asked: Sequence[Sequence[Any]]
) -> list[tuple[list[JudgeReply], ...]]:
    """Each judge's replies to the flattened requests, regrouped by answer: per answer, one list
    of replies a judge."""
    if not replies:
        return [() for _ in asked]
    return list(zip(*(_per_answer(judge_replies, asked) for judge_replies in replies)))


def _per_answer(
    replies: Sequence[JudgeReply], asked: Sequence[Sequence[Any]]
) -> list[list[JudgeReply]]:
    unread = iter(replies)
    return [list(islice(unread, len(requests))) for requests in asked]

"""The concurrent judge client called from synchronous test code (as lm-eval's filters call it,
through `http_client.run_sync`): safe inside a running event loop too."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_culture.judging.http_client import Messages, OpenAICompatibleJudge, run_sync
from inspect_culture.judging.protocol import JudgeReply


def judge_all_sync(judge: OpenAICompatibleJudge, batch: Sequence[Messages]) -> list[JudgeReply]:
    return run_sync(lambda: judge.judge_all(batch))

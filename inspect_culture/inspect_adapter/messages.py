"""Chat messages the harness-free judging builds (role/content dicts) as Inspect chat messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

_MESSAGE_TYPES = {"system": ChatMessageSystem, "user": ChatMessageUser}


def to_chat_messages(messages: Sequence[Mapping[str, str]]) -> list[ChatMessage]:
    if unknown := [m["role"] for m in messages if m["role"] not in _MESSAGE_TYPES]:
        raise ValueError(f"unexpected role {unknown[0]!r} in a benchmark prompt")
    return [_MESSAGE_TYPES[m["role"]](content=m["content"]) for m in messages]

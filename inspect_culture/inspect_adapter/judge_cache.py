"""An Inspect grader's key in the shared judge cache (`judging/cache.py`), the same as lm-eval's
for the same request. Preferred to Inspect's own cache (still there via --cache), whose
synchronous pickle per entry made our scorer 6 % slower than `model_graded_qa`."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, Model

from inspect_culture.inspect_adapter.failures import sent_model_name
from inspect_culture.judging import cache as shared

# GenerateConfig fields that change how a reply is fetched, not what it says; the constraint
# enters the key once, by name and version, as in lm-eval (which sends it another way).
_NOT_SAMPLING = {
    "max_connections", "max_retries", "timeout", "attempt_timeout", "batch", "cache",
    "cache_prompt", "response_schema",
}  # fmt: skip
_CONSTRAINT_BODY = {"structured_outputs", "grammar", "response_format"}
_LOOKUPS: dict[tuple[int, shared.JudgeId], asyncio.Future[str | None]] = {}


def judge_id(model: Model) -> shared.JudgeId:
    if base_url := getattr(model.api, "base_url", None):
        return shared.JudgeId(sent_model_name(model), shared.endpoint_key(str(base_url)))
    provider = str(model).partition("/")[0]
    default = shared.OPENAI_BASE_URL if provider == "openai" else f"{provider}:default"
    return shared.JudgeId(sent_model_name(model), default)


def request_key(
    model: Model,
    messages: str | Sequence[ChatMessage],
    config: GenerateConfig,
    constraint: str = "none",
) -> str:
    if isinstance(messages, str):
        messages = [ChatMessageUser(content=messages)]
    wire = [{"role": m.role, "content": m.text} for m in messages]
    # the call's config over the role's own (a role's top_p changes the reply too)
    sampling = model.config.merge(config).model_dump(
        exclude_none=True, mode="json", exclude=_NOT_SAMPLING
    )
    extra = sampling.pop("extra_body", None) or {}
    if extra := {k: v for k, v in extra.items() if k not in _CONSTRAINT_BODY}:
        sampling["extra_body"] = extra
    return shared.key(judge_id(model), wire, sampling, constraint)


async def learn_identity_once(model: Model) -> str | None:
    """`learn_identity`, once per event loop (one eval) and judge: every sample awaits it."""
    loop = asyncio.get_running_loop()
    lookup = _LOOKUPS.get(key := (id(loop), judge_id(model)))
    if lookup is None or lookup.get_loop() is not loop:
        lookup = _LOOKUPS[key] = loop.create_task(learn_identity(model))
    return await asyncio.shield(lookup)


async def learn_identity(model: Model) -> str | None:
    """The checkpoint the endpoint's `/models` serves under this name; None when unknown."""
    client = getattr(model.api, "client", None)
    if getattr(client, "models", None) is None or not hasattr(client, "with_options"):
        return None
    try:
        once = client.with_options(max_retries=0, timeout=shared.IDENTITY_TIMEOUT)
        page = await once.models.list()
        entries = [entry.model_dump() for entry in page.data]
    except Exception:  # noqa: BLE001 - best effort: the key then names the model only
        return None
    return shared.remember_listing(judge_id(model), entries)

"""What both readers share: a task's name and the canonical model name (so the same model run
in both harnesses is recognised as one model). Which benchmark a task is comes from the registry
(`section.inspect_owner`, `section.lm_eval_owner`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Inspect providers whose model names carry a service before the model: openai-api/<svc>/<model>
_TWO_PART_PROVIDERS = {"openai-api"}


def inspect_task_name(task: str) -> str:
    """`inspect_culture/<task>` (registry name) and `<task>` (file task) alike."""
    return task.rsplit("/", 1)[-1]


def canonical_inspect_model(model: str) -> str:
    """`vllm/Qwen/Qwen2.5-7B-Instruct` -> `Qwen/Qwen2.5-7B-Instruct`; `openai-api/local/x` -> x.
    lm-eval names models by their Hugging Face id or API model name, without a provider."""
    provider, _, rest = model.partition("/")
    if not rest:
        return model
    if provider in _TWO_PART_PROVIDERS:
        return rest.partition("/")[2] or rest
    return rest


def canonical_lm_eval_model(config: Mapping[str, Any], fallback: str | None) -> str:
    """The model of an lm-eval results file: `pretrained=` (HF and vLLM) or `model=` (API
    models), from `config.model_args` (a dict or a `k=v,k=v` string)."""
    args = config.get("model_args")
    if isinstance(args, str):
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    if isinstance(args, Mapping):
        for key in ("pretrained", "model", "path"):
            value = args.get(key)
            if isinstance(value, str) and value:
                return value
    return fallback or str(config.get("model") or "unknown model")


def dataset_label(name: object, revision: object, pinned: object = True) -> str | None:
    """`repo@revision` (12 characters); `repo@unpinned` for data without a pinned revision
    (identified by its sha256), so both harnesses label it alike."""
    if not name:
        return None
    text = str(revision or "unknown")
    if pinned is False or text in ("unknown", "main") or "unpinned" in text:
        return f"{name}@unpinned"
    return f"{name}@{text[:12]}"

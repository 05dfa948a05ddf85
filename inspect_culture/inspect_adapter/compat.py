"""Every use of Inspect AI's internals, in one place (docs/architecture.md, "Harness internals").
Each is here because no public API does the job; each has a test in tests/test_compat.py that
fails when a supported release (the floor or the newest, scripts/compat) changes it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from inspect_ai._util import (
    registry,
)  # inspect-evals-lint: ignore[private_api_imports] -- no public way to register a scorer alias
from inspect_ai.model import GenerateConfig, Model
from inspect_ai.model._generate_config import (
    active_generate_config as _active_generate_config,
)  # inspect-evals-lint: ignore[private_api_imports] -- the eval's --timeout/--max-retries
from inspect_ai.model._model import (
    active_model as _active_model,
)  # inspect-evals-lint: ignore[private_api_imports] -- set while eval builds tasks

ProviderGenerate = Callable[..., Awaitable[Any]]
_WRAPPED = "_inspect_culture_guarded"
# Inspect's wait before retry k of a call when the provider sets none, a value of its private
# retry loop (inspect_ai/model/_retry.py: tenacity's wait_exponential_jitter(initial=3, max=30
# min, jitter=3)): 3 * 2**(k-1) s plus up to 3 s, at most 30 min. As (first, growth, longest,
# jitter, shortest), tenacity's field names; the judge check says how long a dead quota holds.
INSPECT_BACKOFF = (3.0, 2.0, 30 * 60.0, 3.0, 0.0)


def active_model() -> Model | None:
    """The model Inspect's eval is running, None outside one: set while eval builds the tasks,
    the only sign that a task is being built by eval (`get_model()` makes one up instead)."""
    return _active_model()


def active_generate_config() -> GenerateConfig:
    """The eval's generation settings (its --timeout, --max-retries), which a role model
    inherits; a model's public `config` holds only its own."""
    return _active_generate_config()


def register_scorer_alias(name: str, factory: Callable[..., Any]) -> bool:
    """Register scorer `factory` under the bare `name` too (logs store a scorer's name without
    its package and `inspect score LOG` looks it up as it is), unless something else holds the
    name: False then. Inspect registers only under the package-qualified name publicly."""
    if registry.registry_lookup("scorer", name) is not None:
        return False
    info = registry.RegistryInfo(
        type="scorer", name=name, metadata=registry.registry_info(factory).metadata
    )
    registry.registry_add(partial(factory), info)
    return True


def wrap_provider_generate(
    model: Model, wrap: Callable[[ProviderGenerate], ProviderGenerate]
) -> bool:
    """Put `wrap(generate)` in place of the provider's `generate` on `model.api` (this model
    only), once; False when already done. Inspect records what a provider raises or returns
    (transcript, traceback, retry log) before the caller sees it, and has no public hook between
    the two: a key the server echoed must be scrubbed there."""
    api = model.api
    if getattr(api, _WRAPPED, False):
        return False
    api.generate = wrap(api.generate)  # type: ignore[method-assign]
    setattr(api, _WRAPPED, True)
    return True


def http_event_hooks(model: Model) -> dict[str, list[Callable[..., Any]]] | None:
    """The event hooks of the httpx client under an OpenAI-style provider (the openai SDK's
    private `_client`), None for another provider. A judgment's HTTP requests are counted there:
    the SDK retries inside each of Inspect's calls, and Inspect counts only its calls."""
    http = getattr(getattr(model.api, "client", None), "_client", None)
    hooks = getattr(http, "event_hooks", None)
    return hooks if isinstance(hooks, dict) else None


def server_starter(model: Model) -> Callable[[], Awaitable[None]] | None:
    """How to start the server Inspect starts itself for `model` (`vllm/` does on its first
    generate), or None when it reaches a running one. The judge's check starts that server
    first, outside its wall clock: Inspect has no public way to start it or ask whether it
    will."""
    return getattr(model.api, "_ensure_server_started", None)

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


def server_starter(model: Model) -> Callable[[], Awaitable[None]] | None:
    """How to start the server Inspect starts itself for `model` (`vllm/` does on its first
    generate), or None when it reaches a running one. The judge's check starts that server
    first, outside its wall clock: Inspect has no public way to start it or ask whether it
    will."""
    return getattr(model.api, "_ensure_server_started", None)

"""Neutral sampling defaults (`--generation-config vllm`) for the vLLM servers Inspect starts:
`vllm serve` otherwise fills unset fields from the checkpoint's generation_config.json, and
greedy answers then differ from lm-eval's and the authors' (docs/vllm.md)."""

from __future__ import annotations

import logging

from inspect_ai.model import Model, get_model, model_roles
from inspect_ai.solver import Generate, Solver, TaskState, solver

log = logging.getLogger(__name__)
NEUTRAL = "vllm"  # the value of vLLM's --generation-config that ignores the checkpoint's defaults
_announced: set[str] = set()


def neutral_vllm_defaults(model: Model) -> bool:
    """Ask Inspect's vLLM provider for neutral sampling defaults; True if this model is one."""
    server_args = getattr(model.api, "server_args", None)
    if not str(model).startswith("vllm/") or not isinstance(server_args, dict):
        return False
    chosen = server_args.setdefault("generation_config", NEUTRAL)
    if str(model) not in _announced:
        _announced.add(str(model))
        log.info(
            "%s: a vLLM server Inspect starts for it gets --generation-config %s%s; a server "
            "started by hand needs the flag itself (docs/vllm.md)", model, chosen,
            " (neutral, as lm-eval and the authors' code; -M generation_config=auto keeps the "
            "checkpoint's)" if chosen == NEUTRAL else " (-M generation_config)",
        )  # fmt: skip
    return True


@solver
def engine_defaults() -> Solver:
    """First solver of every task: for the evaluated model and every role, before any generates."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        apply_engine_defaults()
        return state

    return solve


def apply_engine_defaults() -> None:
    """`engine_defaults`' work, for a solver that does it among its own checks: each solver is a
    transcript span, a copy of the state before it and a diff after it, for every sample."""
    for bound in (get_model(), *model_roles().values()):
        for model in bound if isinstance(bound, list) else [bound]:
            neutral_vllm_defaults(model)

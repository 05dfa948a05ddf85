"""Neutral sampling defaults for the vLLM servers that Inspect starts (inspect_adapter/engines.py): set
before the first generation, for the evaluated model and for model roles, never over a value the
user chose. The provider here talks to the stub server (a base URL), so no vLLM is needed; the
vLLM smoke shows the effect on a real server (docs/vllm.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspect_culture.care import care
from inspect_culture.normad import normad
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = pytest.mark.slow


def _vllm(server: StubOpenAIServer, name: str, **server_args: object):
    """Inspect keys its vLLM servers by model name: one name per stub server."""
    from inspect_ai.model import get_model

    unique = f"{name}-{server.port}"
    return get_model(f"vllm/{unique}", base_url=server.base_url, memoize=False, **server_args)


def test_models_and_roles_get_neutral_defaults_before_generating(
    normad_mirror: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_ai import eval as inspect_eval

    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    models: list = []
    seen: list[tuple[str | None, ...]] = []  # each model's setting when a request arrives

    def responder(prompt: str, body: dict) -> str:
        seen.append(tuple(m.api.server_args.get("generation_config") for m in models))
        return care_responder(prompt, body)

    with StubOpenAIServer(responder=responder) as server:
        models += [_vllm(server, "target-model"), _vllm(server, "judge-model")]
        assert all("generation_config" not in m.api.server_args for m in models)
        [log] = inspect_eval(
            care(language="zh", per_category=1), model=models[0],
            model_roles={"grader": models[1]}, log_dir=str(tmp_path), display="none",
            max_retries=1,
        )  # fmt: skip
    assert log.status == "success", log.error
    # 5 answers, 5 judgments and the judge's check (one judgment): the provider did the work
    assert len(seen) == 11
    assert set(seen) == {("vllm", "vllm")}  # set before the first request of either model
    # by the judge checks' solver: one solver span before generation, not one per check
    for sample in log.samples:
        solvers = [e.name for e in sample.events if e.event == "span_begin" and e.type == "solver"]
        # (Inspect names a solver with its package once our entry point has registered it)
        bare = [name.removeprefix("inspect_culture/") for name in solvers]
        assert bare == ["require_grader", "generate"], solvers


def test_a_chosen_generation_config_is_kept(normad_mirror: Path, tmp_path: Path) -> None:
    from inspect_ai import eval as inspect_eval

    with StubOpenAIServer() as server:
        model = _vllm(server, "target-model", generation_config="auto")
        [log] = inspect_eval(
            normad(context="rot"), model=model, log_dir=str(tmp_path), display="none", limit=2
        )
    assert log.status == "success", log.error
    assert model.api.server_args["generation_config"] == "auto"


def test_other_providers_are_left_alone(normad_mirror: Path, tmp_path: Path) -> None:
    from inspect_ai.model import get_model

    from inspect_culture.inspect_adapter.engines import neutral_vllm_defaults

    with StubOpenAIServer() as server:
        model = get_model("openai-api/stub/m", base_url=server.base_url)
        assert neutral_vllm_defaults(model) is False
        assert not hasattr(model.api, "server_args")
        assert neutral_vllm_defaults(_vllm(server, "m")) is True

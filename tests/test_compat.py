"""Each use of a harness's internals (`inspect_adapter/compat.py`, `lm_eval_tasks/compat.py`)
does what we use it for: these fail when a supported release changes one (the compatibility
matrix runs them at the floor and at the newest releases, scripts/compat). No other module of
the package reads a harness's internals or another object's private attributes, puts a
function of its own in place of another object's, or replaces `sys.excepthook`."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.benchmarks.choices import BenchmarkOptionError
from inspect_culture.inspect_adapter import compat as inspect_compat
from inspect_culture.lm_eval_tasks import compat as lm_eval_compat
from inspect_culture.lm_eval_tasks.cli_errors import one_line_in_cli
from tests.support.harness_runs import run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, care_responder

PACKAGE = Path(__file__).resolve().parents[1] / "inspect_culture"
COMPAT = {PACKAGE / "inspect_adapter" / "compat.py", PACKAGE / "lm_eval_tasks" / "compat.py"}
HARNESSES = ("inspect_ai", "lm_eval")
# What reads the interpreter's frames or replaces its error printing
FRAME_NAMES = {"_getframe", "walk_stack", "currentframe", "f_back", "f_locals", "excepthook"}
# Private names of the standard library that are its public interface
STDLIB_PRIVATE = {"_exit", "_Hash", "_replace", "_getframe"}


# --- Inspect ---------------------------------------------------------------------------------


def test_a_scorer_alias_is_found_by_its_bare_name() -> None:
    from inspect_ai._util.registry import registry_lookup
    from inspect_ai.scorer import Score, accuracy, scorer

    @scorer(metrics=[accuracy()], name="tests_compat/alias_probe")
    def alias_probe():  # type: ignore[no-untyped-def]
        async def score(state, target):  # type: ignore[no-untyped-def]
            return Score(value=1)

        return score

    assert registry_lookup("scorer", "alias_probe_compat") is None
    assert inspect_compat.register_scorer_alias("alias_probe_compat", alias_probe)
    found = registry_lookup("scorer", "alias_probe_compat")
    assert found is not None and callable(found())
    assert not inspect_compat.register_scorer_alias("alias_probe_compat", alias_probe)


def test_a_task_builder_and_a_solver_see_what_eval_was_given(tmp_path: Path) -> None:
    """While eval builds a task: the model it runs; while a sample runs: the eval's generation
    settings (`--max-retries`), which a role model inherits."""
    from inspect_ai import Task, eval, task
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import Generate, TaskState, solver

    seen: dict[str, Any] = {}

    @solver(name="tests_compat/config_probe")
    def config_probe():  # type: ignore[no-untyped-def]
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            seen["max_retries"] = inspect_compat.active_generate_config().max_retries
            return state

        return solve

    @task(name="tests_compat_build_probe")
    def probe() -> Task:
        seen["model"] = inspect_compat.active_model()
        return Task(dataset=[Sample(input="x", target="y")], solver=config_probe())

    assert inspect_compat.active_model() is None  # outside an eval
    [log] = eval(
        probe, model="mockllm/model", max_retries=3, display="none", log_dir=str(tmp_path)
    )  # fmt: skip
    assert log.status == "success", log.error
    assert str(seen["model"]) == "mockllm/model"
    assert seen["max_retries"] == 3


# --- lm-eval ---------------------------------------------------------------------------------


def test_a_loader_sees_the_simple_evaluate_call_loading_it(
    monkeypatch: pytest.MonkeyPatch, full_mirror: Path
) -> None:
    from inspect_culture.lm_eval_tasks.judge import known_keys

    calls: list[dict[str, Any] | None] = []

    def recording() -> dict[str, Any] | None:
        calls.append(lm_eval_compat.simple_evaluate_call())
        return calls[-1]

    monkeypatch.setattr(known_keys, "simple_evaluate_call", recording)
    with StubOpenAIServer(responder=care_responder) as model:
        run_lm_eval(model, ["normad_none"], limit=1, predict_only=True)
    assert calls and calls[0] is not None
    assert calls[0]["predict_only"] is True
    assert calls[0]["model_args"]["base_url"] == f"{model.base_url}/chat/completions"
    assert lm_eval_compat.simple_evaluate_call() is None  # outside a run


# --- lm-eval: our task folder in every TaskManager (discovery.py) --------------------------


def _tasks_folder(root: Path, name: str) -> Path:
    root.mkdir()
    (root / f"{name}.yaml").write_text(f"task: {name}\ndataset_path: json\n", encoding="utf-8")
    return root


def test_a_later_include_path_overrides_an_earlier_one_after_the_defaults(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """What discovery relies on: TaskManager's `include_path` and `include_defaults`, lm-eval's own
    folder indexed first, then the include paths in order, a later one's task of the same name
    winning; and a wrapped `__init__` hands lm-eval ours first among the include paths."""
    import lm_eval.tasks
    from lm_eval.tasks import TaskManager, manager

    ours, user = (
        _tasks_folder(tmp_path / "ours", "clash"),
        _tasks_folder(tmp_path / "user", "clash"),
    )
    index = manager.TaskIndex.build([ours, user])
    assert Path(index["clash"].yaml_path).parent == user

    seen: list[list[str]] = []
    monkeypatch.setattr(
        manager.TaskIndex,
        "build",
        staticmethod(lambda p, **k: seen.append(list(map(str, p))) or {}),
    )
    # restored after the test; unwrapped where the installed .pth wrapped it already
    plain = getattr(TaskManager.__init__, "__wrapped__", TaskManager.__init__)
    monkeypatch.setattr(TaskManager, "__init__", plain)
    assert lm_eval_compat.add_task_folder(
        lm_eval.tasks,
        lambda given, defaults: ([str(ours), given], True) if defaults else (given, False),
        print,
    )
    assert not lm_eval_compat.add_task_folder(lm_eval.tasks, lambda *a: (None, False), print)
    TaskManager(include_path=str(user))
    TaskManager(None, str(user), False)
    defaults = str(Path(manager.__file__).parent)
    assert seen == [[defaults, str(ours), str(user)], [str(user)]]


def test_a_failing_discovery_leaves_the_task_manager_as_the_caller_built_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import types

    from inspect_culture.lm_eval_tasks import discovery

    class Manager:
        def __init__(self, verbosity=None, include_path=None, include_defaults=True, metadata=None):  # type: ignore[no-untyped-def]
            self.include_path = include_path

    def failing(given: Any, defaults: bool) -> tuple[Any, bool]:
        raise OSError("disk gone")

    monkeypatch.setattr(discovery, "_warned", set())
    assert lm_eval_compat.add_task_folder(
        types.SimpleNamespace(TaskManager=Manager), failing, discovery.warn_once
    )
    with caplog.at_level("WARNING", logger="inspect_culture"):
        assert Manager(include_path="/user").include_path == "/user"
    [record] = caplog.records
    assert "cannot add our task folder: OSError: disk gone" in record.getMessage()


def test_no_supported_release_reads_task_entry_points() -> None:
    """When a release reads lm-eval's task entry points (EleutherAI/lm-evaluation-harness#4015,
    our `lm_eval.tasks` entry point), the discovery .pth should give way to it: this fails
    then, to say so."""
    import lm_eval.tasks

    folder = Path(lm_eval.tasks.__file__).parent
    sources = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.py")}
    assert sources and not [name for name, text in sources.items() if "entry_points" in text]


# --- the lm_eval command line's one-line refusals, without a replaced hook ---------------------


@one_line_in_cli
def _refusing_loader(**metadata: Any) -> None:
    raise BenchmarkOptionError("parser='foo' is not supported; allowed values: strict, upstream")


def test_the_lm_eval_command_line_ends_with_the_refusal_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hook = sys.excepthook
    monkeypatch.setattr(sys, "argv", ["/venv/bin/lm_eval", "--tasks", "normad_none"])
    with pytest.raises(SystemExit) as stopped:
        _refusing_loader(parser="foo")
    assert str(stopped.value.code).strip() == (
        "BenchmarkOptionError: parser='foo' is not supported; allowed values: strict, upstream"
    )
    assert sys.excepthook is hook


def test_a_library_caller_gets_the_refusal_itself() -> None:
    with pytest.raises(BenchmarkOptionError, match="parser='foo'"):
        _refusing_loader(parser="foo")


# --- nowhere else ----------------------------------------------------------------------------


def _private(module: str) -> bool:
    """A harness module whose dotted name has a part starting with `_` (`inspect_ai._util`)."""
    parts = module.split(".")
    return parts[0] in HARNESSES and any(p.startswith("_") for p in parts[1:])


def _private_name(name: str) -> bool:
    """`_client`, not `__notes__`, nor a private name of the standard library used as public."""
    dunder = name.startswith("__") and name.endswith("__")
    return name.startswith("_") and not dunder and name not in STDLIB_PRIVATE


def _own(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _hooks_in(tree: ast.Module, path: Path) -> list[str]:
    """Where `path` reads another object's private attribute, or puts a function of its own in
    place of another object's (`api.generate = generate`, a lambda)."""
    defs = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private_name(node.attr) and not _own(node.value):
            found.append(f"{path.name}:{node.lineno} reads .{node.attr}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(name := node.args[1], ast.Constant)
            and isinstance(name.value, str)
            and _private_name(name.value)
        ):
            found.append(f"{path.name}:{node.lineno} reads .{name.value}")
        if isinstance(node, ast.Assign) and (
            isinstance(node.value, ast.Lambda)
            or (isinstance(node.value, ast.Name) and node.value.id in defs)
        ):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and not _own(target.value):
                    found.append(f"{path.name}:{node.lineno} replaces .{target.attr}")
    return sorted(found, key=lambda line: int(line.split(":")[1].split()[0]))


def _internals_read(path: Path) -> list[str]:
    """Where `path` imports a harness's private module, reads the interpreter's frames, reads
    another object's private attribute or replaces one of its methods."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = _hooks_in(tree, path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            names = []
        found += [f"{path.name}:{node.lineno} imports {n}" for n in names if _private(n)]
        if isinstance(node, ast.Attribute | ast.Name | ast.alias):
            name = getattr(node, "attr", None) or getattr(node, "id", None) or node.name  # type: ignore[union-attr]
            if name in FRAME_NAMES:
                found.append(f"{path.name}:{node.lineno} uses {name}")
    return found


def test_only_the_compat_modules_read_a_harness_internals() -> None:
    found = [
        line
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in COMPAT
        for line in _internals_read(path)
    ]
    assert found == [], found
    assert all(_internals_read(path) for path in COMPAT)  # the check sees what they do


def test_the_check_sees_private_attributes_and_replaced_methods(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "def new_init(self):\n    pass\n\n\n"
        "def patch(api, manager, parts):\n"
        "    async def generate():\n        pass\n\n"
        "    hooks = api.client._client.event_hooks\n"
        "    start = getattr(api, '_ensure_server_started', None)\n"
        "    api.generate = generate\n"
        "    manager.__init__ = new_init\n"
        "    api.close = lambda: None\n"
        "    parts = parts._replace(path='')\n"
        "    api.note = api.note.strip()\n"
        "    return hooks, start, getattr(api, '__notes__', ())\n"
    )
    assert _internals_read(planted) == [
        "planted.py:9 reads ._client",
        "planted.py:10 reads ._ensure_server_started",
        "planted.py:11 replaces .generate",
        "planted.py:12 replaces .__init__",
        "planted.py:13 replaces .close",
    ]


def test_only_lm_evals_compat_reads_the_interpreters_frames() -> None:
    """A frame is no interface a release keeps: Inspect's compat reads none (its hooks give what
    frames gave); lm-eval's one read stays, for want of any public route (docs/architecture.md,
    "Harness internals")."""
    lm_eval_compat_file = PACKAGE / "lm_eval_tasks" / "compat.py"
    found = [
        line
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != lm_eval_compat_file
        for line in _internals_read(path)
        if " uses " in line
    ]
    assert found == [], found


def test_a_wrapped_provider_generate_sees_each_call_once_and_returns_its_output() -> None:
    import asyncio

    from inspect_ai.model import get_model

    model, other = get_model("mockllm/model"), get_model("mockllm/model")
    seen: list[str] = []

    def wrap(original):  # type: ignore[no-untyped-def]
        async def generate(*args, **kwargs):  # type: ignore[no-untyped-def]
            seen.append("call")
            return await original(*args, **kwargs)

        return generate

    assert inspect_compat.wrap_provider_generate(model, wrap)
    assert not inspect_compat.wrap_provider_generate(model, wrap)  # once
    output = asyncio.run(model.generate("hello"))
    assert seen == ["call"] and output.completion
    asyncio.run(other.generate("hello"))  # another model of the same provider: not wrapped
    assert seen == ["call"]


def test_an_openai_style_providers_http_requests_reach_its_hooks() -> None:
    """The judge counts a judgment's HTTP requests (the SDK retries inside Inspect's call)."""
    import asyncio

    from inspect_ai.model import get_model

    assert inspect_compat.http_event_hooks(get_model("mockllm/model")) is None
    paths: list[str] = []

    async def note(request):  # type: ignore[no-untyped-def]
        paths.append(request.url.path)

    with StubOpenAIServer(responder=care_responder) as server:
        model = get_model("openai-api/stub/judge", base_url=server.base_url, api_key="test-key")
        hooks = inspect_compat.http_event_hooks(model)
        assert hooks is not None
        hooks.setdefault("request", []).append(note)
        asyncio.run(model.generate("hello"))
    assert paths == ["/v1/chat/completions"]


def test_inspects_default_retry_wait_is_the_backoff_we_count() -> None:
    """The wait Inspect's retry loop uses when a provider sets none is written in its private
    `_retry.py` (a call's default argument, no constant): read from there, as tenacity builds it."""
    import inspect_ai.model._retry as retry_module
    from tenacity import wait_exponential_jitter

    tree = ast.parse(Path(retry_module.__file__).read_text(encoding="utf-8"))
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "wait_exponential_jitter"
    ]
    assert len(calls) == 1
    arguments = {  # constant expressions such as `30 * 60`
        k.arg: eval(ast.unparse(k.value), {"__builtins__": {}})  # noqa: S307
        for k in calls[0].keywords
    }
    wait = wait_exponential_jitter(**arguments)
    fields = ("multiplier", "exp_base", "max", "jitter", "min")
    assert tuple(float(getattr(wait, f)) for f in fields) == inspect_compat.INSPECT_BACKOFF


def test_a_vllm_model_says_how_to_start_its_server() -> None:
    """`vllm/` models start their server on the first generate (`server_starter`); a model
    reaching a running server has none to start."""
    import inspect as python_inspect

    from inspect_ai.model import get_model
    from inspect_ai.model._providers.vllm import VLLMAPI

    assert python_inspect.iscoroutinefunction(VLLMAPI._ensure_server_started)
    reached = get_model("openai-api/stub/judge", base_url="http://127.0.0.1:9/v1", api_key="k")
    assert inspect_compat.server_starter(reached) is None

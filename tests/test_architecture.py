"""The package's shape: no import cycles, the dependency contracts (`lint-imports`, pyproject),
and a run of one benchmark that loads no other benchmark's modules."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

from inspect_culture.benchmark_registry import benchmarks
from inspect_culture.lm_eval_tasks import include_path
from tests.support.openai_stub import StubOpenAIServer, care_responder

ROOT = Path(__file__).resolve().parents[1]


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), lazy imports included."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


MAX_FUNCTION_LINES = 60  # issue 41, point 9


def _long_functions(source: str, where: str) -> list[str]:
    """Functions of `source` longer than MAX_FUNCTION_LINES, from `def` to their last line
    (docstring included, decorators not)."""
    return [
        f"{where}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES  # type: ignore[operator]
    ]


def test_no_package_function_is_over_60_lines() -> None:
    found = [
        long
        for path in sorted((ROOT / "inspect_culture").rglob("*.py"))
        for long in _long_functions(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert found == []


def test_the_length_check_finds_a_planted_long_function() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES - 1))
    assert _long_functions(f"def fits():\n{body}", "f.py") == []
    nested = f"class C:\n    async def long(self):\n    {body.replace(chr(10), chr(10) + '    ')}"
    assert _long_functions(nested + "    y = 0\n", "f.py") == ["f.py:2 long (61 lines)"]


def test_the_package_has_no_import_cycle() -> None:
    assert _cycles(grimp.build_graph("inspect_culture")) == []


def test_the_cycle_finder_finds_a_planted_cycle(tmp_path: Path) -> None:
    package = tmp_path / "planted"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text("def f():\n    from planted import b\n", encoding="utf-8")
    (package / "b.py").write_text("from planted import a\n", encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        assert _cycles(grimp.build_graph("planted")) == [["planted.a", "planted.b"]]
    finally:
        sys.path.remove(str(tmp_path))


def test_the_dependency_contracts_hold() -> None:
    done = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


_PROBE = """
import json, sys
from lm_eval.__main__ import cli_evaluate
sys.argv = ["lm_eval"] + sys.argv[1:]
try:
    cli_evaluate()
finally:
    loaded = sorted(m for m in sys.modules if m.startswith("inspect_culture"))
    print("LOADED=" + json.dumps(loaded))
"""


@pytest.mark.slow
def test_lm_eval_care_zh_loads_no_other_benchmark(tmp_path: Path) -> None:
    with StubOpenAIServer(care_responder) as server:
        done = subprocess.run(
            [
                *(sys.executable, "-c", _PROBE),
                *("--model", "local-chat-completions", "--apply_chat_template"),
                "--model_args",
                f"model=stub-model,base_url={server.base_url}/chat/completions,max_retries=1",
                *("--include_path", str(include_path()), "--tasks", "care_zh", "--limit", "1"),
                *("--metadata", json.dumps({"judge_later": True})),
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    [line] = [x for x in done.stdout.splitlines() if x.startswith("LOADED=")]
    loaded = json.loads(line.removeprefix("LOADED="))
    assert "inspect_culture.benchmarks.care.spec" in loaded  # the probe saw the run
    others = [b for b in benchmarks() if b.name != "care"]
    strays = [
        module
        for module in loaded
        for other in others
        if module.startswith((other.package, f"inspect_culture.lm_eval_tasks.{other.name}"))
        or module == other.inspect_module
    ]
    assert strays == []

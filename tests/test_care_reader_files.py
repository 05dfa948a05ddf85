"""A reader of CARE opens at most 8 package files for its Inspect task, its lm-eval task and its
judge (issue 41, point 9): the CARE files the two tasks import, followed import by import (lazy
imports too) through modules with `care` in their name, plus the judge's one orchestration. The
list docs/architecture.md gives ("Reading CARE") must be that list."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = ("inspect_culture.care", "inspect_culture.lm_eval_tasks.care.utils")
JUDGE = "inspect_culture/judging/orchestration.py"
LISTED = re.compile(r"^\d+\. `(inspect_culture/[\w/]+\.py)`", re.MULTILINE)


def _path(module: str) -> Path | None:
    base = ROOT / Path(*module.split("."))
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.exists():
            return path
    return None


def _imports(path: Path) -> set[str]:
    """Every module `path` imports, at its top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {m for m in found if m.startswith("inspect_culture.") and _path(m)}


def _is_empty_package(path: Path) -> bool:
    """An `__init__.py` with nothing but a docstring: nothing a reader needs to open."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    code = [n for n in body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    return path.name == "__init__.py" and not code


def care_reader_files() -> list[str]:
    """The CARE files the Inspect task and the lm-eval task import, and the one orchestration."""
    seen: set[str] = set()
    todo = list(ENTRIES)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo += [m for m in _imports(_path(module)) if "care" in m]  # type: ignore[arg-type]
    paths = [p for p in map(_path, seen) if p is not None and not _is_empty_package(p)]
    return sorted({str(p.relative_to(ROOT)) for p in paths} | {JUDGE})


def test_the_walk_sees_a_care_file_imported_inside_a_function(tmp_path: Path) -> None:
    """The walk follows lazy imports too: a CARE file imported where it is used counts."""
    source = "def f():\n    from inspect_culture.benchmarks.care.metrics import care_metrics\n"
    (tmp_path / "lazy.py").write_text(source, encoding="utf-8")
    assert "inspect_culture.benchmarks.care.metrics" in _imports(tmp_path / "lazy.py")


def test_care_is_read_in_at_most_8_files_which_the_architecture_lists() -> None:
    files = care_reader_files()
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Reading CARE", 1)[1].split("\n## ", 1)[0]
    listed = LISTED.findall(section)
    assert sorted(listed) == files and len(set(listed)) == len(listed)
    assert len(files) <= 8, files

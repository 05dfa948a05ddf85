"""Installing us changes nobody's harness: the built wheel, and the sdist, go into a venv that
already holds the floor inspect-ai and lm-eval (constraints/floor.txt) and a pinned stand-in for
vLLM; pip, offered newer harness releases, must change none of them. The installed package then
passes the wheel test, and works without the report and local extras; both files pass
`twine check`.

Runs offline, from the wheels scripts/compat downloads (INSPECT_CULTURE_WHEELHOUSE); deselected
elsewhere (tests/conftest.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import WHEELHOUSE_ENV
from tests.test_wheel import ROOT, check_installed

pytestmark = pytest.mark.packaging
FLOOR = ROOT / "constraints" / "floor.txt"
HARNESS = ("inspect-ai", "lm-eval")
# vLLM itself brings torch and CUDA: a stand-in with its name and a version our extra accepts,
# and no dependencies (so it shows that pip leaves a pinned vLLM alone, not that our
# dependencies fit vLLM's own pins)
VLLM_STANDIN = ("vllm", "0.18.0")

# Without the report and local extras: the package, every Inspect task module and every lm-eval
# task load; CARE (data in the package) builds in both harnesses.
OPTIONAL_PROBE = """
import importlib, json, pkgutil
import inspect_culture
failed = {}
for module in pkgutil.walk_packages(inspect_culture.__path__, "inspect_culture."):
    try:
        importlib.import_module(module.name)
    except Exception as exc:
        failed[module.name] = repr(exc)
from inspect_culture.care import care
task = care(language="zh", per_category=1)
from lm_eval.tasks import TaskManager, get_task_dict
from inspect_culture.lm_eval_tasks import include_path
manager = TaskManager(include_path=[str(include_path())], include_defaults=False)
loaded = get_task_dict(["care_zh"], manager)
print(json.dumps({"failed": failed, "inspect_samples": len(task.dataset),
                  "lm_eval_tasks": sorted(manager.all_tasks),
                  "lm_eval_docs": len(loaded["care_zh"].eval_docs)}))
"""


def _floor_pins() -> dict[str, str]:
    pins = {}
    for line in FLOOR.read_text(encoding="utf-8").splitlines():
        name, sep, version = line.split("#", 1)[0].strip().partition("==")
        if sep:
            pins[name.lower().replace("_", "-")] = version
    return pins


def _our_lm_eval_tasks() -> list[str]:
    from lm_eval.tasks import TaskManager

    from inspect_culture.lm_eval_tasks import include_path

    manager = TaskManager(include_path=[str(include_path())], include_defaults=False)
    return sorted(manager.all_tasks)


def _standin_wheel(folder: Path) -> Path:
    name, version = VLLM_STANDIN
    info = f"{name}-{version}.dist-info"
    files = {
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{path},,\n" for path in [*files, f"{info}/RECORD"])
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return path


def _installed(python: Path) -> dict[str, str]:
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return {p["name"].lower().replace("_", "-"): p["version"] for p in json.loads(listed.stdout)}


def _pip(python: Path, *args: str, links: list[Path]) -> None:
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-index"]
    command += [arg for link in links for arg in ("--find-links", str(link))]
    done = subprocess.run([*command, *args], capture_output=True, text=True)
    assert done.returncode == 0, (
        f"pip install {' '.join(args)}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    )


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and the wheel, built by `python -m build` as a release is (docs/releasing.md)."""
    if not os.environ.get(WHEELHOUSE_ENV):
        pytest.fail(f"{WHEELHOUSE_ENV} is not set: run through scripts/compat floor")
    out = tmp_path_factory.mktemp("dist")
    source = tmp_path_factory.mktemp("src") / "inspect-culture"
    shutil.copytree(
        ROOT, source,
        ignore=shutil.ignore_patterns(
            ".venv*", ".git", ".compat", ".vllm-smoke", "runs", "logs", "build", "dist",
            "*.egg-info", "__pycache__", ".*_cache",
        ),
    )  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [sdist] = out.glob("inspect_culture-*.tar.gz")
    [wheel] = out.glob("inspect_culture-*.whl")
    return {"sdist": sdist, "wheel": wheel}


def test_release_files_pass_twine_check(dists: dict[str, Path]) -> None:
    """The metadata is valid and the README renders on the package index (docs/releasing.md)."""
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, dists.values())],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_install_changes_no_pinned_package_and_passes_the_wheel_test(
    kind: str, dists: dict[str, Path], tmp_path: Path
) -> None:
    wheelhouse = Path(os.environ[WHEELHOUSE_ENV])
    standin = tmp_path / "standin"
    standin.mkdir()
    _standin_wheel(standin)
    links = [wheelhouse, standin]
    env = tmp_path / "stack"
    venv.EnvBuilder(with_pip=True).create(env)
    python = env / "bin" / "python"
    floor = _floor_pins()
    # the user's stack: the floor harness with what it needs, and a pinned vLLM
    stack = [f"{name}=={floor[name]}" for name in HARNESS] + ["==".join(VLLM_STANDIN)]
    _pip(python, *stack, links=links)
    before = _installed(python)
    assert {name: before[name] for name in HARNESS} == {name: floor[name] for name in HARNESS}

    # the default upgrade strategy, as a user runs it; newer inspect-ai and lm-eval are on offer
    _pip(python, f"{dists[kind]}[vllm]", links=links)
    after = _installed(python)
    changed = {
        name: f"{version} -> {after.get(name, 'removed')}"
        for name, version in before.items()
        if after.get(name) != version
    }
    assert changed == {}
    check_installed(python, tmp_path)

    # no report or local extra here: everything but the commands that need them works
    assert "matplotlib" not in after and "xllamacpp" not in after
    probe = subprocess.run(
        [str(python), "-I", "-c", OPTIONAL_PROBE], capture_output=True, text=True, cwd=tmp_path
    )
    assert probe.returncode == 0, probe.stderr[-3000:]
    found = json.loads(probe.stdout.strip().splitlines()[-1])
    assert found["failed"] == {}
    assert (found["inspect_samples"], found["lm_eval_docs"]) == (5, 150)
    assert found["lm_eval_tasks"] == _our_lm_eval_tasks()
    # each command that needs an extra says in one line how to install it
    commands = env / "bin" / "culture-evals"
    for args, extra in [
        (["local-server"], "local"),
        (["main-job"], "local"),
        (["report", str(tmp_path), "-o", str(tmp_path / "report"), "--format", "html"], "report"),
    ]:
        done = subprocess.run([str(commands), *args], capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode != 0
        [line] = done.stderr.strip().splitlines()
        assert line.startswith(f"culture-evals {args[0]}: ")
        assert f"pip install 'inspect-culture[{extra}]'" in line

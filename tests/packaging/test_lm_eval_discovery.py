"""`lm_eval --tasks care_zh` works right after `pip install inspect-culture`, with no flag
(inspect_culture/lm_eval_tasks/discovery.py): in a fresh venv holding lm-eval and the built wheel,
at the floor lm-eval (constraints/floor.txt) and the newest (constraints/tested.txt), both on the
Python scripts/compat floor runs (3.10). Every task and group of ours is listed by `lm_eval ls
tasks`; the card's command runs; a user's `--include_path` task of the same name wins; the
switch turns it off; `--include_path` still works; nothing is imported at interpreter start;
a broken discovery is one warning and lm-eval runs on; `pip uninstall` leaves nothing behind.

Runs offline, from the wheels scripts/compat downloads (INSPECT_CULTURE_WHEELHOUSE); deselected
elsewhere (tests/conftest.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import venv
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from inspect_culture.lm_eval_tasks import include_path
from inspect_culture.lm_eval_tasks.discovery import ENV, PTH_NAME
from tests.conftest import WHEELHOUSE_ENV
from tests.support.openai_stub import StubOpenAIServer, care_responder
from tests.test_wheel import ROOT, build_wheel

pytestmark = pytest.mark.packaging
WHEELHOUSE = Path(os.environ.get(WHEELHOUSE_ENV, "/nonexistent"))
CONSTRAINTS = {"floor": ROOT / "constraints/floor.txt", "newest": ROOT / "constraints/tested.txt"}
# lm-eval's own task, always there: lm-eval still runs for the user's other tasks
THEIRS = "hellaswag"


def _pinned(name: str, constraints: Path) -> str:
    for line in constraints.read_text(encoding="utf-8").splitlines():
        pinned, sep, version = line.split("#", 1)[0].strip().partition("==")
        if sep and pinned.lower().replace("_", "-") == name:
            return version
    raise AssertionError(f"{constraints} pins no {name}")


def _our_names() -> list[str]:
    """Every task, group and tag of ours, as lm-eval indexes our folder alone."""
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=[str(include_path())], include_defaults=False)
    return sorted(manager.all_tasks)


class Stack:
    """A fresh venv: lm-eval at one version, then the wheel, as a user installs it."""

    def __init__(self, root: Path, lm_eval: str, wheel: Path) -> None:
        self.root, self.wheel = root, wheel
        venv.EnvBuilder(with_pip=True).create(root)
        self.python = root / "bin" / "python"
        self.pip("install", f"lm-eval[api]=={lm_eval}")
        self.pip("install", str(wheel))
        installed = self.run_python("import importlib.metadata as m; print(m.version('lm_eval'))")
        assert installed == lm_eval, f"installing the wheel moved lm-eval {lm_eval} to {installed}"
        purelib = self.run_python("import sysconfig; print(sysconfig.get_paths()['purelib'])")
        self.site = Path(purelib).resolve()

    def pip(self, *args: str) -> None:
        command = [str(self.python), "-m", "pip", "--disable-pip-version-check", *args]
        if args[0] == "install":
            command += ["--no-index", "--find-links", str(WHEELHOUSE)]
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, (
            f"pip {' '.join(args)}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k != ENV}
        env["PATH"] = f"{self.root / 'bin'}{os.pathsep}{env['PATH']}"
        env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", PYTHONWARNINGS="ignore")
        env["HF_DATASETS_CACHE"] = str(self.root / "hf-datasets")
        env.update(extra)
        return env

    def run(self, *args: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args), capture_output=True, text=True, cwd=cwd, env=self.env(**extra), timeout=600
        )

    def run_python(self, code: str) -> str:
        # not from the checkout: `python -c` puts the working folder first on sys.path
        done = subprocess.run(
            [str(self.python), "-c", code], capture_output=True, text=True, cwd=self.root
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout.strip()

    def ls_tasks(self, cwd: Path, *args: str, **extra: str) -> tuple[dict[str, str], str]:
        """`lm_eval ls tasks`: each listed name with its config location; and stderr."""
        done = self.run("lm_eval", "ls", "tasks", *args, cwd=cwd, **extra)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
        rows = [
            [cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in done.stdout.splitlines()
            if line.startswith("|")
        ]
        return {row[0]: (row[1] if len(row) > 1 else "") for row in rows}, done.stderr

    def validate(
        self, tasks: list[str], cwd: Path, *args: str, **extra: str
    ) -> subprocess.CompletedProcess[str]:
        """`lm_eval validate --tasks ...`: 0 when every name is found (indexes, loads nothing)."""
        return self.run("lm_eval", "validate", "--tasks", ",".join(tasks), *args, cwd=cwd, **extra)

    def locations(self, names: list[str], include: Path) -> dict[str, str]:
        """Where the TaskManager lm-eval's command line builds finds each name."""
        code = (
            "import json, sys; from lm_eval.tasks import TaskManager; "
            f"index = TaskManager(include_path={str(include)!r}).task_index; "
            f"print(json.dumps({{n: str(index[n].yaml_path) for n in {names!r}}}))"
        )
        return json.loads(self.run_python(code).splitlines()[-1])


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not os.environ.get(WHEELHOUSE_ENV):
        pytest.fail(f"{WHEELHOUSE_ENV} is not set: run through scripts/compat floor")
    return build_wheel(tmp_path_factory.mktemp("dist"), tmp_path_factory.mktemp("src"))


@pytest.fixture(scope="module")
def stacks(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Stack]:
    """Both stacks, installed at once: two pips unpacking wheels wait mostly on the disk, and
    this pass runs beside scripts/compat's others, where it is the last to end."""
    versions = {name: _pinned("lm-eval", constraints) for name, constraints in CONSTRAINTS.items()}
    for name, version in versions.items():
        assert list(WHEELHOUSE.glob(f"lm_eval-{version}-*.whl")), (
            f"lm-eval {version} ({CONSTRAINTS[name].name}) is not in {WHEELHOUSE}: "
            "scripts/compat downloads it"
        )
    roots = {name: tmp_path_factory.mktemp(f"stack-{name}") for name in versions}
    with ThreadPoolExecutor(len(versions)) as pool:
        built = {n: pool.submit(Stack, roots[n], v, wheel) for n, v in versions.items()}
        return {name: future.result() for name, future in built.items()}


@pytest.fixture(scope="module", params=list(CONSTRAINTS))
def stack(request: pytest.FixtureRequest, stacks: dict[str, Stack]) -> Stack:
    return stacks[request.param]


def test_lm_eval_ls_tasks_lists_every_task_and_group_of_ours(stack: Stack, tmp_path: Path) -> None:
    listed, stderr = stack.ls_tasks(tmp_path)
    ours = _our_names()
    assert [name for name in ours if name not in listed] == []
    folder = stack.site / "inspect_culture" / "lm_eval_tasks"
    assert listed["care_zh"].startswith(str(folder))
    assert THEIRS in listed
    assert "inspect-culture" not in stderr and "overrides existing task" not in stderr


def test_the_cards_command_runs(stack: Stack, tmp_path: Path) -> None:
    with StubOpenAIServer(responder=care_responder) as server:
        metadata = {"judge_model": "judge", "judge_base_url": server.base_url}
        done = stack.run(
            "lm_eval", "--model", "local-chat-completions", "--apply_chat_template",
            "--model_args", f"model=model,base_url={server.base_url}/chat/completions",
            "--tasks", "care_zh", "--limit", "2", "--metadata", json.dumps(metadata),
            "--output_path", str(tmp_path / "results"),
            cwd=tmp_path, INSPECT_CULTURE_JUDGE_CACHE=str(tmp_path / "judge-cache"),
            INSPECT_CULTURE_JUDGE_API_KEY="test-key",
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    [results] = (tmp_path / "results").rglob("results_*.json")
    assert "care_zh" in json.loads(results.read_text(encoding="utf-8"))["results"]


def test_a_users_include_path_task_of_the_same_name_wins(stack: Stack, tmp_path: Path) -> None:
    mine = tmp_path / "my_tasks"
    mine.mkdir()
    (mine / "care_zh.yaml").write_text(
        "task: care_zh\ndataset_path: json\noutput_type: generate_until\n", encoding="utf-8"
    )
    found = stack.locations(["care_zh", "care_ja"], mine)
    assert found["care_zh"] == str(mine / "care_zh.yaml")
    assert found["care_ja"].startswith(str(stack.site))  # the rest of ours stays


def test_the_switch_and_include_path(stack: Stack, tmp_path: Path) -> None:
    """Off: none of ours. `--include_path "$(culture-evals lm-eval-path)"` works as before, off
    or on (on, our folder is indexed once: no task overrides itself)."""
    off = stack.validate(["care_zh"], tmp_path, **{ENV: "0"})
    assert off.returncode == 1 and "Tasks not found: care_zh" in off.stdout
    assert stack.validate([THEIRS], tmp_path, **{ENV: "0"}).returncode == 0
    path = stack.run("culture-evals", "lm-eval-path", cwd=tmp_path).stdout.strip()
    for switch in ("0", "1"):
        done = stack.validate(_our_names(), tmp_path, "--include_path", path, **{ENV: switch})
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert "overrides existing task" not in done.stderr


def _startup(python: Path, runs: int = 30) -> float:
    """The fastest of `runs` starts of an interpreter that imports nothing (seconds)."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([str(python), "-c", "pass"], check=True)
        best = min(best, time.perf_counter() - start)
    return best


def _imported_at_start(python: Path) -> list[str]:
    done = subprocess.run(
        [str(python), "-X", "importtime", "-c", "pass"], capture_output=True, text=True
    )
    return sorted(line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()[1:])


def test_nothing_is_imported_at_interpreter_start(stack: Stack) -> None:
    """`python -X importtime`: the same modules with our .pth as without it; a Python that never
    imports lm_eval pays under 5 ms (the fastest of 30 starts, with and without)."""
    pth = stack.site / PTH_NAME
    assert pth.is_file()
    with_pth, started_with = _imported_at_start(stack.python), _startup(stack.python)
    aside = pth.with_suffix(".off")
    pth.rename(aside)
    try:
        without, started_without = _imported_at_start(stack.python), _startup(stack.python)
    finally:
        aside.rename(pth)
    assert with_pth == without
    assert not [name for name in with_pth if "inspect_culture" in name]
    cost_ms = (started_with - started_without) * 1000
    print(
        f"startup with our .pth: {started_with * 1000:.1f} ms, without: {started_without * 1000:.1f} ms"
    )
    assert cost_ms < 5, f"our .pth costs {cost_ms:.1f} ms at interpreter start"


def test_a_broken_discovery_is_one_warning_and_lm_eval_runs_on(
    stack: Stack, tmp_path: Path
) -> None:
    """The discovery module gone (a damaged install): `lm_eval ls tasks` lists lm-eval's tasks,
    with one line naming us and the cause."""
    module = stack.site / "inspect_culture" / "lm_eval_tasks" / "discovery.py"
    aside = tmp_path / "discovery.py"
    shutil.move(module, aside)
    try:
        theirs, ours = stack.validate([THEIRS], tmp_path), stack.validate(["care_zh"], tmp_path)
    finally:
        shutil.move(aside, module)
    assert theirs.returncode == 0 and ours.returncode == 1
    lines = [line for line in theirs.stderr.splitlines() if "inspect-culture" in line]
    assert len(lines) == 1, theirs.stderr[-3000:]
    assert "lm-eval task discovery is off: ModuleNotFoundError" in lines[0]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads an unreadable folder")
def test_an_unreadable_task_folder_is_one_warning(stack: Stack, tmp_path: Path) -> None:
    care = stack.site / "inspect_culture" / "lm_eval_tasks" / "care"
    mode = care.stat().st_mode
    care.chmod(0)
    try:
        done = stack.validate([THEIRS, "normad"], tmp_path)
    finally:
        care.chmod(mode)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [line] = [line for line in done.stderr.splitlines() if "inspect-culture" in line]
    assert f"cannot read {care}: PermissionError" in line


def test_uninstall_leaves_nothing_behind(stack: Stack, tmp_path: Path) -> None:
    before = set(os.listdir(stack.site))
    stack.pip("uninstall", "--yes", "inspect-culture")
    try:
        left = sorted(n for n in os.listdir(stack.site) if "inspect_culture" in n.lower())
        assert left == []
        assert {n for n in before if "inspect_culture" not in n} == set(os.listdir(stack.site))
        assert not (stack.root / "bin" / "culture-evals").exists()
        theirs, ours = stack.validate([THEIRS], tmp_path), stack.validate(["care_zh"], tmp_path)
        assert theirs.returncode == 0 and ours.returncode == 1
        assert "inspect-culture" not in theirs.stderr + ours.stderr
    finally:
        stack.pip("install", "--no-deps", str(stack.wheel))

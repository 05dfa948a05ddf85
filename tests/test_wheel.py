"""Build the wheel, install it into a bare venv, and check what it exposes."""

import json
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from inspect_culture.lm_eval_tasks.discovery import PTH_NAME
from inspect_culture.lm_eval_tasks.yaml_generation import checked_in

pytestmark = [pytest.mark.slow, pytest.mark.compat]
ROOT = Path(__file__).resolve().parents[1]
ROOTS = {"inspect_culture", PTH_NAME}
GENERIC = ["scorers", "datasets_hub", "lm_eval_tasks", "tests", "benchmarks", "judging", "stats"]

PROBE = """
import importlib.util, json, importlib.metadata as md, sys
import inspect_culture
GENERIC_NAMES = sys.argv[1:]
from importlib import resources
pkg = resources.files("inspect_culture")
print(json.dumps({
    "generic": {n: importlib.util.find_spec(n) is not None for n in GENERIC_NAMES},
    "subpackages": [importlib.util.find_spec("inspect_culture." + n) is not None
                    for n in ("benchmarks", "datasets_hub", "lm_eval_tasks", "judging", "stats")],
    "yamls": sorted(p.name for p in (pkg / "lm_eval_tasks" / "normad").iterdir()
                    if p.name.endswith(".yaml") or p.name.endswith("_yaml")),
    "schema": (pkg / "benchmarks" / "normad" / "schemas" / "normad.schema.json").is_file(),
    "report_data": sorted(p.name for p in (pkg / "report" / "published").iterdir())
                   + sorted(p.name for p in (pkg / "report" / "templates").iterdir()),
    "care_files": sum(1 for _ in (pkg / "benchmarks" / "care" / "upstream").iterdir() if _.is_file())
                  + sum(1 for _ in (pkg / "benchmarks" / "care" / "prompt_texts").iterdir()),
    "entry_points": sorted(f"{e.group}:{e.name}={e.value}"
                           for e in md.distribution("inspect-culture").entry_points),
    "top_level": sorted({f.parts[0] for f in md.distribution("inspect-culture").files}),
}))
"""


def build_wheel(out: Path, sources: Path) -> Path:
    """The wheel, built by pip from a clean copy of the checkout (also the packaging tests')."""
    # Build from a clean copy: setuptools would reuse a stale build/ in the working tree. Not
    # the other venvs and downloads (.venv-compat-*, .compat, .venv-vllm: GBs in CI)
    source = sources / "inspect-culture"
    shutil.copytree(
        ROOT, source,
        ignore=shutil.ignore_patterns(
            ".venv*", ".git", ".compat", ".vllm-smoke", "runs", "logs", "build", "dist",
            "*.egg-info", "__pycache__", ".*_cache",
        ),
    )  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(out), str(source)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [built] = out.glob("inspect_culture-*.whl")
    return built


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("dist"), tmp_path_factory.mktemp("src"))


def test_wheel_has_one_import_root_and_the_discovery_pth(wheel: Path) -> None:
    """One package, and beside it the .pth that lets `lm_eval --tasks care_zh` find our tasks
    (discovery.py): listed in RECORD, so `pip uninstall` removes it."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        roots = {name.split("/")[0] for name in names}
        [record] = [n for n in names if n.endswith(".dist-info/RECORD")]
        recorded = {line.split(",")[0] for line in archive.read(record).decode().splitlines()}
        pth = archive.read(PTH_NAME).decode()
    assert {r for r in roots if not r.endswith(".dist-info")} == ROOTS
    assert PTH_NAME in recorded
    assert pth == (ROOT / "inspect_culture/lm_eval_tasks/discovery.pth").read_text(encoding="utf-8")


def test_installed_wheel_in_clean_venv(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-index", str(wheel)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    check_installed(python, tmp_path)


def check_installed(python: Path, cwd: Path) -> None:
    """The wheel test's checks of an installed inspect-culture (also run on an sdist install)."""
    done = subprocess.run(
        [str(python), "-I", "-c", PROBE, *GENERIC], capture_output=True, text=True, cwd=cwd
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["generic"] == {name: False for name in GENERIC}
    assert all(found["subpackages"])
    assert found["care_files"] == 11  # 3 test sets, LICENSE; 6 prompt texts, LICENSE
    assert found["yamls"] == sorted(checked_in(ROOT / "inspect_culture/lm_eval_tasks/normad"))
    assert found["schema"]
    assert found["report_data"] == [
        *("care.json", "cqbench.json", "culturesynth.json", "normad.json"),
        *("report.css", "report.html.j2"),
    ]
    assert "inspect_ai:inspect_culture=inspect_culture.inspect_entry_point" in found["entry_points"]
    assert "console_scripts:culture-evals=inspect_culture.cli:run" in found["entry_points"]
    assert "lm_eval.tasks:inspect_culture=inspect_culture.lm_eval_tasks" in found["entry_points"]
    # everything installed is under inspect_culture/, its dist-info, the bin/ scripts, or the
    # discovery .pth
    installed_roots = {
        t for t in found["top_level"] if not t.endswith(".dist-info") and not t.startswith("..")
    }
    assert installed_roots == ROOTS


def test_support_modules_the_smoke_imports_need_no_pytest() -> None:
    """scripts/vllm-smoke runs in its own venv without pytest and imports these helpers."""
    code = (
        "import sys; sys.modules['pytest'] = None; "
        "import tests.support.cqbench_data, tests.support.culturesynth_data, "
        "tests.support.openai_stub"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr

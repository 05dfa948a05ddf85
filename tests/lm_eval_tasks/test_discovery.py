"""`lm_eval --tasks care_zh` with no flag (inspect_culture/lm_eval_tasks/discovery.py): where our
task folder goes among TaskManager's paths, the switch, the one-line warnings, and the .pth's
finder in a fresh interpreter. The installed wheel, at the floor and the newest lm-eval, is
tests/packaging/test_lm_eval_discovery.py."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspect_culture.lm_eval_tasks import discovery, include_path

PTH = Path(discovery.__file__).with_name("discovery.pth")
OURS = str(include_path())


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(discovery.ENV, raising=False)
    monkeypatch.setattr(discovery, "_warned", set())


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (None, [OURS]),
        ("/user/tasks", [OURS, "/user/tasks"]),
        (Path("/user/tasks"), [OURS, Path("/user/tasks")]),
        (["/a", "/b"], [OURS, "/a", "/b"]),
        (("/a",), [OURS, "/a"]),
    ],
)
def test_ours_comes_before_every_path_the_caller_gives(given: object, expected: list) -> None:
    """lm-eval indexes its defaults, then the include paths in order, a later one overriding an
    earlier one: first among them, ours loses to each of the user's."""
    assert discovery.include_paths(given, True) == (expected, True)


def test_nothing_is_added_when_the_caller_asks_for_its_own_paths_only_or_gives_ours() -> None:
    assert discovery.include_paths(["/a"], False) == (["/a"], False)
    assert discovery.include_paths(OURS, True) == (OURS, False)
    assert discovery.include_paths([f"{OURS}/"], True) == ([f"{OURS}/"], False)
    # a folder above ours indexes ours already: added again, each task would override itself
    above = str(Path(OURS).parent)
    assert discovery.include_paths(["/a", above], True) == (["/a", above], False)


def test_the_switch(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv(discovery.ENV, "0")
    assert discovery.include_paths(None, True) == (None, False)
    monkeypatch.setenv(discovery.ENV, "1")
    assert discovery.include_paths(None, True) == ([OURS], True)
    monkeypatch.setenv(discovery.ENV, "off")
    with caplog.at_level(logging.WARNING, logger="inspect_culture"):
        assert discovery.include_paths(None, True) == ([OURS], True)
        assert discovery.include_paths(None, True) == ([OURS], True)
    [record] = caplog.records  # once per process, not per TaskManager
    message = record.getMessage()
    assert "\n" not in message
    assert message.startswith("inspect-culture: lm-eval task discovery: ")
    assert "INSPECT_CULTURE_LM_EVAL_TASKS='off' is not 0 or 1" in message


def test_an_unreadable_task_folder_gives_one_warning_and_breaks_nothing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """lm-eval's glob skips an unreadable folder without a word ('task not found'): we say it,
    once, naming the folder and the cause; the readable rest stays, an unreadable whole goes."""
    (tmp_path / "care").mkdir()

    def walk(top: str, onerror=None):  # type: ignore[no-untyped-def]
        onerror(PermissionError(13, "Permission denied", str(tmp_path / "care")))
        yield str(top), ["care"], []

    monkeypatch.setattr(discovery.os, "walk", walk)
    with caplog.at_level(logging.WARNING, logger="inspect_culture"):
        assert discovery.include_paths(["/a"], True, tmp_path) == ([str(tmp_path), "/a"], True)
        monkeypatch.setattr(discovery.os, "access", lambda path, mode: False)
        assert discovery.include_paths(["/a"], True, tmp_path) == (["/a"], False)
    [record] = caplog.records
    assert record.getMessage().startswith(
        f"inspect-culture: lm-eval task discovery: cannot read {tmp_path / 'care'}: "
        "PermissionError: Permission denied"
    )
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="inspect_culture"):
        missing = tmp_path / "gone"
        assert discovery.include_paths(None, True, missing) == (None, False)
    assert f"our task folder {missing} is missing" in caplog.records[0].getMessage()


# What the .pth does in a fresh interpreter (its line run as site.py runs it), then what the
# patched TaskManager hands lm-eval's index: lm-eval's build is replaced by a recorder (indexing
# lm-eval's own tasks takes seconds; the real index is the packaging test's).
PROBE = """
import json, sys
from pathlib import Path
for _ in range(2):  # a venv's lib64 link makes site.py run a .pth twice
    for line in Path(sys.argv[1]).read_text(encoding="utf-8").splitlines():
        if line.startswith("import "):
            exec(line)
finders = sum(bool(getattr(f, "_inspect_culture_lm_eval_tasks", False)) for f in sys.meta_path)
import lm_eval.tasks
from lm_eval.tasks import TaskManager, manager
seen = []
manager.TaskIndex.build = staticmethod(lambda paths, **kw: seen.append([str(p) for p in paths]) or {})
TaskManager()
TaskManager(include_path="/user/tasks")
TaskManager(None, ["/a", "/b"], True)
TaskManager(include_path="/user/tasks", include_defaults=False)
print(json.dumps({"seen": seen, "finders": finders, "loader": type(lm_eval.tasks.__loader__).__name__,
                  "spec_loader": type(lm_eval.tasks.__spec__.loader).__name__,
                  "defaults": str(Path(manager.__file__).parent)}))
"""


def _probe(*extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, str(PTH), *extra],
        capture_output=True, text=True, env={**os.environ, **(env or {})},
    )  # fmt: skip


def test_the_pth_finder_gives_every_task_manager_our_folder() -> None:
    done = _probe()
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    defaults = found["defaults"]
    assert found["seen"] == [
        [defaults, OURS],
        [defaults, OURS, "/user/tasks"],
        [defaults, OURS, "/a", "/b"],
        ["/user/tasks"],
    ]
    assert found["finders"] == 1
    # lm-eval's module keeps its own loader: nothing else sees ours
    assert found["loader"] == found["spec_loader"] == "SourceFileLoader"
    assert "inspect-culture" not in done.stderr


def test_the_switch_in_a_fresh_interpreter() -> None:
    done = _probe(env={discovery.ENV: "0"})
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["seen"][:2] == [[found["defaults"]], [found["defaults"], "/user/tasks"]]

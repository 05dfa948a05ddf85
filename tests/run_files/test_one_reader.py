"""Finished runs have one reader: outside `run_files`' finder and its two readers, no module of
the package opens (to read or to write) an Inspect log, an lm-eval results file or a samples file,
or walks a folder for them (issue 41, point 4)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import inspect_culture

PACKAGE = Path(inspect_culture.__file__).parent
READERS = {
    "run_files/finder.py",
    "run_files/inspect_outputs.py",
    "run_files/lm_eval_outputs.py",
}
# What reading, writing or finding a run's files takes; a message naming a file (`no results_<ts>.json
# next to it`) is none of these
READING = {
    "Inspect's log reader": re.compile(r"\bread_eval_log\w*|inspect_ai\.log\.read_"),
    "a log's members": re.compile(r"[\"'](summaries|header)\.json[\"']"),
    "a walk for run files": re.compile(
        r"\.rglob\(\s*[\"']\*[\"']|\.r?glob\(\s*f?[\"'][^\"']*(samples_|results_|\.eval)"
    ),
    "a log's suffix": re.compile(r"[\"']\.eval[\"']"),
    "a results file's name": re.compile(r"startswith\(\s*(RESULTS_PREFIX|[\"']results_)"),
    "a run file's name built": re.compile(r"\bf[\"'](samples|results)_\{"),
    "the finder's run file names": re.compile(r"\b(RESULTS_PREFIX|samples_path)\b"),
    "a run file written": re.compile(
        r"(samples_|results_|\.eval\b).*\.(write_text|write_bytes|open)\("
        r"|\bopen\([^)]*(samples_|results_|\.eval\b)"
    ),
}


def violations(package: Path) -> list[str]:
    """`file:line: what` for each reading or writing of run files outside the readers."""
    found = []
    for path in sorted(package.rglob("*.py")):
        if path.relative_to(package).as_posix() in READERS:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            found += [
                f"{path.relative_to(package)}:{number}: {what}"
                for what, pattern in READING.items()
                if pattern.search(line)
            ]
    return found


def test_only_run_files_readers_open_run_files() -> None:
    assert violations(PACKAGE) == []


@pytest.mark.parametrize(
    "planted",
    [
        "from inspect_ai.log import read_eval_log\n",
        "log = inspect_ai.log.read_eval_log_sample(str(path))\n",
        "data = archive.read('summaries.json')\n",
        "paths = sorted(folder.rglob('*'))\n",
        'paths = folder.glob("samples_*.jsonl")\n',
        'if path.suffix == ".eval":\n    pass\n',
        'if path.name.startswith("results_"):\n    pass\n',
        'path = folder / f"results_{stamp}.json"\n',
        'path = folder / f"{finder.RESULTS_PREFIX}{stamp}.json"\n',
        "samples_path(path, task).write_text(text)\n",
        '(folder / "results_x.json").write_text(text)\n',
        'with open(folder / "samples_a_x.jsonl", "w") as out:\n    pass\n',
        'with (folder / "samples_a_x.jsonl").open("w") as out:\n    pass\n',
    ],
)
def test_a_planted_reader_is_found(planted: str, tmp_path: Path) -> None:
    copy = tmp_path / "inspect_culture"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.yaml"))
    report = copy / "report" / "build.py"
    report.write_text(report.read_text(encoding="utf-8") + planted, encoding="utf-8")
    found = violations(copy)
    assert found
    assert all(one.startswith("report/build.py:") for one in found)
    # the same line inside a reader is where it belongs
    report.write_text(report.read_text(encoding="utf-8").removesuffix(planted), encoding="utf-8")
    reader = copy / "run_files" / "finder.py"
    reader.write_text(reader.read_text(encoding="utf-8") + planted, encoding="utf-8")
    assert violations(copy) == []

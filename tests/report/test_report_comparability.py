"""Comparability warnings compare like with like: each language or context reads its own data
file, so different files across settings are no warning, and every warning names each run by
model, harness and setting."""

from __future__ import annotations

from pathlib import Path

from inspect_culture.report.build import comparability_warnings
from inspect_culture.report.model import RunInfo


def _run(language: str, sha256: str, harness: str = "inspect", model: str = "m") -> RunInfo:
    return RunInfo(
        path=Path(f"{language}.eval"), harness=harness, benchmark="CARE", task="care",
        setting={"language": language}, model=model, metrics={}, samples=150,
        dataset="Guochry/CARE@d614cfe2407a", dataset_sha256=sha256, judge="j",
    )  # fmt: skip


def test_three_languages_are_three_files_not_a_conflict() -> None:
    runs = [_run("zh", "a" * 64), _run("ar", "b" * 64), _run("ja", "c" * 64)]
    assert not [w for w in comparability_warnings(runs, []) if "dataset file" in w]


def test_one_language_read_from_two_files_is_named_by_model_harness_and_setting() -> None:
    runs = [_run("zh", "a" * 64), _run("zh", "b" * 64, harness="lm-eval"), _run("ar", "c" * 64)]
    [warning] = [w for w in comparability_warnings(runs, []) if "dataset file" in w]
    assert warning.startswith("CARE: the runs differ in dataset file (sha256): ")
    assert "aaaaaaaaaaaa (m [inspect; language=zh])" in warning
    assert "bbbbbbbbbbbb (m [lm-eval; language=zh])" in warning
    assert "language=ar" not in warning

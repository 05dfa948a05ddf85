import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from inspect_culture.cli import main
from inspect_culture.lm_eval_tasks import include_path
from inspect_culture.task_catalogue import all_tasks


def test_catalog_covers_every_lm_eval_yaml() -> None:
    configs = [
        yaml.safe_load(path.read_text(encoding="utf-8").replace("!function", ""))
        for path in include_path().rglob("*.yaml")
    ]
    names = {c["task"] if isinstance(c.get("task"), str) else c["group"] for c in configs}
    assert {e.name for e in all_tasks() if e.harness == "lm-eval"} == names


def test_catalog_covers_every_inspect_task() -> None:
    import inspect_culture.inspect_entry_point as registry

    names = {f"inspect_culture/{name}" for name in registry.__all__}
    assert {e.name for e in all_tasks() if e.harness == "inspect"} == names


def test_list_prints_every_task(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for entry in all_tasks():
        assert entry.name in out and entry.description in out


def test_lm_eval_path_is_the_yaml_directory(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lm-eval-path"]) == 0
    path = Path(capsys.readouterr().out.strip())
    assert (path / "normad" / "normad_rot.yaml").is_file()


def test_data_info_reports_source_and_availability(
    normad_mirror: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["data", "info"]) == 0
    out = capsys.readouterr().out
    assert "akhilayerukola/NormAd" in out and "311049f5610e932792672e4e13e7df62b6290336" in out
    assert f"available: yes (mirror: {normad_mirror}; 16 rows)" in out
    assert "CC BY 4.0" in out


def test_data_verify_counts_rows(normad_mirror: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "verify", "normad"]) == 0
    out = capsys.readouterr().out
    assert "normad: OK" in out and "rows:" in out and " 16" in out


def test_data_verify_reports_malformed_rows_and_the_unverified_revision(
    normad_mirror: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import csv

    path = normad_mirror  # the mirror's NormAd file
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows[1]["Background"] = "eating"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert main(["data", "verify", "normad"]) == 0
    out = capsys.readouterr().out
    assert "normad: OK, with a warning" in out
    assert "malformed_rows: 1" in " ".join(out.split())
    assert f"data row 2 (ID {rows[1]['ID']})" in out
    assert "revision: unverified" in " ".join(out.split())


def test_data_verify_fails_clearly_when_missing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_OFFLINE", "1")
    assert main(["data", "verify"]) == 1
    out = capsys.readouterr().out
    assert "normad: FAILED" in out and "normad/normad_etiquette_final_data.csv" in out


def test_unknown_dataset_is_named() -> None:
    with pytest.raises(SystemExit, match="unknown dataset.*cultureatlas.*known: normad"):
        main(["data", "info", "cultureatlas"])


def test_console_script_is_installed() -> None:
    exe = Path(sys.executable).parent / "culture-evals"
    done = subprocess.run([str(exe), "list"], capture_output=True, text=True)
    assert done.returncode == 0 and "normad_value_country" in done.stdout


def test_judge_command_options(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main(["judge", "--help"])
    help_text = capsys.readouterr().out
    for option in ("--batch", "--judge-concurrency", "--judge-constraint", "--metadata", "-o"):
        assert option in help_text
    out = ["-o", str(tmp_path / "out")]
    with pytest.raises(SystemExit, match=r"judge_concurrency=0: must be an integer >= 1"):
        main(["judge", str(tmp_path), *out, "--judge-model", "j", "--judge-concurrency", "0"])
    with pytest.raises(SystemExit, match="no judge configured"):
        main(["judge", str(tmp_path), *out, "--metadata", '{"judge_base_url": "http://h/v1"}'])
    with pytest.raises(SystemExit, match="judge_api_key must not be passed"):
        main(
            [
                "judge",
                str(tmp_path),
                *out,
                "--metadata",
                '{"judge_model": "j", "judge_api_key": "k"}',
            ]
        )
    with pytest.raises(SystemExit, match="--poll-interval must be > 0"):
        main(["judge", str(tmp_path), *out, "--batch", "--poll-interval", "0"])


def test_every_judge_flag_says_its_declared_help(capsys: pytest.CaptureFixture[str]) -> None:
    """Each judge option is declared with its own one-line help (issue 41, point 2), and
    `culture-evals judge --help` says it for its flag."""
    from inspect_culture.judging.options import FLAG, OPTIONS, declared

    assert all(isinstance(o.help, str) and len(o.help) > 20 for o in OPTIONS)
    with pytest.raises(SystemExit):
        main(["judge", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())  # argparse wraps its lines
    for option in declared(FLAG):
        assert f"--{option.name.replace('_', '-')}" in help_text
        assert " ".join(option.help.split()) in help_text, option.name
    assert "lm-eval's judge_" not in help_text


def test_agreement_names_missing_care_runs(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no CARE samples file"):
        main(["agreement", "--benchmark", "care", str(tmp_path), str(tmp_path)])
    with pytest.raises(SystemExit, match="does not exist"):
        main(["agreement", str(tmp_path / "nope"), str(tmp_path)])


def test_the_main_job_keeps_its_report_in_the_checkout_by_default() -> None:
    from inspect_culture.cli import build_parser

    assert build_parser().parse_args(["main-job"]).output == "runs/main-job"
    assert build_parser().parse_args(["main-job", "-o", "x"]).output == "x"

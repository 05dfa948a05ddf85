"""Every shell command of README.md and docs/*.md runs as written, with only the model and the
judge on the stub server (tests/support/doc_commands.py); a command that cannot run offline is
marked `# [needs ...]` with one of a few reasons."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.benchmarks.cqbench.spec import CATEGORIES
from tests.support.cqbench_data import ad_items, install_folder_mirror, original_items, vs_items
from tests.support.culturesynth_data import SAMPLE_ROWS, is_judge_call, write_culturesynth_jsonl
from tests.support.doc_commands import (
    ROOT,
    documented_commands,
    markdown_files,
    offline,
)
from tests.support.openai_stub import StubOpenAIServer, honouring_constraints
from tests.support.report_runs import install_mirror, responder

# the only reasons a documented command may give for not running here; "a quiet machine": a
# timing benchmark (minutes), meaningless beside other tests (tests/benchmarks_scripts runs
# each such script small)
REASONS = ("PyPI", "a GPU", "a quiet machine")


def test_commands_are_found_and_swapped() -> None:
    found = {c.text: c for p in markdown_files() for c in documented_commands(p)}
    care = next(t for t in found if t.startswith("inspect eval inspect_culture/care --model vllm"))
    assert "\\" not in care and "#" not in care  # continuation lines joined, comments dropped
    assert found["pip install inspect-culture"].needs == "PyPI"
    swapped = offline(care, "http://127.0.0.1:1/v1")
    assert "vllm/" not in swapped and "--model openai-api/stub/model" in swapped
    assert "--model-role grader=openai-api/stub/grader" in swapped
    lm = offline(
        "lm_eval ... --tasks care_zh --metadata "
        '\'{"judge_model": "gpt-4o", "judge_base_url": "https://api.openai.com/v1"}\'',
        "http://127.0.0.1:1/v1",
    )
    assert lm.startswith("lm_eval --model local-chat-completions --model_args model=model,")
    assert '"judge_base_url": "http://127.0.0.1:1/v1"' in lm and "openai.com" not in lm


def test_only_known_reasons_excuse_a_command() -> None:
    marked = [c for p in markdown_files() for c in documented_commands(p) if c.needs]
    assert marked, "the pip installs are marked"
    assert all(c.needs in REASONS for c in marked), [str(c) for c in marked]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """One working folder for all the documents (a later document may use an earlier one's
    outputs, as a reader's folder would hold them), the stub server and an offline mirror."""
    work = tmp_path_factory.mktemp("docs_commands")
    for name in ("inspect_culture", "benchmarks", "tests"):  # "from a checkout" paths
        (work / name).symlink_to(ROOT / name)
    mirror = install_mirror(work / ".mirror")
    shutil.copytree(ROOT / "tests" / "data" / "care_ratings", mirror / "care" / "data")
    files = {}  # every category: the lm-eval groups run them all
    for category in CATEGORIES:
        files[f"dataset_setting1_{category}.json"] = ad_items()
        files[f"dataset_setting2_{category}.json"] = vs_items()
        files[f"dataset_{category}_original.json"] = original_items()
    install_folder_mirror(mirror, files)
    extra = [  # one made-up question for each language the sample lacks
        {
            **SAMPLE_ROWS[0],
            "id": f"{lang}-0001",
            "question": f"A question in {lang}?",
            "language": lang,
        }
        for lang in ("ar", "ko", "pt", "es")
    ]
    write_culturesynth_jsonl(mirror / "culturesynth" / "culturesynth.jsonl", SAMPLE_ROWS + extra)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    with StubOpenAIServer(responder=honouring_constraints(_any_benchmark)) as server:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("INSPECT_")},
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "STUB_BASE_URL": server.base_url,
            "STUB_API_KEY": "test-key",
            "INSPECT_CULTURE_DATA_DIR": str(mirror),
            "INSPECT_CULTURE_CACHE_DIR": str(work / ".cache"),
            "INSPECT_CULTURE_HF_ENDPOINT": f"http://127.0.0.1:{closed}",
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_DATASETS_CACHE": str(work / ".hf"),
            "INSPECT_DISPLAY": "plain",
            # a broken request fails the command instead of being retried for an hour
            "INSPECT_EVAL_MAX_RETRIES": "2",
            "INSPECT_EVAL_TIMEOUT": "60",
            "PYTHONWARNINGS": "ignore",
        }
        env["STUB"] = server.base_url
        yield work, env


def _any_benchmark(prompt: str, body: dict[str, Any]) -> str:
    """The report tests' stub, with a verdict for any CultureSynth-7 game (theirs rule only on
    their sample questions, answered by a target model whose answers they recognise)."""
    if is_judge_call(body):
        verdicts = ("[[A]]", "[[B]]", "[[C]]")
        return f"Compared with the reference. {verdicts[len(prompt) % 3]}"
    return responder(prompt, body)


def _newest_log(work: Path, folder: str) -> str:
    logs = sorted((work / folder).glob("*.eval"), key=lambda p: p.stat().st_mtime)
    assert logs, f"no Inspect log yet in {folder} for {folder}<log>.eval"
    return str(logs[-1].relative_to(work))


def _start_in_background(text: str, work: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """A documented `command &` (a server): started, waited for until its port answers."""
    process = subprocess.Popen(["bash", "-c", f"exec {text}"], cwd=work, env=env, text=True)
    port = int(re.search(r"--port (\d+)", text).group(1))  # type: ignore[union-attr]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, f"{text} exited with {process.returncode}"
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return process
        time.sleep(0.2)
    process.kill()
    raise AssertionError(f"{text}: nothing listens on port {port} after 60 s")


@pytest.mark.slow
@pytest.mark.parametrize("document", markdown_files(), ids=lambda p: p.name)
def test_documented_commands_run(document: Path, workspace: tuple[Path, dict[str, str]]) -> None:
    work, env = workspace
    env = dict(env)  # a document's `export`s hold for its later commands only
    background: list[subprocess.Popen[str]] = []
    try:
        for command in documented_commands(document):
            if command.needs:
                continue
            text = offline(command.text, env["STUB"])
            text = re.sub(r"(\S*)<log>\.eval", lambda m: _newest_log(work, m.group(1)), text)
            if text.startswith("export "):
                env.update(word.split("=", 1) for word in shlex.split(text)[1:])
                continue
            if text.endswith("&"):
                background.append(_start_in_background(text[:-1].strip(), work, env))
                continue
            result = subprocess.run(
                ["bash", "-c", text], cwd=work, env=env, capture_output=True, text=True, timeout=300
            )
            output = (result.stdout + result.stderr)[-3000:]
            assert result.returncode == 0, f"{command}\nran as: {text}\n{output}"
    finally:
        for process in background:
            process.terminate()
            process.wait(timeout=30)


def test_local_server_doc_shows_what_the_command_prints() -> None:
    from inspect_culture.local_model.server import how_to_use

    page = (ROOT / "docs" / "local-model.md").read_text(encoding="utf-8")
    assert how_to_use("http://127.0.0.1:8080/v1") in page

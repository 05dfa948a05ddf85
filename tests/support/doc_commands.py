"""The shell commands of README.md and docs/*.md, as written, and the one change that lets them
run here: the model and the judge swapped for the stub server (docs/local-model.md says how a
reader does the same with the local llama.cpp server).

A command that cannot run offline says so on its line, `# [needs <what>]`; every other command
is run by tests/docs/test_documented_commands.py, file by file, in document order, in one
working folder (so a command may read what an earlier one wrote, as a reader's would)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NEEDS = re.compile(r"\[needs ([^\]]+)\]")
STUB_MODEL = "openai-api/stub/model"
# commands that already use the local llama.cpp server (docs/local-model.md) keep their model
LOCAL_SERVER = ("openai-api/local/smollm2-135m", "127.0.0.1:8080")


@dataclass(frozen=True)
class DocCommand:
    path: str  # relative to the checkout
    line: int  # where the command starts, 1-based
    text: str  # continuation lines joined, the comment dropped
    needs: str | None  # why it cannot run offline, from its `# [needs ...]` comment

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _split_comment(line: str) -> tuple[str, str]:
    """The code and the `#` comment of a shell line (a `#` inside quotes is code)."""
    quote = None
    for i, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1 :].strip()
    return line.rstrip(), ""


def documented_commands(path: Path) -> list[DocCommand]:
    """Every command in the file's ```bash blocks."""
    commands: list[DocCommand] = []
    in_block, pending, start, notes = False, "", 0, ""
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if raw.startswith("```"):
            in_block = raw.strip() == "```bash" if not in_block else False
            continue
        if not in_block:
            continue
        code, comment = _split_comment(raw.strip())
        if not pending:
            start, notes = number, ""
        notes += " " + comment
        if code.endswith("\\"):
            pending += code[:-1].strip() + " "
            continue
        text = (pending + code).strip()
        pending = ""
        if text:
            found = NEEDS.search(notes)
            relative = str(path.relative_to(ROOT))
            commands.append(DocCommand(relative, start, text, found.group(1) if found else None))
    return commands


def _stub_lm_eval_model(stub_url: str) -> str:
    return f"--model local-chat-completions --model_args model=model,base_url={stub_url}/chat/completions"


def _discovery_installed() -> bool:
    """Whether this interpreter's site-packages holds the .pth that lets `lm_eval --tasks`
    find our tasks with no flag (an install made before it existed does not)."""
    import site

    from inspect_culture.lm_eval_tasks.discovery import PTH_NAME

    return any((Path(folder) / PTH_NAME).is_file() for folder in site.getsitepackages())


def offline(command: str, stub_url: str) -> str:
    """The command with its model and judge on the stub server; nothing else changes."""
    if any(local in command for local in LOCAL_SERVER):
        return command
    words = shlex.split(command)
    if words[:2] == ["lm_eval", "..."]:  # "..." stands for the model and the task folder
        command = command.replace(
            "lm_eval ...",
            f"lm_eval {_stub_lm_eval_model(stub_url)} --apply_chat_template "
            '--include_path "$(culture-evals lm-eval-path)"',
            1,
        )
    elif "lm_eval" in words:  # the model: its type, its arguments and vLLM's batch size
        if "--tasks" in words and "--include_path" not in words and not _discovery_installed():
            # a venv installed before the discovery .pth (docs/lm-eval.md) finds our tasks so
            command += ' --include_path "$(culture-evals lm-eval-path)"'
        command = re.sub(r" --batch_size auto", "", command)
        command = re.sub(r"--model \S+", "--model local-chat-completions", command, count=1)
        command = re.sub(
            r"--model_args \S+",
            f"--model_args model=model,base_url={stub_url}/chat/completions",
            command,
        )
    elif "inspect" in words:  # the model (each of a list), its -M arguments, each role
        command = re.sub(
            r"--model (\S+)",
            lambda m: (
                "--model "
                + ",".join(f"{STUB_MODEL}{i or ''}" for i, _ in enumerate(m.group(1).split(",")))
            ),
            command,
        )
        command = re.sub(r" -M \S+", "", command)
        command = re.sub(
            r"--model-role '?(\w+)=(\{[^']*\}'|\S+)",
            lambda m: f"--model-role {m.group(1)}=openai-api/stub/{m.group(1)}",
            command,
        )
    # the lm-eval judge: in --metadata, or the options of `culture-evals judge`
    command = re.sub(r'"judge_base_url": "[^"]*"', f'"judge_base_url": "{stub_url}"', command)
    command = re.sub(r'"judge_model": "[^"]*"', '"judge_model": "judge"', command)
    return re.sub(r"--judge-base-url \S+", f"--judge-base-url {stub_url}", command)

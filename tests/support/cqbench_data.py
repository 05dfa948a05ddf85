"""A small synthetic CQ-Bench `datasets.zip` in the schema inferred from the upstream code
(upstream.md 4.2): made-up stories and values, no upstream content."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import inspect_culture.benchmarks.cqbench.data as cq

if TYPE_CHECKING:  # the vLLM smoke imports this module where pytest is not installed
    import pytest

AGREE = [" agree ", " neither agree nor disagree ", " disagree"]
OFTEN = [" Very often  ", " Not often ", " Not at all often"]


def ad_items() -> list[dict[str, Any]]:
    return [
        {
            "story": "Ana and Ben talk about their jobs at dinner.",
            "questions": [
                {"name": "Ana", "value": "Work is important in life", "options": AGREE, "gold label": " agree "},
                {"name": "Ben", "value": "People should obey laws", "options": AGREE, "gold label": " disagree"},
            ],
        },
        {
            "story": "Chen visits a temple with friends.",
            "questions": [
                {"name": "Chen", "value": "How often do you attend services", "options": OFTEN, "gold label": " Not often "},
            ],
        },
    ]  # fmt: skip


def vs_items() -> list[dict[str, Any]]:
    options = [f"Statement {i}--agree" for i in range(12)] + [
        "Work is important in life--agree",
        "People should obey laws--disagree",
        "Family comes first--agree",
    ]
    return [
        {
            "story": "Ana and Ben talk about their jobs at dinner.",
            "options": options,
            "values": ["Work is important in life--agree", "People should obey laws--disagree"],
        }
    ]


def original_items() -> list[dict[str, Any]]:
    return [
        {
            "original_values": ["Work is important in life--agree", "People should obey laws--disagree", "Family comes first--agree"],
            "values": ["Work is important in life--agree", "People should obey laws--disagree", "Family comes first--agree"],
            "story": "Ana and Ben talk about their jobs at dinner.",
            "contradiction": ["Family comes first--agree"],
        }
    ]  # fmt: skip


def social_files() -> dict[str, Any]:
    """AD, VS and original files for 'social'."""
    return {
        "dataset_setting1_social.json": ad_items(),
        "dataset_setting2_social.json": vs_items(),
        "dataset_social_original.json": original_items(),
    }


def build_zip(members: dict[str, Any] | None = None) -> bytes:
    """A zip with the social files and AD for 'politic' (upstream spelling), under `datasets/`."""
    members = members or {**social_files(), "dataset_setting1_politic.json": ad_items()[:1]}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in members.items():
            archive.writestr("datasets/" + name, json.dumps(content))
    return buffer.getvalue()


def pin_to(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    """Pin `CQBENCH.blob_id` to the synthetic archive, as the real one is pinned upstream."""
    blob_id = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    monkeypatch.setattr(cq, "CQBENCH", dataclasses.replace(cq.CQBENCH, blob_id=blob_id))


def use_zip_mirror(
    monkeypatch: pytest.MonkeyPatch,
    root: Path,
    members: dict[str, Any] | None = None,
    pinned: bool = True,
) -> None:
    """Write the synthetic zip as `<root>/cqbench/datasets.zip`, make `root` the offline mirror
    and, unless `pinned` is false, pin `CQBENCH.blob_id` to the zip."""
    data = build_zip(members)
    target = root / "cqbench" / "datasets.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(root))
    if pinned:
        pin_to(monkeypatch, data)


def install_folder_mirror(root: Path, members: dict[str, Any] | None = None) -> Path:
    """Write the synthetic files as the extracted `$INSPECT_CULTURE_DATA_DIR/cqbench/datasets/`
    folder (read as is, no blob id to pin): the social files by default."""
    folder = root / "cqbench" / "datasets"
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in (members or social_files()).items():
        (folder / name).write_text(json.dumps(content), encoding="utf-8")
    return folder

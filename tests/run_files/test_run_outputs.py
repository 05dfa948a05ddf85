"""Reading an earlier lm-eval run's samples file (the input of CQ-Bench VE step 2)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError
from inspect_culture.run_files.lm_eval_outputs import lm_eval_samples_file, read_lm_eval_samples


def _line(doc_id: str, text: str) -> str:
    return json.dumps(
        {"doc_id": 0, "doc": {"id": doc_id}, "resps": [[text]], "filtered_resps": [text]}
    )


def test_newest_samples_file_of_the_task_is_chosen(tmp_path: Path) -> None:
    folder = tmp_path / "out" / "model"
    folder.mkdir(parents=True)
    old = folder / "samples_t_2026-01-01.jsonl"
    new = folder / "samples_t_2026-02-01.jsonl"
    other = folder / "samples_t2_2026-03-01.jsonl"
    for path, stamp in ((old, 1_000), (new, 2_000), (other, 3_000)):
        path.write_text(_line("a", path.name) + "\n")
        os.utime(path, (stamp, stamp))
    assert lm_eval_samples_file(tmp_path / "out", "t") == new
    assert lm_eval_samples_file(old, "t") == old  # a file is taken as given
    with pytest.raises(DatasetUnavailableError, match="no samples_t3_"):
        lm_eval_samples_file(tmp_path / "out", "t3")
    with pytest.raises(DatasetUnavailableError, match="does not exist"):
        lm_eval_samples_file(tmp_path / "missing", "t")


def test_responses_keyed_by_doc_id(tmp_path: Path) -> None:
    path = tmp_path / "samples_t_x.jsonl"
    path.write_text(_line("a", "first") + "\n\n" + _line("b", "second") + "\n")
    outputs = read_lm_eval_samples(path)
    assert outputs.responses == {"a": "first", "b": "second"}
    assert outputs.docs["b"] == {"id": "b"} and len(outputs.sha256) == 64


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "line 1: not JSON"),
        (json.dumps({"doc": {}, "filtered_resps": ["x"]}), "line 1: field 'doc.id' is missing"),
        (json.dumps({"doc": {"id": "a"}, "filtered_resps": []}), "line 1: field 'filtered_resps'"),
        (_line("a", "x") + "\n" + _line("a", "y"), "line 2: doc id 'a' appears twice"),
        ("\n", "no samples in the file"),
    ],
)
def test_bad_samples_file_names_file_and_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "samples_t_x.jsonl"
    path.write_text(content)
    with pytest.raises(DataValidationError, match=message) as error:
        read_lm_eval_samples(path)
    assert str(path) in str(error.value)

"""Small synthetic CultureSynth-7 files in the plausible upstream layouts (xlsx with one sheet or a
sheet per language, JSONL, CSV): made-up questions, no upstream content. The real headers are
unknown; `UPSTREAM_HEADERS` is one plausible spelling that the loader's defaults must accept.
Also how the tests' stub judges rule on those questions (`RULINGS`, `judge_reply`)."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

FIELDS = ("id", "question", "answer", "language", "primary_topic", "secondary_topic")

# our field -> header written to the xlsx (spellings the loader has to map by default)
UPSTREAM_HEADERS: dict[str, str] = {
    "id": "ID",
    "question": "Question",
    "answer": "Answer",
    "language": "Language",
    "primary_topic": "Primary Topic",
    "secondary_topic": "Secondary Topic",
}

SAMPLE_ROWS: list[dict[str, str]] = [
    {"id": "zh-0001", "question": "中秋节人们通常吃什么？", "answer": "月饼。", "language": "zh", "primary_topic": "Social Sciences", "secondary_topic": "Food, Beverage, and Culinary Arts"},
    {"id": "zh-0002", "question": "京剧中的脸谱有什么作用？", "answer": "表示人物的性格。", "language": "zh", "primary_topic": "Arts", "secondary_topic": "Drama and Movie"},
    {"id": "zh-0003", "question": "孔子主张的核心概念是什么？", "answer": "仁。", "language": "zh", "primary_topic": "Philosophy and Psychology", "secondary_topic": "Ancient, medieval and eastern philosophy"},
    {"id": "ja-0001", "question": "正月に食べる伝統料理は何ですか？", "answer": "おせち料理です。", "language": "ja", "primary_topic": "Social Sciences", "secondary_topic": "Food, Beverage, and Culinary Arts"},
    {"id": "ja-0002", "question": "相撲の最高位は何と呼ばれますか？", "answer": "横綱です。", "language": "ja", "primary_topic": "Recreation, Sports, and Entertainment", "secondary_topic": "Sport and Exercise"},
    {"id": "fr-0001", "question": "Quel fromage vient de Normandie ?", "answer": "Le camembert.", "language": "fr", "primary_topic": "Social Sciences", "secondary_topic": "Food, Beverage, and Culinary Arts"},
    {"id": "fr-0002", "question": "Qui a écrit Les Misérables ?", "answer": "Victor Hugo.", "language": "fr", "primary_topic": "Literature", "secondary_topic": "French literature and literatures of related Romance languages"},
]  # fmt: skip

QUESTIONS = {row["id"]: row["question"] for row in SAMPLE_ROWS}

# How the stub judges rule on each question (the target's answer starts with "TARGET", the
# baseline's with "BASELINE").
RULINGS = {
    "zh-0001": "target",  # +1 in both orders
    "zh-0002": "first",  # always [[A]]: position-biased, inconsistent -> tie
    "zh-0003": "baseline",  # -1
    "ja-0001": "tie",  # [[C]] -> 0, consistent
    "ja-0002": "garbage",  # no verdict -> unscored
    "fr-0001": "target",  # +1
}
MISSING = "fr-0002"  # no baseline answer -> unscored, reported


def question_of(text: str) -> str:
    """The id of the sample question that `text` contains."""
    return next(qid for qid, question in QUESTIONS.items() if question in text)


def is_judge_call(body: dict[str, Any]) -> bool:
    first = body["messages"][0]
    return first["role"] == "system" and "impartial judge" in first["content"]


def judge_reply(prompt: str) -> str:
    """The stub judge's reply to one game's prompt, as `RULINGS` says."""
    # the check before generation judges the reference standing in for the target's answer
    target_first = prompt.find("TARGET") <= prompt.find("BASELINE")
    verdict = {
        "target": "[[A]]" if target_first else "[[B]]",
        "baseline": "[[B]]" if target_first else "[[A]]",
        "first": "[[A]]",
        "tie": "[[C]]",
        "garbage": "Both are fine.",
    }[RULINGS[question_of(prompt)]]
    return f"Compared with the reference... {verdict}"


def _rows(rows: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    return [dict(row) for row in (SAMPLE_ROWS if rows is None else rows)]


def write_culturesynth_jsonl(path: Path, rows: Sequence[Mapping[str, Any]] | None = None) -> Path:
    """One JSON object per line, keys as given (default: the normalized field names)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for row in _rows(rows):
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def write_culturesynth_csv(
    path: Path,
    rows: Sequence[Mapping[str, Any]] | None = None,
    columns: Sequence[str] | None = None,
) -> Path:
    """A UTF-8 CSV with the given columns (default: the keys of the first row)."""
    rows = _rows(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns or rows[0]), extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_culturesynth_xlsx(
    path: Path,
    rows: Sequence[Mapping[str, Any]] | None = None,
    headers: Mapping[str, str] | None = None,
    sheet_per_language: bool = False,
) -> Path:
    """An xlsx made with openpyxl. `headers` maps our fields to the header written (default
    `UPSTREAM_HEADERS`; a field left out is not written). With `sheet_per_language`, one sheet
    per language named by its code and no language column."""
    import openpyxl

    headers = dict(UPSTREAM_HEADERS if headers is None else headers)
    if sheet_per_language:
        headers.pop("language", None)
    rows = _rows(rows)
    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(str(row.get("language", "")) if sheet_per_language else "QA", []).append(
            row
        )
    for title, group in groups.items():
        sheet = workbook.create_sheet(title)
        sheet.append(list(headers.values()))
        for row in group:
            sheet.append([row.get(field, "") for field in headers])
    path.parent.mkdir(parents=True, exist_ok=True)
    workbook.save(path)
    return path


def write_stub_baseline(path: Path, model: str = "stub/baseline") -> Path:
    """The baseline answers file of the stub runs: a "BASELINE answer to <id>" for every sample
    question except MISSING, which stays without one."""
    from inspect_culture.benchmarks.culturesynth.baseline_responses import (
        BaselineResponses,
        write_baseline_responses,
    )

    baseline = BaselineResponses(
        model=model,
        responses={qid: f"BASELINE answer to {qid}" for qid in QUESTIONS if qid != MISSING},
        generation_settings={"temperature": 0.0},
    )
    return write_baseline_responses(baseline, path)

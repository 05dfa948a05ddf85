"""CQ-Bench data: uscnlp-lime/CQ-Bench `datasets.zip` (pinned, blob-verified, never bundled), or the
extracted `datasets/` beside it in the mirror; the layout variants read: docs/cqbench.md."""

from __future__ import annotations

import json
import logging
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_culture.benchmarks.choices import check_choice
from inspect_culture.benchmarks.cqbench.parse import normalize
from inspect_culture.benchmarks.cqbench.source import CQBENCH
from inspect_culture.benchmarks.cqbench.spec import CATEGORIES, STORY_CATEGORIES
from inspect_culture.benchmarks.spec_types import LoadedDataset
from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError
from inspect_culture.datasets_hub.hashing import sha256_file
from inspect_culture.datasets_hub.paths import mirror_dir
from inspect_culture.datasets_hub.resolve import resolve_dataset_file
from inspect_culture.datasets_hub.validation import validate_record

log = logging.getLogger(__name__)

_SPELLINGS = {"political": ("political", "politic")}
_TASK_FILES = {
    "ad": "dataset_setting1_{category}.json",
    "vs": "dataset_setting2_{category}.json",
    "original": "dataset_{category}_original.json",
}
_ALIASES = {
    "gold label": ("gold label", "gold_label", "label", "gold"),
    "contradiction": ("contradiction", "contradictions"),
    "values": ("values", "ground_truth_values", "gold_values"),
}


@dataclass(frozen=True)
class _Archive:
    """Read JSON members by base name from the zip or the extracted folder."""

    root: Path
    origin: str

    def revision(self) -> str:
        """The zip is verified by its blob id wherever it comes from; a folder is read as is."""
        return "unverified" if self.root.is_dir() else CQBENCH.revision

    def names(self) -> list[str]:
        if self.root.is_dir():
            return [str(p.relative_to(self.root)) for p in self.root.rglob("*.json")]
        with zipfile.ZipFile(self.root) as archive:
            return [n for n in archive.namelist() if n.endswith(".json")]

    def read(self, member: str) -> Any:
        try:
            if self.root.is_dir():
                text = (self.root / member).read_text(encoding="utf-8")
            else:
                with zipfile.ZipFile(self.root) as archive:
                    text = archive.read(member).decode("utf-8")
            return json.loads(text)
        except (OSError, KeyError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DataValidationError(f"{self.root}:{member}: cannot read JSON ({exc})") from None


def _archive() -> _Archive:
    folder = root / "cqbench" / "datasets" if (root := mirror_dir()) is not None else None
    if folder is not None and folder.is_dir():
        return _Archive(folder, "mirror (extracted folder, unverified)")
    found = resolve_dataset_file(
        CQBENCH, also=f" (or the extracted folder {folder}/)" if folder else ""
    )
    if not zipfile.is_zipfile(found.path):
        raise DataValidationError(f"{found.path}: not a zip archive")
    return _Archive(found.path, found.origin)


def _find_member(archive: _Archive, task: str, category: str) -> str:
    by_base = {name.rsplit("/", 1)[-1]: name for name in archive.names()}
    candidates = [
        _TASK_FILES[task].format(category=spelling)
        for spelling in _SPELLINGS.get(category, (category,))
    ]
    if found := next((by_base[c] for c in candidates if c in by_base), None):
        return found
    raise DatasetUnavailableError(
        f"{archive.root}: no {' or '.join(candidates)} (CQ-Bench {task} data for '{category}'); "
        f"JSON files found: {', '.join(sorted(by_base)) or '(none)'}"
    )


def _get(item: dict[str, Any], field: str, where: str, default: Any = ...) -> Any:
    for alias in _ALIASES.get(field, (field,)):
        if alias in item:
            return item[alias]
    if default is not ...:
        return default
    raise DataValidationError(f"{where}, field '{field}': is missing (keys: {', '.join(item)})")


def _items(data: Any, where: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(index, where, item) of every item of a file."""
    if isinstance(data, dict):  # tolerate {"data": [...]} wrappers
        data = next((v for v in data.values() if isinstance(v, list)), None)
    if not isinstance(data, list):
        raise DataValidationError(f"{where}: expected a JSON list of items")
    for index, item in enumerate(data):
        at = f"{where}, item {index}"
        if not isinstance(item, dict):
            raise DataValidationError(f"{at}: expected an object")
        yield index, at, item


def _text(item: dict[str, Any], field: str, where: str) -> str:
    """A text field; a null, number or list is an error, never its str() ("None")."""
    value = _get(item, field, where)
    if not isinstance(value, str):
        raise DataValidationError(
            f"{where}, field '{field}': expected a string, got {json.dumps(value)[:60]}"
        )
    return value


def _strings(item: dict[str, Any], field: str, where: str, default: Any = ...) -> list[str]:
    value = _get(item, field, where, default)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataValidationError(f"{where}, field '{field}': expected a list of strings")
    return value


# Each builder yields (where, record) for every record of a file; `load_cqbench` validates them.
Records = Iterator[tuple[str, dict[str, Any]]]


def _ad_records(data: Any, category: str, where: str) -> Records:
    for index, at, item in _items(data, where):
        if not isinstance(questions := _get(item, "questions", at), list):
            raise DataValidationError(f"{at}, field 'questions': expected a list")
        for q_index, question in enumerate(questions):
            q_at = f"{at}, question {q_index}"
            if not isinstance(question, dict):
                raise DataValidationError(f"{q_at}: expected an object")
            record = {
                "id": f"{category}-{index}-{q_index}",
                "category": category,
                "story_index": index,
                "story": _text(item, "story", at),
                "name": str(question.get("name") or ""),
                "statement": _text(question, "value", q_at).strip(),
                "options": [o.strip() for o in _strings(question, "options", q_at)],
                # as in the file, padding included: the upstream prompt shows them this way
                "options_raw": list(_get(question, "options", q_at)),
                "gold": _text(question, "gold label", q_at).strip(),
            }
            yield q_at, record


def _vs_records(data: Any, category: str, where: str) -> Records:
    for index, at, item in _items(data, where):
        record = {
            "id": f"{category}-{index}",
            "category": category,
            "story": _text(item, "story", at),
            "options": [o.strip() for o in _strings(item, "options", at)],
            "options_raw": list(_get(item, "options", at)),
            "gold_values": [v.strip() for v in _strings(item, "values", at)],
        }
        yield at, record


def _original_records(data: Any, category: str, where: str) -> Records:
    for index, at, item in _items(data, where):
        values = [v.strip() for v in _strings(item, "values", at)]
        contradiction = [v.strip() for v in _strings(item, "contradiction", at, [])]
        record = {
            "id": f"{category}-{index}",
            "category": category,
            "story": _text(item, "story", at),
            "values": values,
            "contradiction": contradiction,
            # Contradictory values are not part of the gold set (upstream.md 4.6).
            "gold_values": [v for v in values if v not in set(contradiction)],
        }
        yield at, record


_BUILDERS: dict[str, Callable[[Any, str, str], Records]] = {
    "ad": _ad_records,
    "vs": _vs_records,
    "original": _original_records,
}


def load_cqbench(task: str, category: str) -> LoadedDataset:
    """task: ad, vs or original (the value-extraction stories)."""
    check_choice("task", task, _BUILDERS)
    allowed = CATEGORIES if task == "ad" else STORY_CATEGORIES
    if category not in allowed:
        raise ValueError(
            f"category={category!r} is not supported for {task}; allowed values: {', '.join(allowed)}"
        )
    archive = _archive()
    member = _find_member(archive, task, category)
    where = f"{archive.root}:{member}"
    records = []
    flagged: dict[str, list[str]] = {key: [] for key in _FLAGS}
    for at, record in _BUILDERS[task](archive.read(member), category, where):
        validate_record(__package__, f"cqbench_{task}", record, where=at)
        records.append(record)
        for key, (check, _, _) in _FLAGS.items() if task in _GOLD_FIELD else ():
            if found := check(task, record):
                place = at.removeprefix(f"{where}, ")
                flagged[key].append(f"{record['id']} ({place}): {', '.join(found)}")
    for key, items in flagged.items():
        if items:
            more = f"; and {len(items) - _LISTED} more" if len(items) > _LISTED else ""
            listed = "; ".join(items[:_LISTED]) + more
            values = {"where": where, "n": len(items), "total": len(records), "units": _UNITS[task]}
            log.warning(_FLAGS[key][1], {**values, "field": _GOLD_FIELD[task], "listed": listed})
    provenance = {
        "dataset": CQBENCH.repo,
        "revision": archive.revision(),
        **({"sha256": sha256_file(archive.root / member)} if archive.root.is_dir() else {}),
        "file": member,
        "origin": archive.origin,
        "path": str(archive.root),
        "rows": len(records),
        "license": CQBENCH.license,
    }
    if task in _GOLD_FIELD:
        provenance.update({key: len(items) for key, items in flagged.items()})
    return LoadedDataset(records, provenance)


# the upstream field holding the gold answer(s) that must be among the options
_GOLD_FIELD = {"ad": "gold label", "vs": "values"}
_LISTED = 10  # items named in the load warning; the count covers all
_UNITS = {"ad": "questions", "vs": "stories"}
VS_OPTIONS = 15  # the VS prompt says "Here are 15 options" (upstream.md 4.3)


def _compared(task: str, options: list[str]) -> list[str]:
    """Options as the scorers compare them: AD by the parser's `normalize`, VS exactly."""
    return [normalize(option) for option in options] if task == "ad" else list(options)


def gold_not_among_options(task: str, record: dict[str, Any]) -> list[str]:
    """The gold answers (quoted) no option matches: kept, as upstream does, and scored wrong."""
    golds = [record["gold"]] if task == "ad" else record["gold_values"]
    options = set(_compared(task, record["options"]))
    return [repr(gold) for gold in golds if _compared(task, [gold])[0] not in options]


def option_problems(task: str, record: dict[str, Any]) -> list[str]:
    """A VS story without its prompt's 15 options, or a repeated (ambiguous) option: kept."""
    problems = []
    if task == "vs" and len(record["options"]) != VS_OPTIONS:
        problems.append(f"{len(record['options'])} options, the prompt says {VS_OPTIONS}")
    seen = _compared(task, record["options"])
    repeated = sorted({option for option in seen if seen.count(option) > 1})
    return problems + [f"option {option!r} given twice or more" for option in repeated]


# provenance key -> (check, load warning, `culture-evals data verify` warning)
_FLAGS = {
    "gold_not_among_options": (
        gold_not_among_options,
        "%(where)s: %(n)d of %(total)d %(units)s have a gold answer (field '%(field)s') that is "
        "not among their options, so no answer can score it; kept (upstream scores them wrong "
        "too) and counted by `culture-evals data verify`: %(listed)s",
        "AD questions / VS stories have a gold answer that is not among their options: kept, "
        "but no answer can score them (see the load warnings for their ids)",
    ),
    "odd_options": (
        option_problems,
        "%(where)s: %(n)d of %(total)d %(units)s have options unlike the prompt's (field "
        "'options'); kept, as upstream keeps them, and counted by `culture-evals data verify`: "
        "%(listed)s",
        "AD questions / VS stories repeat an option, or (VS) do not have the "
        f"{VS_OPTIONS} options the prompt names: kept (see the load warnings for their ids)",
    ),
}


def load_ve_stories(category: str) -> tuple[LoadedDataset, int]:
    """The `original` stories with a gold set, and how many have none (all contradictory)."""
    loaded = load_cqbench("original", category)
    stories = [r for r in loaded.records if r["gold_values"]]
    return LoadedDataset(stories, loaded.provenance), len(loaded.records) - len(stories)


def load_cqbench_all() -> LoadedDataset:
    """Every file, for `culture-evals data verify`: counts the records of all tasks."""
    files = [
        load_cqbench(task, category).provenance  # a malformed file fails verify, loudly
        for task in _BUILDERS
        for category in (CATEGORIES if task == "ad" else STORY_CATEGORIES)
    ]
    archive = _archive()
    provenance: dict[str, Any] = {
        "dataset": CQBENCH.repo, "revision": archive.revision(), "origin": archive.origin,
        "path": str(archive.root), "files": len(files), "rows": sum(f["rows"] for f in files),
    }  # fmt: skip
    warnings: list[str] = []
    for key in _FLAGS:
        by_file = {f["file"].rsplit("/", 1)[-1]: f[key] for f in files if f.get(key)}
        count = sum(by_file.values())
        provenance[key] = count
        if count:
            listed = ", ".join(f"{name}: {n}" for name, n in by_file.items())
            provenance[key] = f"{count} ({listed})"
            warnings.append(f"{count} {_FLAGS[key][2]}")
    if warnings:
        provenance["warning"] = "; ".join(warnings)
    return LoadedDataset([], provenance)

"""The one reader (and writer) of lm-eval output folders, `results_<ts>.json` and its
`samples_<task>_<ts>.jsonl` (`finder` finds them); each error is one line (file, line, field) of
the caller's `error`."""

from __future__ import annotations

import ast
import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError
from inspect_culture.datasets_hub.hashing import sha256_file
from inspect_culture.judging.usage import TOKENS_KEY, run_tokens
from inspect_culture.run_files import finder

log = logging.getLogger(__name__)

Error = Callable[[str], Exception]


@dataclass(frozen=True)
class LmEvalRun:
    results_path: Path
    results: dict[str, Any]
    samples: dict[str, Path]  # task -> samples file

    @property
    def stamp(self) -> str:
        return self.results_path.stem.removeprefix(finder.RESULTS_PREFIX)


def samples_beside(results: Path, task: str) -> Path | None:
    """The task's samples file beside a results file; None when the run did not log samples."""
    found = finder.samples_path(results, task)
    return found if found.is_file() else None


def _json(path: Path, error: Error) -> Any:
    return results_json(
        path, lambda why: error(f"{path}: not a readable JSON results file ({why})")
    )


def results_json(path: Path, error: Error = DataValidationError) -> Any:
    """A results file's JSON; else `error` says why in words (the caller names the file)."""
    try:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except UnicodeDecodeError:
        raise error("not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise error(f"corrupt JSON (line {exc.lineno}: {exc.msg})") from None
    except OSError as exc:
        raise error(f"cannot be read ({exc.strerror or exc})") from None


def holds_results(data: Any) -> bool:
    """Whether a JSON file's data is lm-eval's results (its `results` and `config`)."""
    return isinstance(data, dict) and isinstance(data.get("results"), dict) and "config" in data


def find_runs(
    root: Path, skip: Path | None = None, error: Error = DataValidationError
) -> list[LmEvalRun]:
    """Every results file under `root` with its samples files, but under `skip` (an output dir)."""
    root = root.expanduser()
    if root.is_file():
        paths = [root]
    elif root.is_dir():
        paths = finder.run_files(root, [finder.LM_EVAL_RESULTS])
        own = skip.expanduser().resolve() if skip is not None else None
        if own is not None and own.is_relative_to(root.resolve()):  # not when -o holds root
            paths = [p for p in paths if not p.resolve().is_relative_to(own)]
    else:
        raise error(f"{root}: no such file or folder (expected an lm-eval --output_path)")
    if not paths:
        raise error(
            f"{root}: no results_<timestamp>.json below it; pass the --output_path of an lm_eval "
            "run made with --log_samples"
        )
    runs = []
    for path in paths:  # each a results file whose `configs` are objects, one per task
        results = _json(path, error)
        if not isinstance(results, dict) or not isinstance(results.get("configs"), dict):
            raise error(f"{path}: no 'configs' field: not an lm-eval results file")
        for task, config in results["configs"].items():
            if not isinstance(config, dict):
                raise error(
                    f"{path}: field 'configs.{task}' is {type(config).__name__}, not an object: "
                    "not an lm-eval results file"
                )
        samples = {task: samples_beside(path, task) for task in results["configs"]}
        runs.append(LmEvalRun(path, results, {t: p for t, p in samples.items() if p}))
    return runs


def results_of(samples: Path, error: Error = DataValidationError) -> dict[str, Any] | None:
    """A samples file's `results_<ts>.json` (`<name>_<ts>.json` for a .json output) or None."""
    stamp = finder.SAMPLES_NAME.match(samples.name)["stamp"]  # type: ignore[index]
    candidates = [samples.parent / f"{finder.RESULTS_PREFIX}{stamp}.json"]
    for candidate in candidates + sorted(samples.parent.glob(f"*_{stamp}.json")):
        if candidate.is_file() and isinstance(data := _json(candidate, error), dict):
            return data
    return None


def model_of(results: Mapping[str, Any] | None) -> str | None:
    """`model_name` of the results, else the model argument lm-eval names its folder after."""
    if not results:
        return None
    if results.get("model_name"):
        return str(results["model_name"])
    args = model_args(results.get("config") or {})
    keys = ("peft", "delta", "pretrained", "model", "path", "engine")
    return next((str(args[key]) for key in keys if args.get(key)), None)


def model_args(config: Mapping[str, Any]) -> Mapping[str, Any]:
    """`config.model_args` as a mapping: lm-eval saves it as given, a dict or a `k=v,k=v` string."""
    args = config.get("model_args")
    if isinstance(args, str):
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    return args if isinstance(args, Mapping) else {}


def task_config(results: Mapping[str, Any] | None, task: str) -> dict[str, Any]:
    config = ((results or {}).get("configs") or {}).get(task)
    return config if isinstance(config, dict) else {}


def write_run(
    folder: Path,
    stamp: str,
    results: Mapping[str, Any],
    samples: Mapping[str, Iterable[Mapping[str, Any]]],
) -> Path:
    """A run written as lm-eval lays it out: one samples file per task (`samples`: its lines, in
    order), then `results_<stamp>.json` in `folder`; returns the results file."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{finder.RESULTS_PREFIX}{stamp}.json"
    for task, lines in samples.items():
        text = "".join(json.dumps(line, ensure_ascii=False, default=str) + "\n" for line in lines)
        finder.samples_path(path, task).write_text(text, "utf-8")
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False, default=str), "utf-8")
    return path


# a doc's provenance columns in runs made before provenance moved to the task's metadata
OLD_DOC_PROVENANCE = {
    "dataset_revision": "revision", "dataset_sha256": "sha256", "dataset_rows": "rows",
}  # fmt: skip


def task_provenance(
    results: Mapping[str, Any] | None, task: str, doc: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """What the task recorded of its data (the loader's provenance: revision, sha256, rows, ...)
    and its prompt and parser versions, once per task in `configs.<task>.metadata.provenance`; for
    a run made before that, the same read from a doc's `dataset_*` columns (`doc`: its first)."""
    recorded = (task_config(results, task).get("metadata") or {}).get("provenance")
    if isinstance(recorded, Mapping) and recorded:
        return dict(recorded)
    if not isinstance(doc, Mapping):
        return {}
    return {new: doc[old] for old, new in OLD_DOC_PROVENANCE.items() if old in doc}


def newest_samples(
    files: Iterable[Path], tasks: re.Pattern[str], say: Callable[[str], None] | None = None
) -> list[Path]:
    """The newest samples file per folder and task fully matching `tasks`; `say` hears of others."""
    newest: dict[tuple[Path, str], tuple[str, Path]] = {}
    for file in files:
        match = finder.SAMPLES_NAME.match(file.name)
        if not match or not tasks.fullmatch(match["task"]):
            continue
        key, found = (file.parent, match["task"]), (match["stamp"], file)
        if key in newest:
            older, found = sorted((newest[key], found))
            if say:
                say(f"{older[1]}: ignored, {found[1]} is a newer run of {key[1]}")
        newest[key] = found
    return sorted((file for _, file in newest.values()), key=str)


@dataclass(frozen=True)
class DamagedLine:
    """A samples line that cannot be read, left out by a reader given a `skipped` list."""

    path: Path
    number: int
    why: str

    def __str__(self) -> str:
        return f"{self.path}, line {self.number}: {self.why}"


def _damaged(damaged: DamagedLine, skipped: list[DamagedLine] | None, error: Error) -> None:
    """A line that cannot be read: named in `skipped` (the caller reads on), else an error."""
    if skipped is None:
        raise error(str(damaged))
    skipped.append(damaged)


def sample_lines(
    path: Path, error: Error = DataValidationError, skipped: list[DamagedLine] | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, line) per line that is a JSON object: the one reading of a samples file's
    lines, streamed. With `skipped`, any other line (a run killed while writing leaves its last
    line cut short) is named there and left out, so a damaged line costs only itself; else an
    error."""
    try:
        with path.open("rb") as handle:
            for number, row in enumerate(handle, start=1):
                if row.strip():
                    yield from _sample_line(path, number, row, error, skipped)
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc})") from None


_CUT = ": the file's last line, cut short (was the run stopped while writing it?)"


def _sample_line(
    path: Path, number: int, row: bytes, error: Error, skipped: list[DamagedLine] | None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The line, or nothing when it is damaged (named in `skipped`, else an error)."""
    cut = "" if row.endswith(b"\n") else _CUT  # only the last line can lack its newline
    try:
        line = json.loads(row.decode("utf-8"))
    except UnicodeDecodeError:
        why = f"not UTF-8 text{cut}"
    except json.JSONDecodeError as exc:
        why = f"not JSON ({exc.msg}){cut}"
    else:
        if isinstance(line, dict):
            yield number, line
            return
        why = f"not a sample: a JSON {type(line).__name__}, not an object"
    _damaged(DamagedLine(path, number, why), skipped, error)


def samples(
    path: Path,
    error: Error = DataValidationError,
    by: str = "doc.id",
    skipped: list[DamagedLine] | None = None,
) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """(where: "<file>, line <n>", key, line) per line; `key`: the doc's `id` as text, or with
    by="doc_id" lm-eval's doc index (a whole number; the line must hold `resps`), each once.
    `skipped`: as `sample_lines` (only lines that are no JSON object are skipped)."""
    seen: set[Any] = set()
    for number, line in sample_lines(path, error, skipped):
        where, doc = f"{path}, line {number}", line.get("doc")
        if by == "doc_id":
            for name in ("doc_id", "doc", "resps"):
                if name not in line:
                    raise error(f"{where}: field {name!r} is missing")
            key = line["doc_id"]
            if isinstance(key, bool) or not isinstance(key, int):
                raise error(
                    f"{where}: field 'doc_id' is {key!r}, not a whole number (lm-eval writes "
                    "each doc's index)"
                )
            if not isinstance(doc, dict):
                raise error(f"{where}: field 'doc' is not an object")
        elif not isinstance(doc, dict) or "id" not in doc:
            raise error(f"{where}: field 'doc.id' is missing")
        else:
            key = str(doc["id"])
        if key in seen:
            label = "doc_id" if by == "doc_id" else "doc id"
            raise error(f"{where}: {label} {key!r} appears twice (several repeats or runs merged?)")
        seen.add(key)
        yield where, key, line


def outcome_record(line: Mapping[str, Any], field: str) -> dict[str, Any] | None:
    """The outcome record a task's `process_results` wrote under `field` (an object, or its
    Python text as some lm-eval versions log it), or None when the field holds none. One metric
    field carries the record and the others hold that field's name (`generic.RecordRef`); runs
    made before that repeat the record under every metric field, and read the same."""
    value = line.get(field)
    metrics = line.get("metrics")
    if isinstance(value, str) and isinstance(metrics, list) and value in metrics:
        value = line.get(value)  # the carrier's name: its record
    try:
        record = ast.literal_eval(value) if isinstance(value, str) else value
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return dict(record) if isinstance(record, Mapping) else None


def outcome_records(
    path: Path,
    field: str,
    error: Error = DataValidationError,
    skipped: list[DamagedLine] | None = None,
    tokens: list[Mapping[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Every line's outcome record (see `outcome_record`), in file order. With `skipped`, a line
    that is no JSON object or whose field holds unreadable text is named there and skipped, else
    an error; a line without the field's text (e.g. `--predict_only`) has no record to read.
    `tokens`, when given, gets each line's token record (`judge_tokens_of`) from the same parse
    (the report needs both; a file of 60 MB is parsed once); a line whose judge reply cannot be
    read so leaves `tokens` holding only `TOKENS_UNREAD`: `judge_tokens` reads them itself."""
    records = []
    for number, line in sample_lines(path, error, skipped):
        record = outcome_record(line, field)
        if tokens is not None:
            _collect_tokens(line, record, tokens)
        if record is not None:
            records.append(record)
        elif isinstance(line.get(field), str):
            why = f"field {field!r} holds no outcome record"
            _damaged(DamagedLine(path, number, why), skipped, error)
    return records


TOKENS_UNREAD: Mapping[str, Any] = {}  # `outcome_records`' tokens: not all could be read there


def _collect_tokens(
    line: Mapping[str, Any], record: dict[str, Any] | None, tokens: list[Mapping[str, Any]]
) -> None:
    """The line's token record onto `tokens`; after a line that fails, only `TOKENS_UNREAD`."""
    if tokens and tokens[-1] is TOKENS_UNREAD:
        return
    try:
        found = judge_tokens_of(line, record=record)
    except Exception:  # noqa: BLE001 (`judge_tokens` reads the file again and says why)
        tokens[:] = [TOKENS_UNREAD]
        return
    if found is not None:
        tokens.append(found)


def judge_reply_of(line: Mapping[str, Any]) -> dict[str, Any]:
    """The judge's record a judged task's filter wrote as the line's filtered response, or {}."""
    try:
        text = (line.get("filtered_resps") or [""])[0] or "{}"
        if isinstance(text, str) and not text.lstrip().startswith("{"):
            return {}  # an answer, not a record: no JSON object can start otherwise
        reply = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return {}
    return reply if isinstance(reply, dict) else {}


def judge_tokens_of(
    line: Mapping[str, Any], field: str | None = None, record: Mapping[str, Any] | None = None
) -> Mapping[str, Any] | None:
    """A samples line's token record by judge (`judge_tokens`): in the judge's record of the
    filtered response, else in the outcome record under `field` (or `record`: that record, when
    the caller read it already); None when it has none."""
    found = judge_reply_of(line).get(TOKENS_KEY)
    if not isinstance(found, Mapping):
        if record is None and field is not None:
            record = outcome_record(line, field)
        found = (record or {}).get(TOKENS_KEY)
    return found if isinstance(found, Mapping) else None


def judge_tokens(
    path: Path, field: str | None = None, error: Error = DataValidationError
) -> dict[str, dict[str, int]] | None:
    """The run's tokens by judge (`judging/usage.run_tokens`) from each line's token record,
    as an Inspect log's are read (`inspect_outputs.judge_tokens`); None when no line has one (a
    run made before judges' tokens were recorded). A damaged line costs only itself."""
    found = (judge_tokens_of(line, field) for _, line in sample_lines(path, error, skipped=[]))
    records = [record for record in found if record is not None]
    return run_tokens(records) if records else None


def answer_text(line: Mapping[str, Any]) -> str | None:
    """The model's raw answer, `resps[0][0]` (the filters of an answers task keep it as is)."""
    try:
        text = line.get("resps")[0][0]  # type: ignore[index]
    except (TypeError, IndexError, KeyError):
        return None
    return text if isinstance(text, str) else None


# --- CQ-Bench VE step 2: an earlier run's responses as input ------------------------------------


@dataclass(frozen=True)
class RunOutputs:
    responses: dict[str, str]
    docs: dict[str, dict[str, Any]]
    path: Path
    sha256: str


def lm_eval_samples_file(path: str | Path, task: str) -> Path:
    """`path` itself if it is a file, else the newest `samples_<task>_*.jsonl` below it."""
    path = Path(path).expanduser()
    if path.is_file():
        return path
    if not path.is_dir():
        raise DatasetUnavailableError(
            f"{path} does not exist (expected an lm-eval samples file or an --output_path folder)"
        )
    found = finder.run_files(path, [finder.LM_EVAL_SAMPLES])
    candidates = sorted(
        (p for p in found if finder.SAMPLES_NAME.match(p.name)["task"] == task),  # type: ignore[index]
        key=lambda p: p.stat().st_mtime,
    )
    if not candidates:
        raise DatasetUnavailableError(
            f"no samples_{task}_*.jsonl under {path}: run `lm_eval --tasks {task} "
            f"--output_path {path} --log_samples` first"
        )
    if len(candidates) > 1:
        found = (len(candidates), task, path, candidates[-1])
        log.warning("%d samples files for %s under %s; using the newest, %s", *found)
    return candidates[-1]


def read_lm_eval_samples(path: Path) -> RunOutputs:
    """Responses of one lm-eval samples file, keyed by doc id."""
    responses: dict[str, str] = {}
    docs: dict[str, dict[str, Any]] = {}
    for where, key, line in samples(path):
        filtered = line.get("filtered_resps")
        first = filtered[0] if isinstance(filtered, list) and filtered else None
        while isinstance(first, list) and first:  # unfiltered runs keep one list per request
            first = first[0]
        if not isinstance(first, str):
            raise DataValidationError(f"{where}: field 'filtered_resps' holds no text response")
        responses[key], docs[key] = first, line["doc"]
    if not responses:
        raise DataValidationError(f"{path}: no samples in the file")
    return RunOutputs(responses, docs, path, sha256_file(path))


def save_lm_eval_outputs(tracker: Any, results: dict[str, Any]) -> None:
    """Write the files as `lm_eval --log_samples` does, via the tracker given to simple_evaluate."""
    import copy

    aggregated = copy.deepcopy({k: v for k, v in results.items() if k != "samples"})
    tracker.save_results_aggregated(results=aggregated, samples=results["samples"])
    for task_name in results["configs"]:
        tracker.save_results_samples(task_name, copy.deepcopy(results["samples"][task_name]))

"""The one reader of Inspect logs, through `inspect_ai.log`'s public API: a log (or its header),
and each sample's score metadata for the report's outcome records.

The faster route to those: Inspect's `read_eval_log_sample_summaries` validates every summary and
thins its strings again: 5.2 s for the 19,360 of a full CultureSynth-7 log. What Inspect wrote is
already thinned, so reading `summaries.json` straight from the zip gives the same values, in
1.0 s. Anything other than that layout (a running log's journal, a `.json` log, a member we
cannot decompress) returns None, and Inspect's reader is used: only a faster route to the same data.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_culture.judging.usage import TOKENS_KEY, run_tokens
from inspect_culture.run_files import UnreadableLog, message_line

SUMMARIES_MEMBER = "summaries.json"
# What Inspect puts in a summary in place of a metadata value over 1 kB
THINNED = "Key removed from summary (> 1k)"
# Sample fields the score metadata never needs, when a sample must be read in full
_EXCLUDE = {"messages", "events", "store", "attachments"}


def read_log(path: Path, header_only: bool = False) -> Any:
    from inspect_ai.log import read_eval_log

    try:
        return read_eval_log(str(path), header_only=header_only)
    except Exception as exc:  # noqa: BLE001 (any reader failure means: not a usable log)
        reason = f"{type(exc).__name__}: {message_line(str(exc))}"
        raise UnreadableLog(f"not a readable Inspect log ({reason})") from None


def raw_summaries(path: Path) -> list[dict[str, Any]] | None:
    """Each (id, epoch)'s last summary, as Inspect keeps them; None where only Inspect can read."""
    import inspect_ai.log  # noqa: F401 (teaches `zipfile` the zstd members Inspect writes)

    if path.suffix != ".eval":
        return None
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read(SUMMARIES_MEMBER))
    except Exception:  # noqa: BLE001 (a missing or undecodable member: Inspect's reader decides)
        return None
    if not isinstance(data, list) or not all(isinstance(s, dict) and "id" in s for s in data):
        return None
    latest = {(str(s["id"]), s.get("epoch")): s for s in data}  # a re-run sample's row wins
    return list(latest.values())


def summary_score_metadata(path: Path) -> Iterator[tuple[Any, int, list[Any]]]:
    """(sample id, epoch, each score's metadata) per sample summary, by the faster route where
    it applies. A value Inspect thinned out of a summary is in the sample: `score_metadata`."""
    from inspect_ai.log import read_eval_log_sample_summaries

    if (raw := raw_summaries(path)) is not None:
        yield from ((s["id"], s.get("epoch", 1), _score_metadata(s)) for s in raw)
        return
    for s in read_eval_log_sample_summaries(str(path)):
        yield s.id, s.epoch, [v.metadata for v in (s.scores or {}).values()]


def _score_metadata(summary: Mapping[str, Any]) -> list[Any]:
    scores = summary.get("scores")
    if not isinstance(scores, Mapping):
        return []  # no metadata here: the sample is read in full
    return [s.get("metadata") for s in scores.values() if isinstance(s, Mapping)]


def score_metadata(path: Path, sample_id: Any, epoch: int) -> list[Any]:
    """Each score's metadata of one sample, read in full (but its messages and events)."""
    from inspect_ai.log import read_eval_log_sample

    sample = read_eval_log_sample(str(path), id=sample_id, epoch=epoch, exclude_fields=_EXCLUDE)
    return [s.metadata for s in (sample.scores or {}).values()]


def token_records(rows: Iterable[tuple[Any, int, list[Any]]]) -> list[tuple[Any, int, Any]]:
    """(sample id, epoch, token record) of each of `rows` (`summary_score_metadata`) that has
    one, for `judge_tokens`: a reader that already holds the summaries passes these on instead
    of parsing them a second time."""
    return [(i, epoch, found) for i, epoch, m in rows if (found := _tokens_record(m)) is not None]


def judge_tokens(
    path: Path, found: Sequence[tuple[Any, int, Any]] | None = None
) -> dict[str, dict[str, int]] | None:
    """The run's tokens by judge (`judging/usage.run_tokens`) from each sample's token record
    in its score metadata (`judge_tokens`, one per sample and epoch); None when no sample has
    one (a run made before judges' tokens were recorded, or one nothing judged). `found`: the
    log's `token_records`, when its summaries were read already."""
    if found is None:
        found = token_records(list(summary_score_metadata(path)))
    records = []
    for sample_id, epoch, record in found:
        if record == THINNED:  # a jury's many judges: over 1 kB, read in full
            record = _tokens_record(score_metadata(path, sample_id, epoch))
        if isinstance(record, Mapping):
            records.append(record)
    return run_tokens(records) if records else None


def _tokens_record(metadata: list[Any]) -> Any:
    """The first score's token record of a sample (one judgment: never counted twice)."""
    found = (m.get(TOKENS_KEY) for m in metadata if isinstance(m, Mapping))
    return next((record for record in found if record is not None), None)

"""A finished `.eval` log's sample summaries as plain JSON, for the report's outcome records.

Inspect's `read_eval_log_sample_summaries` validates every summary and thins its strings again:
5.2 s for the 19,360 of a full CultureSynth-7 log. What Inspect wrote is already thinned, so
reading `summaries.json` straight from the zip gives the same values, in 1.0 s. Anything other
than that layout (a running log's journal, a `.json` log, a member we cannot decompress) returns
None, and the caller uses Inspect's reader: this is only a faster route to the same data.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

SUMMARIES_MEMBER = "summaries.json"


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

"""Parse a data file once per process: lm-eval builds NormAd's four context tasks (and Inspect's
`eval()` its tasks) from one file, and validating 2,633 rows four times costs the user seconds
before the first request. Keyed by the path and the content's sha256 (which provenance needs
anyway, and which costs milliseconds), so a changed file is always parsed again."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

_Parsed = TypeVar("_Parsed")


def once_per_content(parse: Callable[[Path], _Parsed]) -> Callable[[Path, str], _Parsed]:
    """`parse(path)` memoized on (path, sha256); each caller gets its own copy to change."""
    memo: dict[tuple[str, str], _Parsed] = {}

    @functools.wraps(parse)
    def parsed(path: Path, sha256: str) -> _Parsed:
        key = (str(path), sha256)
        if key not in memo:
            memo[key] = parse(path)
        return copy.deepcopy(memo[key])

    return parsed

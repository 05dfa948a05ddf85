"""CSV reading that treats a NUL byte as text on every Python, so that a loader can refuse it
naming the row and field: Python 3.10's csv module stops at it ("line contains NUL"), 3.11+
reads it. Header names are stripped, as every loader looks its columns up by the bare name."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any

# a lone surrogate: strict UTF-8 decoding never yields one, so it stands for NUL inside csv
_STANDIN = "\udc00"


def _restore(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace(_STANDIN, "\x00")
    if isinstance(value, list):  # the cells beyond the header (DictReader's restkey)
        return [_restore(item) for item in value]
    return value


class NulSafeDictReader(csv.DictReader):
    """`csv.DictReader` whose header names (stripped) and cells keep their NUL bytes."""

    def __init__(self, handle: Iterable[str]) -> None:
        super().__init__(line.replace("\x00", _STANDIN) for line in handle)

    @property  # type: ignore[override]
    def fieldnames(self) -> list[str] | None:
        names = csv.DictReader.fieldnames.fget(self)  # type: ignore[attr-defined]
        return None if names is None else [_restore(name).strip() for name in names]

    def __next__(self) -> dict[str, Any]:
        row = super().__next__()
        return {key: _restore(value) for key, value in row.items()}

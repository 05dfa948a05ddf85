"""The toy's parser: the answer's first word, if it is a known greeting; otherwise unparsed."""

import re
from collections.abc import Mapping
from typing import Any

from tests.extend.toy_bench.spec import GREETINGS

_FIRST_WORD = re.compile(r"[a-z]+")


def score_answer(record: Mapping[str, Any], completion: str) -> dict[str, Any]:
    """The outcome record of one answer (its sample id lets the metrics count epochs once)."""
    first = _FIRST_WORD.search((completion or "").lower())
    pred = first.group(0) if first and first.group(0) in GREETINGS else None
    return {
        "sample_id": record["id"],
        "region": record["region"],
        "pred": pred,
        "correct": float(pred == record["answer"]),
    }

"""The toy's records: a JSONL file next to this module, with its provenance."""

import json
from pathlib import Path

from inspect_culture.benchmarks.spec_types import LoadedDataset
from inspect_culture.datasets_hub.hashing import sha256_file

DATA = Path(__file__).with_name("greetings.jsonl")


def load_toy() -> LoadedDataset:
    lines = DATA.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    provenance = {"source": "toy", "sha256": sha256_file(DATA), "rows": len(records)}
    return LoadedDataset(records, provenance)

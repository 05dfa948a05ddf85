"""CultureSynth-7's baseline answers file (`culture-evals baseline export`), for both harnesses."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError
from inspect_culture.datasets_hub.hashing import sha256_bytes
from inspect_culture.datasets_hub.validation import validate_record

log = logging.getLogger(__name__)

FORMAT = "inspect-culture/baseline-responses"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class BaselineResponses:
    model: str
    responses: dict[str, str]
    generation_settings: dict[str, Any] = field(default_factory=dict)
    sources: list[dict[str, Any]] = field(default_factory=list)
    benchmark: str = "culturesynth"
    # the questions' file's sha256: the data is unpinned, so new questions must not get old answers
    dataset_sha256: str | None = None
    path: Path | None = None
    sha256: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "benchmark": self.benchmark,
            "model": self.model,
            "dataset_sha256": self.dataset_sha256,
            "generation_settings": self.generation_settings,
            "sources": self.sources,
            "responses": dict(sorted(self.responses.items())),
        }

    def provenance(self) -> dict[str, Any]:
        """What a result records about its baseline (not the answers themselves)."""
        return {
            "baseline_model": self.model,
            "baseline_generation_settings": self.generation_settings,
            "baseline_file": str(self.path) if self.path else None,
            "baseline_sha256": self.sha256,
            "baseline_answers": len(self.responses),
            "baseline_dataset_sha256": self.dataset_sha256,
        }

    def check_questions(self, ids: list[str], dataset_sha256: str | None) -> list[str]:
        """The ids this file has no answer for, logged with a dataset mismatch (never silent)."""
        if warning := self.dataset_warning(dataset_sha256):
            log.warning("culturesynth: %s", warning)
        if missing := [i for i in ids if i not in self.responses]:
            log.warning(
                "culturesynth: %d of %d questions have no answer in the baseline file %s; they "
                "are reported as n_missing_baseline, not judged (first: %s)",
                len(missing), len(ids), self.path, ", ".join(missing[:5]),
            )  # fmt: skip
        return missing

    def dataset_warning(self, dataset_sha256: str | None) -> str | None:
        """Why the answers may not match these questions, or None."""
        if not self.dataset_sha256 or not dataset_sha256 or self.dataset_sha256 == dataset_sha256:
            return None
        return (
            f"the baseline answers in {self.path} were made on a dataset file with sha256 "
            f"{self.dataset_sha256}, and this run's file has {dataset_sha256}: questions may have "
            "changed; regenerate the baseline answers on this file"
        )


def write_baseline_responses(baseline: BaselineResponses, path: str | Path) -> Path:
    """Write atomically (a crash never leaves a half-written baseline behind)."""
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.write_text(
        json.dumps(baseline.to_json(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    partial.replace(target)
    return target


def read_baseline_responses(path: str | Path) -> BaselineResponses:
    """Read and validate a baseline file; errors name the file and the field."""
    source = Path(path).expanduser()
    if not source.is_file():
        raise DatasetUnavailableError(
            f"baseline answers file {source} does not exist. Make one with `culture-evals "
            "baseline export <Inspect log or lm-eval output of the baseline model> -o FILE`."
        )
    raw = source.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise DataValidationError(f"{source}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise DataValidationError(f"{source}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise DataValidationError(f"{source}: expected a JSON object (format {FORMAT})")
    # model answers are whatever the model wrote, NUL bytes included: not a corrupt file
    validate_record(__package__, "baseline_responses", data, where=str(source), refuse_nul=False)
    return BaselineResponses(
        model=data["model"],
        responses=dict(data["responses"]),
        generation_settings=data.get("generation_settings") or {},
        sources=data.get("sources") or [],
        benchmark=data["benchmark"],
        dataset_sha256=data.get("dataset_sha256"),
        path=source,
        sha256=sha256_bytes(raw),
    )

"""Where each upstream file comes from: repository, pinned revision, license, mirror path."""

from __future__ import annotations

import os
from dataclasses import dataclass

HF_ENDPOINT_ENV = "INSPECT_CULTURE_HF_ENDPOINT"


@dataclass(frozen=True)
class HFFileSource:
    """One file of a Hugging Face dataset repository at a pinned revision."""

    benchmark: str  # also the mirror sub-folder
    repo_id: str
    filename: str
    revision: str
    license: str
    description: str

    @property
    def mirror_relpath(self) -> str:
        """Path under `$INSPECT_CULTURE_DATA_DIR`; upstream files keep their upstream names."""
        return f"{self.benchmark}/{self.filename}"

    def url(self) -> str:
        endpoint = (
            os.environ.get(HF_ENDPOINT_ENV)
            or os.environ.get("HF_ENDPOINT")
            or "https://huggingface.co"
        ).rstrip("/")
        return f"{endpoint}/datasets/{self.repo_id}/resolve/{self.revision}/{self.filename}"

    def describe(self) -> str:
        return (
            f"Hugging Face dataset {self.repo_id}, file {self.filename}, revision {self.revision}"
        )


NORMAD = HFFileSource(
    benchmark="normad",
    repo_id="akhilayerukola/NormAd",
    filename="normad_etiquette_final_data.csv",
    # The revision HELM pins; see docs/normad.md.
    revision="311049f5610e932792672e4e13e7df62b6290336",
    license="CC BY 4.0",
    description="NormAd-ETI: 2,633 etiquette stories from 75 countries (split `train`)",
)

SOURCES: dict[str, HFFileSource] = {NORMAD.benchmark: NORMAD}

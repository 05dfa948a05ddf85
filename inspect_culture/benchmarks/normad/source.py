"""Where normad's upstream data comes from: repository, pinned revision, license."""

from inspect_culture.datasets_hub.sources import HFFileSource

NORMAD = HFFileSource(
    benchmark="normad",
    repo_id="akhilayerukola/NormAd",
    filename="normad_etiquette_final_data.csv",
    # The revision HELM pins; see docs/normad.md.
    revision="311049f5610e932792672e4e13e7df62b6290336",
    license="CC BY 4.0",
    description="NormAd-ETI: 2,633 etiquette stories from 75 countries (split `train`)",
)

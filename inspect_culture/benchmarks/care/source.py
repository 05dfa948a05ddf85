"""Where care's upstream data comes from: repository, pinned revision, license."""

from inspect_culture.datasets_hub.sources import PackagedSource

CARE = PackagedSource(
    benchmark="care",
    repo="Guochry/CARE",
    upstream_dir="data",
    revision="d614cfe2407ae3c4da8d4f8a58bd50f16bb0e097",
    sha256={
        "Chinese-test.json": "b0553d8771be582d7d64d36f300280f62a07c5f0f279c2af003a2302cf65a535",
        "Arabic-test.json": "4c19b656ffa8d4194ce4164290ceedbe7d0fc94a9203d88afffec077778b8dc3",
        "Japanese-test.json": "c0ddc6f6f82d04870c1e9ada1a8784201093ee548b311ae3ad2f9272aefe1512",
    },
    license="MIT",
    package=__package__,
    description="CARE: 150 culture questions each in Chinese, Arabic and Japanese (test sets)",
)

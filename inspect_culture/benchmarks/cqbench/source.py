"""Where cqbench's upstream data comes from: repository, pinned revision, license."""

from inspect_culture.datasets_hub.sources import GitHubFileSource

CQBENCH = GitHubFileSource(
    benchmark="cqbench",
    repo="uscnlp-lime/CQ-Bench",
    path="datasets.zip",
    revision="e9337e5292c8c1020c913257139983f408828cbc",
    blob_id="4d1b148ef8487dbed7c84db465ebd6c75f7d105c",
    license="none stated upstream (not redistributed)",
    description="CQ-Bench: stories with implicit values (AD, VS, VE), all categories",
)

"""Where culturesynth's upstream data comes from: repository, pinned revision, license."""

from inspect_culture.datasets_hub.sources import GitHubFileSource

CULTURESYNTH = GitHubFileSource(
    benchmark="culturesynth",
    repo="Eyr3/CultureSynth",
    path="QA_7lang_annotated.xlsx",
    # The repository could not be inspected when this was written: no commit or blob id to pin.
    revision="main",
    license="unknown (none could be read upstream; not redistributed)",
    description="CultureSynth-7: manually verified cultural QA pairs in 7 languages, 12 topics",
    # the mirror may hold the questions as JSONL or CSV instead (docs/culturesynth.md)
    also_mirrored_as=("culturesynth.jsonl", "culturesynth.csv"),
)

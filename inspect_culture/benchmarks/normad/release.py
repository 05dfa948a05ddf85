"""Which NormAd-ETI release a file is, told by its content (docs/normad.md, "Releases").

The 2024 release (2,633 rows, the paper's) and the hub's later copy (2,615 rows, after upstream's
`src/v2_fix_neutral/`) share IDs, stories, values, rules of thumb and gold labels; their neutral
rows differ in Country, Background and Explanation, which the COUNTRY and VALUE+COUNTRY prompts
show. Row 2259 is the sentinel: it is found by its story and rule of thumb (the same in both),
and its Country, Background and Explanation say which release it comes from. The row count
decides a file without that row; a file that neither signal decides is `unknown`, never refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

UNKNOWN = "unknown"
SENTINEL_ID = "2259"
# what row 2259 has in both releases: how it is found whatever its ID in a re-exported file
SENTINEL_STORY = (
    "Emily was invited to her friend's house for dinner. Upon arrival, she immediately walked "
    "into the living room with her shoes on and sat on the couch. Is what Emily did socially "
    "acceptable?"
)
SENTINEL_RULE = "It is okay to arrive 30 minutes after the designated time for social events."


@dataclass(frozen=True)
class Release:
    """A published NormAd file: its row count and what its row 2259 says."""

    name: str
    rows: int
    what: str  # in words, for docs and messages
    country: str  # row 2259's Country
    background_marker: str  # a phrase only that release's row 2259 Background has
    explanation_marker: str  # ... and its Explanation
    explanation_starts: bool = False  # the marker opens the Explanation (else: anywhere in it)

    def sentinel_matches(self, record: dict[str, Any]) -> bool:
        explanation = record["explanation"].strip()
        return (
            record["country"] == self.country
            and self.background_marker in record["background"]
            and (
                explanation.startswith(self.explanation_marker)
                if self.explanation_starts
                else self.explanation_marker in explanation
            )
        )


RELEASE_2024 = Release(
    name="2024",
    rows=2633,
    what="the 2024 release (2,633 rows; the paper's)",
    country="afghanistan",
    background_marker="Afghan",
    explanation_marker="not acceptable",
)
RELEASE_V2 = Release(
    name="v2-neutral-fix",
    rows=2615,
    what="the hub's later copy (2,615 rows; neutral rows fixed upstream, src/v2_fix_neutral/)",
    country="papua_new_guinea",
    background_marker="house cry",
    explanation_marker="The answer is neutral because",
    explanation_starts=True,
)
RELEASES: tuple[Release, ...] = (RELEASE_2024, RELEASE_V2)
PAPER_RELEASE = RELEASE_2024.name  # the release the paper's tables used


@dataclass(frozen=True)
class ReleaseMatch:
    name: str  # a release's name, or UNKNOWN
    evidence: str  # why, in one sentence: what the sentinel and the row count said


def identify_release(records: Sequence[dict[str, Any]]) -> ReleaseMatch:
    """The release the loaded records are (or are a part of), from the sentinel and the count."""
    count = len(records)
    by_count = next((r for r in RELEASES if r.rows == count), None)
    rows = f"{count:,} rows" + (f" as in {by_count.name}" if by_count else "")
    sentinels = [
        r for r in records if (r["story"].strip(), r["rule_of_thumb"].strip()) == _SENTINEL_KEY
    ]
    if not sentinels:
        if by_count is not None:
            return ReleaseMatch(by_count.name, f"row {SENTINEL_ID} not found; {rows}")
        counts = ", ".join(f"{r.rows:,}" for r in RELEASES)
        return ReleaseMatch(
            UNKNOWN, f"row {SENTINEL_ID} not found; {rows}, neither release's count ({counts})"
        )
    found = {_sentinel_release(r) for r in sentinels}
    where = f"row {SENTINEL_ID} (ID {', '.join(r['id'] for r in sentinels)})"
    if len(found) != 1 or (release := found.pop()) is None:
        countries = ", ".join(sorted({repr(r["country"]) for r in sentinels}))
        return ReleaseMatch(
            UNKNOWN,
            f"{where}: its Country ({countries}), Background and Explanation match neither "
            f"release's; {rows}",
        )
    if by_count is not None and by_count is not release:
        return ReleaseMatch(UNKNOWN, f"{where} as in {release.name}, but {rows}")
    part = "" if by_count is release else f", a part of its {release.rows:,}"
    return ReleaseMatch(release.name, f"{where} as in {release.name}; {count:,} rows{part}")


_SENTINEL_KEY = (SENTINEL_STORY, SENTINEL_RULE)


def _sentinel_release(record: dict[str, Any]) -> Release | None:
    return next((r for r in RELEASES if r.sentinel_matches(record)), None)

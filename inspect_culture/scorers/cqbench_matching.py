"""CQ-Bench answer matching: free text to one of a question's options.

Upstream maps any output to the option with the longest common substring, so "agree" vs
"disagree" is decided by option order and every answer maps to something. Here (docs/cqbench.md):
1. normalized exact match; 2. options named as whole phrases, ignoring an option found only
inside another found option ("agree" inside "neither agree nor disagree"), if exactly one is
left; 3. the closest option by difflib ratio >= FUZZY_THRESHOLD, if unique (also when step 2
found several: "neither agree nor disagree" names "agree" and "disagree" but is closest to the
option "neither agree or disagree"), after trying the same content words in any order
("neither disagree or agree" = "neither agree/disagree"); else unparsed.
No step depends on the order of the options.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

FUZZY_THRESHOLD = 0.85
MATCHER_VERSION = "cqbench-match-2"

_PUNCTUATION = " \t\n\r.,;:!?*\"'`“”‘’()[]{}"


def normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip(_PUNCTUATION)


def match_option(answer: str, options: Sequence[str]) -> tuple[str | None, str]:
    """(the matched option as given, rule) or (None, "unparsed")."""
    said = normalize(answer)
    if not said:
        return None, "unparsed"
    normalized = {option: normalize(option) for option in options}
    exact = [o for o, n in normalized.items() if n == said]
    if len(exact) == 1:
        return exact[0], "exact"
    spans: dict[str, list[tuple[int, int]]] = {}
    for option, norm in normalized.items():
        if not norm:
            continue
        pattern = r"(?<![\w/])" + re.escape(norm) + r"(?![\w/])"
        found = [m.span() for m in re.finditer(pattern, said)]
        if found:
            spans[option] = found
    standalone = [
        option
        for option, found in spans.items()
        if any(
            not any(
                other != option and a <= s and e <= b and (b - a) > (e - s)
                for other, others in spans.items()
                for a, b in others
            )
            for s, e in found
        )
    ]
    if len(standalone) == 1:
        return standalone[0], "phrase"
    # none named, or several (ambiguous unless the whole answer is one option in other words)
    same_words = [o for o, n in normalized.items() if n and _words(n) == _words(said)]
    if len(same_words) == 1:
        return same_words[0], "words"
    closest = closest_unique(said, normalized, FUZZY_THRESHOLD)
    return (closest, "fuzzy") if closest is not None else (None, "unparsed")


_CONNECTIVES = frozenset({"or", "nor", "and"})


def _words(text: str) -> frozenset[str]:
    """Content words, so "neither disagree or agree" equals "neither agree/disagree"."""
    return frozenset(re.findall(r"\w+", text)) - _CONNECTIVES


def closest_unique(said: str, candidates: dict[str, str], threshold: float) -> str | None:
    """The key whose normalized value is most similar to `said` (difflib ratio), if the best
    ratio reaches `threshold` and no other candidate ties with it."""
    ratios = {
        key: difflib.SequenceMatcher(None, said, norm).ratio() for key, norm in candidates.items()
    }
    best = max(ratios.values(), default=0.0)
    winners = [key for key, ratio in ratios.items() if ratio == best]
    return winners[0] if best >= threshold and len(winners) == 1 else None


AD_MARKERS: tuple[str, ...] = ("[Answer]", "**Answer**", "</think>")


def extract_ad_answer(text: str | None) -> str:
    """The first non-empty line after the first of `[Answer]`, `**Answer**`, `</think>` present
    (upstream's order; a justification often follows the answer and may name other options),
    else the whole output."""
    text = text or ""
    for marker in AD_MARKERS:
        if marker in text:
            after = text.split(marker, 1)[1].strip().lstrip(":").strip()
            return after.splitlines()[0].strip() if after else ""
    return text.strip().lstrip(":").strip()


# upstream `options_dict` (evaluation.py): near-synonym pairs accepted by the "Merged" row
MERGED_PAIRS: tuple[tuple[str, str], ...] = (
    ("not frequently", "not at all frequently"),
    ("not at all often", "not often"),
    ("very frequently", "quite frequently"),
    ("definitely should have the right", "probably should have the right"),
    ("definitely should not have the right", "probably should not have the right"),
)
_PARTNER = {a: b for a, b in MERGED_PAIRS} | {b: a for a, b in MERGED_PAIRS}


def effective_prediction(pred: str | None, gold: str, merged: bool) -> str | None:
    """The normalized label the metrics see; with `merged`, the gold's partner counts as gold."""
    if pred is None:
        return None
    said, truth = normalize(pred), normalize(gold)
    if merged and _PARTNER.get(truth) == said:
        return truth
    return said

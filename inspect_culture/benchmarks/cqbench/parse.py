"""CQ-Bench parsing of AD answers, VS selections, VE values and VE judge replies (both harnesses);
why AD matching differs from upstream's longest common substring: docs/cqbench.md, "Scoring"."""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Mapping, Sequence
from contextlib import suppress
from typing import Any

from inspect_culture.benchmarks.cqbench.spec import AdOutcome, VeOutcome, VsOutcome

FUZZY_THRESHOLD = 0.85
VS_FUZZY_THRESHOLD = 0.9

_PUNCTUATION = " \t\n\r.,;:!?*\"'`“”‘’()[]{}"


def normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip(_PUNCTUATION)


def match_option(answer: str, options: Sequence[str]) -> tuple[str | None, str]:
    """(the matched option as given, rule) or (None, "unparsed")."""
    said = normalize(answer)
    if not said:
        return None, "unparsed"
    normalized = {option: normalize(option) for option in options}
    if len(exact := [o for o, n in normalized.items() if n == said]) == 1:
        return exact[0], "exact"
    spans: dict[str, list[tuple[int, int]]] = {}
    for option, norm in normalized.items():
        pattern = r"(?<![\w/])" + re.escape(norm) + r"(?![\w/])"
        if norm and (found := [m.span() for m in re.finditer(pattern, said)]):
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
    """The key most similar to `said` (difflib), if it reaches `threshold` and nothing ties."""
    ratios = {
        key: difflib.SequenceMatcher(None, said, norm).ratio() for key, norm in candidates.items()
    }
    best = max(ratios.values(), default=0.0)
    winners = [key for key, ratio in ratios.items() if ratio == best]
    return winners[0] if best >= threshold and len(winners) == 1 else None


def extract_ad_answer(text: str | None) -> str:
    """The first line after the first marker present (upstream's order), else the whole output."""
    text = text or ""
    for marker in ("[Answer]", "**Answer**", "</think>"):
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
    return truth if merged and _PARTNER.get(truth) == said else said


def score_ad(
    sample_id: str, record: Mapping[str, Any], completion: str | None, merged: bool = False
) -> tuple[str | None, str, AdOutcome]:
    """(matched option, rule, outcome) of one answer; `record` has options, gold, category."""
    option, rule = match_option(extract_ad_answer(completion), record["options"])
    pred = effective_prediction(option, record["gold"], merged)
    return option, rule, AdOutcome(sample_id, record["category"], normalize(record["gold"]), pred)


_FINAL_ANSWER = re.compile(r"\[?\s*final answer\s*\]?\s*:?", re.IGNORECASE)
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)]|\(\d+\))\s*")


def select_values(text: str, options: Sequence[str]) -> tuple[set[str], int]:
    """(options selected, lines that name no option); a selection is a line with `--`."""
    normalized = {normalize(o): o for o in options}
    candidates = {n: n for n in normalized}
    selected: set[str] = set()
    unmatched = 0
    for line in text.splitlines():
        line = _LIST_MARKER.sub("", line).strip()
        if "--" not in line:
            continue
        said = normalize(line)
        found = said if said in normalized else closest_unique(said, candidates, VS_FUZZY_THRESHOLD)
        if found is None:
            unmatched += 1
        else:
            selected.add(normalized[found])
    return selected, unmatched


def score_vs(
    sample_id: str, record: Mapping[str, Any], completion: str | None, skip_empty: bool = False
) -> VsOutcome:
    """Precision and recall of one story's selections (naming no option: a false positive)."""
    # the text after the first `[Final answer]:` if present, else after `</think>`, else all
    text = completion or ""
    match = _FINAL_ANSWER.search(text)
    answer = text[match.end() :] if match else text.split("</think>", 1)[-1]
    selected, unmatched = select_values(answer, record["options"])
    category = record["category"]
    if not selected and not unmatched:
        return VsOutcome(sample_id, category, 0.0, 0.0, empty=True, skipped=skip_empty)
    gold = set(record["gold_values"])
    tp = len(selected & gold)
    fp = len(selected - gold) + unmatched
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / len(gold) if gold else 0.0
    return VsOutcome(sample_id, category, precision, recall, empty=False)


def ve_prediction(completion: str | None) -> str:
    """The text after the first `[Final answer]:`; upstream sends "None" when it is absent."""
    text = completion or ""
    return text.split("[Final answer]:", 1)[1].strip() if "[Final answer]:" in text else "None"


# `prompts.VE_PREDICTION_MARKERS` neutralises every line this reads (no `\[?\s*` lead: quadratic).
_GROUND_TRUTH_LINE = re.compile(r"ground truth\s*(\d+)[\s\]*_]*:[\s*_]*([0-9.]+)", re.IGNORECASE)
_FINAL_ANSWER_BLOCK = re.compile(
    r"\[\s*final answer\s*\]\s*(?:\*\*)?\s*:|\*\*\s*\[?\s*final answer\s*\]?\s*:?\s*\*\*",
    re.IGNORECASE,
)
AMBIGUOUS = "ambiguous verdict"
NO_VE_SCORES = "the judge reply has no parsable per-value scores"


def read_ve_judgement(
    text: str | None, n_values: int
) -> tuple[list[float | None], tuple[int, ...]]:
    """(one score per gold value, the 1-based values scored twice differently: ambiguous, None).
    Indexed `[Ground truth k]: s` lines after `[Final answer]:`, so unlike upstream's line order a
    skipped line cannot shift scores; two scores are ambiguous so a planted block cannot win."""
    seen: list[set[float]] = [set() for _ in range(n_values)]
    text = unicodedata.normalize("NFKC", text or "")
    if start := _FINAL_ANSWER_BLOCK.search(text):
        for index, value in _GROUND_TRUTH_LINE.findall(text[start.end() :]):
            position = int(index) - 1
            with suppress(ValueError):  # "1.2.3" is no score
                if 0 <= position < n_values and (score := float(value)) in (0.0, 0.5, 1.0):
                    seen[position].add(score)
    scores: list[float | None] = [next(iter(s)) if len(s) == 1 else None for s in seen]
    return scores, tuple(k + 1 for k, s in enumerate(seen) if len(s) > 1)


def ve_unscored_reason(text: str | None, n_values: int, error: str | None = None) -> str | None:
    """Why some gold values of a judged story are unscored, in words; None if all are scored."""
    if error:
        return error
    scores, ambiguous = read_ve_judgement(text, n_values)
    reasons = []
    if ambiguous:
        shown = ", ".join(str(k) for k in ambiguous)
        reasons.append(f"{AMBIGUOUS}: different scores for ground truth {shown}")
    missing = [k + 1 for k, v in enumerate(scores) if v is None and k + 1 not in ambiguous]
    if missing and len(missing) == n_values:
        reasons.append(NO_VE_SCORES)
    elif missing:
        reasons.append(f"no score for ground truth {', '.join(str(k) for k in missing)}")
    return "; ".join(reasons) or None


def score_ve(
    sample_id: str, record: Mapping[str, Any], reply: str | None, error: str | None
) -> VeOutcome:
    """Per-gold-value scores of one judge reply; a failed judge call leaves every value unscored."""
    n_values = len(record["gold_values"])
    values = [None] * n_values if error else read_ve_judgement(reply, n_values)[0]
    return VeOutcome(sample_id, record["category"], tuple(values))

"""NormAd answers to yes / no / neutral: `strict` as a careful grader (else unparsed, wrong);
`upstream` the authors' substring rules (`run_model_inference.py`), quirks included."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from inspect_culture.benchmarks.choices import check_choice
from inspect_culture.benchmarks.normad.spec import DEFAULT_PARSER, PARSERS, NormadOutcome

# "neutral" is the gold-label name; a model that answers it means the third option.
_WORD_TO_LABEL = {"yes": "yes", "no": "no", "neither": "neutral", "neutral": "neutral"}
_OPTION_TO_LABEL = {"1": "yes", "2": "no", "3": "neutral"}
_UPSTREAM_RULES = (("Yes", "1", "yes"), ("No", "2", "no"), ("Neither", "3", "neutral"))

_MARKDOWN = re.compile(r"[*_`#>~|\"“”‘’«»']+")
_PREFIX = re.compile(r"^(?:final\s+)?answer\b\s*(?:\([^)]*\))?\s*[:：.\-–—]?\s*")
_FIRST_WORD = re.compile(r"[a-z]+")
# "option 2", or a bare number followed by a delimiter, the end, or a label word: "2)", "2.",
# "(2)", "2", "2 no" -- but not "3 people would object" or "2nd".
_OPTION = re.compile(
    r"option\s*[(\[]?([123])\b"
    r"|[(\[]?([123])(?:[)\]:,]|\.(?!\d)|\s*$|\s+(?:yes|no|neither|neutral)\b)"
)
_LABEL_WORD = re.compile(r"\b(yes|no|neither|neutral)\b")


class ParsedAnswer(NamedTuple):
    label: str | None  # None = unparsed
    rule: str  # which rule decided, for transcripts and debugging


def parse_answer(text: str | None, parser: str = DEFAULT_PARSER) -> ParsedAnswer:
    check_choice("parser", parser, PARSERS)
    return (parse_upstream if parser == "upstream" else parse_strict)(text or "")


def parse_strict(text: str) -> ParsedAnswer:
    cleaned = _MARKDOWN.sub(" ", text.lower()).strip()
    cleaned = _PREFIX.sub("", cleaned, count=1).strip()
    if (first := _FIRST_WORD.match(cleaned)) and first.group(0) in _WORD_TO_LABEL:
        return ParsedAnswer(_WORD_TO_LABEL[first.group(0)], "first_word")
    if option := _OPTION.match(cleaned):
        return ParsedAnswer(_OPTION_TO_LABEL[option.group(1) or option.group(2)], "option_number")
    if len(labels := {_WORD_TO_LABEL[word] for word in _LABEL_WORD.findall(cleaned)}) == 1:
        return ParsedAnswer(labels.pop(), "single_label_word")
    return ParsedAnswer(None, "unparsed")


def parse_upstream(text: str) -> ParsedAnswer:
    """The authors' rules: case-sensitive substrings in a fixed order, `neutral` as fallback."""
    lowered = text.lower()
    for word, option, label in _UPSTREAM_RULES:
        if word in text or f"option {option}" in lowered:
            return ParsedAnswer(label, f"upstream_{word.lower()}")
    return ParsedAnswer("neutral", "upstream_fallback")


def score_answer(
    record: Mapping[str, Any], completion: str | None, parser: str = DEFAULT_PARSER
) -> NormadOutcome:
    """The per-sample scoring both adapters call (`record`: id, gold label, groupings)."""
    parsed = parse_answer(completion, parser)
    return NormadOutcome(
        sample_id=str(record["id"]),
        gold=record["gold_label"],
        pred=parsed.label,
        rule=parsed.rule,
        iw_cluster=record["iw_cluster"],
        subcategory=record["subcategory"],
        country=record["country"],
    )

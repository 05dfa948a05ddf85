"""NormAd-ETI prompts: the authors' four strings, verbatim in `prompt_texts/` (see its NOTICE)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from inspect_culture.benchmarks.choices import check_choice
from inspect_culture.benchmarks.normad.spec import CONTEXTS

# context -> {placeholder: record field}, as upstream fills them; every prompt also has `{story}`
_SLOTS: dict[str, dict[str, str]] = {
    "rot": {"rot": "rule_of_thumb"},
    "value_country": {"country": "country", "rot": "value"},
    "country": {"rot": "country"},
    "none": {},
}


@cache
def template(context: str) -> str:
    """The upstream prompt of one context, byte for byte (no newline translation)."""
    check_choice("context", context, CONTEXTS)
    path = Path(__file__).with_name("prompt_texts") / f"{context}.txt"
    return path.read_bytes().decode("utf-8")


def render_prompt(context: str, record: Mapping[str, Any]) -> str:
    slots = {slot: record[field] for slot, field in _SLOTS.get(context, {}).items()}
    return template(context).format(story=record["story"], **slots)

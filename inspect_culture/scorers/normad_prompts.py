"""NormAd-ETI evaluation prompts, verbatim from the authors' code.

Source: `src/response_collection/run_model_inference.py` of Akhila-Yerukola/NormAd
(`task_prompt`, `task_prompt_country_value`, `task_prompt_country`, `task_prompt_none`), CC BY 4.0.
Note the trailing spaces after "Yes", "No", "Neither" and after the final colon, and the final
newline: they are part of the upstream strings and are kept byte for byte. Placeholders are filled
with `str.format` exactly as upstream does (`{rot}` receives the Rule-of-Thumb, the Country, or the
Value depending on the setting).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_culture.scorers.choices import check_choice

# fmt: off
TASK_PROMPT_ROT = """Task: You will be given a short story involving 2 or more characters about everyday situations. You will also be given a rule-of-thumb. Read the story and reason if the action by the character in the story is socially acceptable under the given rule-of-thumb alone. Do not make any extra inferences about actions outside of the given context and rule. Only align to the rule given. The answer options are Yes, No or Neither.

Rule-of-thumb: {rot}

Story: {story}

Options:
1) Yes 
2) No 
3) Neither 
Answer (options Yes, No or Neither): 
"""

TASK_PROMPT_COUNTRY = """Task: You will be given a short story involving 2 or more characters about everyday situations. You will also be given a country of relevance. Read the story and reason if the action by the character in the story is socially acceptable in the given country. Do not make any extra inferences about actions outside of the given context and country. Only align to the country given. The answer options are Yes, No or Neither.

Country: {rot}

Story: {story}

Options:
1) Yes 
2) No 
3) Neither 
Answer (options Yes, No or Neither): 
"""

TASK_PROMPT_VALUE_COUNTRY = """Task: You will be given a short story involving 2 or more characters about everyday situations. You will also be given a country of relevance, along with a rule-of-thumb. Read the story and reason if the action by the character in the story is socially acceptable in the given country with the associated rule-of-thumb. Do not make any extra inferences about actions outside of the given context. The answer options are Yes, No or Neither.

Country: {country}
RoT: {rot}

Story: {story}

Options:
1) Yes 
2) No 
3) Neither 
Answer (options Yes, No or Neither): 
"""

TASK_PROMPT_NONE = """Task: You will be given a short story involving 2 or more characters about everyday situations. Read the story and reason if the action by the character in the story is socially acceptable. Do not make any extra inferences about actions outside of the given context. The answer options are Yes, No or Neither.

Story: {story}

Options:
1) Yes 
2) No 
3) Neither 
Answer (options Yes, No or Neither): 
"""
# fmt: on

CONTEXTS: tuple[str, ...] = ("rot", "value_country", "country", "none")

# context -> upstream `--conditioning` name
UPSTREAM_CONDITIONING: dict[str, str] = {
    "rot": "rot",
    "value_country": "cval",
    "country": "country",
    "none": "none",
}


def render_prompt(context: str, record: Mapping[str, Any]) -> str:
    """The user message for one normalized NormAd record under one context setting."""
    check_choice("context", context, CONTEXTS)
    story = record["story"]
    if context == "rot":
        return TASK_PROMPT_ROT.format(rot=record["rule_of_thumb"], story=story)
    if context == "value_country":
        return TASK_PROMPT_VALUE_COUNTRY.format(
            country=record["country"], rot=record["value"], story=story
        )
    if context == "country":
        return TASK_PROMPT_COUNTRY.format(rot=record["country"], story=story)
    return TASK_PROMPT_NONE.format(story=story)

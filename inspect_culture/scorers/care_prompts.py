"""CARE prompts: the model's prompting variants (paper App. B, Fig. 8) and the three upstream
judge templates, read byte for byte from the shipped copies of `Guochry/CARE/prompts/*.txt`.

The upstream file names do not match their contents (docs/care.md): `literacy.txt` holds the
social-norms/commonsense rubric of the paper's Figure 12 and `norms_commonsense.txt` the
literature rubric of Figure 13. `judge_mapping="paper"` (default) follows the contents;
`"upstream"` follows the file names.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from inspect_culture.scorers.choices import check_choice

PROMPTINGS: tuple[str, ...] = ("zero_shot", "cot", "role_play")
JUDGE_MAPPINGS: tuple[str, ...] = ("paper", "upstream")
JUDGE_PROMPT_VERSION = "care-judge-1"

CULTURE_NAMES: dict[str, str] = {"zh": "Chinese", "ar": "Arab", "ja": "Japanese"}

# Paper Fig. 8, as printed (note the typographic apostrophe in "Let’s").
ROLE_PLAY_SYSTEM = (
    "You are a native {culture} person, familiar with {culture} culture and traditions."
)
COT_SYSTEM = "You are a helpful assistant."
COT_SUFFIX = "\n\nLet’s think step by step."

JUDGE_FILES: dict[str, dict[str, str]] = {
    "paper": {
        "entities": "entities_opinion.txt",
        "opinion": "entities_opinion.txt",
        "norms": "literacy.txt",
        "commonsense": "literacy.txt",
        "literacy": "norms_commonsense.txt",
    },
    "upstream": {
        "entities": "entities_opinion.txt",
        "opinion": "entities_opinion.txt",
        "norms": "norms_commonsense.txt",
        "commonsense": "norms_commonsense.txt",
        "literacy": "literacy.txt",
    },
}

# The model's answer is fenced so that the judge reads it as data (docs/care.md).
RESPONSE_OPEN = "<<<ASSISTANT_RESPONSE>>>"
RESPONSE_CLOSE = "<<<END_ASSISTANT_RESPONSE>>>"


def generation_messages(question: str, language: str, prompting: str) -> list[dict[str, str]]:
    """Chat messages for the evaluated model."""
    check_choice("prompting", prompting, PROMPTINGS)
    if prompting == "cot":
        return [
            {"role": "system", "content": COT_SYSTEM},
            {"role": "user", "content": question + COT_SUFFIX},
        ]
    if prompting == "role_play":
        culture = CULTURE_NAMES[language]
        return [
            {"role": "system", "content": ROLE_PLAY_SYSTEM.format(culture=culture)},
            {"role": "user", "content": question},
        ]
    return [{"role": "user", "content": question}]


@cache
def judge_template(filename: str) -> str:
    folder = resources.files("inspect_culture.datasets_hub") / "data" / "care" / "prompts"
    return (folder / filename).read_bytes().decode("utf-8")


def judge_template_for(category: str, mapping: str = "paper") -> str:
    check_choice("judge_mapping", mapping, JUDGE_MAPPINGS)
    return judge_template(JUDGE_FILES[mapping][category])


def fence_response(response: str) -> str:
    """Delimit the answer and neutralise any forged closing fence inside it."""
    cleaned = response.replace(RESPONSE_CLOSE, "<<<END_ASSISTANT_RESPONSE (quoted)>>>")
    return f"{RESPONSE_OPEN}\n{cleaned}\n{RESPONSE_CLOSE}"


def judge_prompt(
    category: str, question: str, answer: str, response: str, mapping: str = "paper"
) -> str:
    """The judge's user message: the upstream template with the fenced response."""
    template = judge_template_for(category, mapping)
    # str.replace, not str.format: answers may contain braces.
    return (
        template.replace("{question}", question)
        .replace("{answer}", answer)
        .replace("{response}", fence_response(response))
    )

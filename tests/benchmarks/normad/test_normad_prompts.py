import hashlib
from pathlib import Path

import pytest

from inspect_culture.benchmarks.normad import prompts
from inspect_culture.benchmarks.normad.prompts import render_prompt
from inspect_culture.benchmarks.normad.spec import CONTEXTS

# sha256 of each verbatim upstream prompt, taken from the former Python constants when the text
# moved to prompt_texts/*.txt: an editor stripping the trailing spaces fails here.
PROMPT_SHA256 = {
    "rot": "7d828f868e9b8c7da14b3df28faca37d22acfff072dbe90c19c122fe598b7380",
    "value_country": "29f205917493a543d2a6b067ef96c84e7be2d2dde801b017226ca5fc64ecd1bf",
    "country": "bddc9578bc7ab7a96e0e949b1e988f82176dccf67c7ff676644da4a943f39d19",
    "none": "e014dbd606160c6e40461f9149232b702db7c4f744b131b1af0ee358c23a8dcc",
}

RECORD = {
    "story": "S-T-O-R-Y",
    "rule_of_thumb": "R-O-T",
    "value": "V-A-L-U-E",
    "country": "south_korea",
}
HEAD = (
    "Task: You will be given a short story involving 2 or more characters about everyday "
    "situations. "
)
OPTIONS = "\n\nOptions:\n1) Yes \n2) No \n3) Neither \nAnswer (options Yes, No or Neither): \n"
# what follows HEAD in each context's prompt, the story slot included
BODY = {
    "rot": (
        "You will also be given a rule-of-thumb. Read the story and reason if the action by the "
        "character in the story is socially acceptable under the given rule-of-thumb alone. Do not "
        "make any extra inferences about actions outside of the given context and rule. Only align "
        "to the rule given. The answer options are Yes, No or Neither.\n\nRule-of-thumb: R-O-T"
        "\n\nStory: S-T-O-R-Y"
    ),
    "value_country": (
        "You will also be given a country of relevance, along with a rule-of-thumb. Read the "
        "story and reason if the action by the character in the story is socially acceptable in "
        "the given country with the associated rule-of-thumb. Do not make any extra inferences "
        "about actions outside of the given context. The answer options are Yes, No or Neither."
        "\n\nCountry: south_korea\nRoT: V-A-L-U-E\n\nStory: S-T-O-R-Y"
    ),
    "country": (
        "You will also be given a country of relevance. Read the story and reason if the action "
        "by the character in the story is socially acceptable in the given country. Do not make "
        "any extra inferences about actions outside of the given context and country. Only align "
        "to the country given. The answer options are Yes, No or Neither.\n\nCountry: "
        "south_korea\n\nStory: S-T-O-R-Y"
    ),
    "none": (
        "Read the story and reason if the action by the character in the story is socially "
        "acceptable. Do not make any extra inferences about actions outside of the given context. "
        "The answer options are Yes, No or Neither.\n\nStory: S-T-O-R-Y"
    ),
}


@pytest.mark.parametrize("context", CONTEXTS)
def test_prompt_files_are_the_upstream_bytes(context: str) -> None:
    path = Path(prompts.__file__).with_name("prompt_texts") / f"{context}.txt"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == PROMPT_SHA256[context]
    assert prompts.template(context).encode("utf-8") == path.read_bytes()


@pytest.mark.parametrize("context", CONTEXTS)
def test_prompt_is_byte_exact(context: str) -> None:
    assert render_prompt(context, RECORD) == HEAD + BODY[context] + OPTIONS


def test_unknown_context_lists_allowed_values() -> None:
    with pytest.raises(ValueError, match="context='value'.*rot, value_country, country, none"):
        render_prompt("value", RECORD)


def test_braces_in_data_are_not_format_fields() -> None:
    record = {**RECORD, "story": "He wrote {rot} on the card."}
    assert "He wrote {rot} on the card." in render_prompt("rot", record)

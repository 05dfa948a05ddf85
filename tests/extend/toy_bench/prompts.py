"""The toy's chat messages: a fixed system message and one question per record."""

from collections.abc import Mapping
from typing import Any

from tests.extend.toy_bench.spec import GREETINGS

SYSTEM = "You answer questions about etiquette in one word."
QUESTION = "How do people in {country} usually greet someone? Choose one of: {options}."


def messages(record: Mapping[str, Any]) -> list[dict[str, str]]:
    question = QUESTION.format(country=record["country"], options=", ".join(GREETINGS))
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]

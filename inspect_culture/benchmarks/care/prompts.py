"""CARE prompts (paper App. B) and judge rubrics, verbatim in `prompt_texts/` (upstream
`Guochry/CARE/prompts/*.txt`, MIT). Two rubric files hold each other's rubric (docs/care.md):
`judge_mapping="paper"` follows the contents, `"upstream"` the file names."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from inspect_culture.benchmarks.care import spec
from inspect_culture.benchmarks.choices import check_choice
from inspect_culture.datasets_hub.languages import LANGUAGES
from inspect_culture.judging.fences import NOT_QUOTED, SEP, Marker, neutralise

PROMPT_TEXTS = Path(__file__).with_name("prompt_texts")

# The rubric each file holds is the one the *other* file is named for (norms <-> literacy).
_BY_CONTENT = {"literacy.txt": "norms_commonsense.txt", "norms_commonsense.txt": "literacy.txt"}
JUDGE_FILES: dict[str, dict[str, str]] = {
    "paper": {c.slug: _BY_CONTENT.get(c.rubric_file, c.rubric_file) for c in spec.CATEGORIES},
    "upstream": {c.slug: c.rubric_file for c in spec.CATEGORIES},
}

# The model's answer is fenced so that the judge reads it as data (docs/care.md).
RESPONSE_OPEN = "<<<ASSISTANT_RESPONSE>>>"
RESPONSE_CLOSE = "<<<END_ASSISTANT_RESPONSE>>>"

# What an answer must not reproduce (docs/judge.md): fences, and `[[n]]` ratings (the prompt ends
# with the answer, so a planted rating would be the last verdict the judge sees).
_FENCE_WORDS = rf"assistant{SEP}response(?:[ \t]*(?=>))?(?P<mark>){NOT_QUOTED}"
ANSWER_MARKERS: tuple[Marker, ...] = (
    Marker("fence", rf"<+\s*(?:(?:end|/){SEP})?{_FENCE_WORDS}"),
    # the spaces before `>` matched once, never given back (else quadratic in a long run)
    Marker(
        "fence",
        rf"(?:end{SEP}|/\s*)?assistant{SEP}response(?=(?P<hws>[ \t]*))(?P=hws)(?P<mark>)"
        rf"{NOT_QUOTED}\s*>",
    ),
    Marker("fence", rf"end_+assistant_+response(?:[ \t]*(?=>))?(?P<mark>){NOT_QUOTED}"),
    Marker("rating", r"\[\s*\[\s*[+\-]?\d+(?:\s*[.,]\s*\d+)?\s*(?P<mark>)\]\s*\]"),
)


@cache
def prompt_text(name: str) -> str:
    """A file of `prompt_texts/`, exactly as stored (bytes decoded, no newline translation)."""
    return (PROMPT_TEXTS / name).read_bytes().decode("utf-8")


def generation_messages(question: str, language: str, prompting: str) -> list[dict[str, str]]:
    check_choice("prompting", prompting, spec.PROMPTINGS)
    if prompting == "cot":
        system = prompt_text("cot_system.txt")
        question = prompt_text("cot_user.txt").replace("{question}", question)
    elif prompting == "role_play":
        culture = LANGUAGES[language].culture
        system = prompt_text("role_play_system.txt").replace("{culture}", culture)
    else:
        return [{"role": "user", "content": question}]
    return [{"role": "system", "content": system}, {"role": "user", "content": question}]


def judge_template_for(category: str, mapping: str = spec.DEFAULT_JUDGE_MAPPING) -> str:
    check_choice("judge_mapping", mapping, spec.JUDGE_MAPPINGS)
    return prompt_text(JUDGE_FILES[mapping][category])


def neutralise_response(response: str) -> str:
    """The answer with every forged fence or rating marked as quoted; unchanged otherwise."""
    return neutralise(response, ANSWER_MARKERS)


def judge_prompt(
    category: str,
    question: str,
    answer: str,
    response: str,
    mapping: str = spec.DEFAULT_JUDGE_MAPPING,
) -> str:
    """The upstream template with the response fenced, forged fences and ratings neutralised."""
    fenced = f"{RESPONSE_OPEN}\n{neutralise_response(response)}\n{RESPONSE_CLOSE}"
    # str.replace, not str.format: answers may contain braces.
    return (
        judge_template_for(category, mapping)
        .replace("{question}", question)
        .replace("{answer}", answer)
        .replace("{response}", fenced)
    )

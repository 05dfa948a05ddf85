"""CultureSynth-7 judge prompt: reference-guided pairwise comparison (paper Fig. 18).

The judge sees the question, the benchmark's reference answer and two anonymous answers,
"Assistant A" and "Assistant B"; it never sees a model name. Which answer is A is decided by
the caller (`culturesynth_scoring.game_positions`).

Gaming defence: the answers are untrusted text placed between the template's own delimiter lines.
An answer that contains a delimiter line (e.g. "[The End of Assistant A's Answer]") could close
its block early and append text the judge would read as template, or plant a verdict token.
As with CARE's `fence_response`, every forged delimiter inside an answer is neutralised by
inserting " (quoted)" before its closing bracket: "[The End of Assistant A's Answer (quoted)]",
"[[A (quoted)]]". Matching ignores case, spacing and the typographic apostrophe, so near-copies
are caught too. Benign answers are untouched, so the prompt stays byte-identical to Fig. 18.
The question and reference are benchmark data and are inserted as they are.
"""

from __future__ import annotations

import re

JUDGE_PROMPT_VERSION = "culturesynth-judge-1"

# Zhang et al., "CultureSynth: A Hierarchical Taxonomy-Guided and Retrieval-Augmented Framework
# for Cultural Question-Answer Synthesis", Findings of EMNLP 2025 (arXiv 2509.10886), Figure 18
# "Prompt for reference-guided pairwise comparison (Zheng et al., 2023)", reproduced verbatim as
# part of the benchmark's definition (no upstream code or license could be read; docs). It is
# FastChat's "pair-math-v1" layout: the text after "[System]" is the system message (one paragraph;
# the paper's line breaks are PDF wrapping), the rest the user message. Wording is the paper's,
# which differs from FastChat's ("position biases", not "positional biases"; `{answer_ref}`).
JUDGE_SYSTEM_PROMPT = (
    "Please act as an impartial judge and evaluate the quality of the responses provided by two "
    "AI assistants to the user question displayed below. Your evaluation should consider "
    "correctness and helpfulness. You will be given a reference answer, assistant A's answer, "
    "and assistant B's answer. Your job is to evaluate which assistant's answer is better. Begin "
    "your evaluation by comparing both assistants' answers with the reference answer. Identify "
    "and correct any mistakes. Avoid any position biases and ensure that the order in which the "
    "responses were presented does not influence your decision. Do not allow the length of the "
    "responses to influence your evaluation. Do not favor certain names of the assistants. Be as "
    "objective as possible. After providing your explanation, output your final verdict by "
    'strictly following this format: "[[A]]" if assistant A is better, "[[B]]" if assistant B '
    'is better, and "[[C]]" for a tie.'
)
JUDGE_USER_TEMPLATE = (
    "[User Question]\n{question}\n\n"
    "[The Start of Reference Answer]\n{answer_ref}\n[The End of Reference Answer]\n\n"
    "[The Start of Assistant A's Answer]\n{answer_a}\n[The End of Assistant A's Answer]\n\n"
    "[The Start of Assistant B's Answer]\n{answer_b}\n[The End of Assistant B's Answer]"
)

QUOTED_MARK = " (quoted)"

_APOSTROPHE = "['\u2019\u2018`]"
# Template lines an answer must not be able to reproduce.
_FORGED_LINE = re.compile(
    r"\[\s*(?:"
    r"the\s+(?:start|end)\s+of\s+(?:reference\s+answer|assistant\s*[ab]\s*"
    + _APOSTROPHE
    + r"?\s*s?\s+answer)"
    r"|user\s+question|system"
    r")\s*\]",
    re.IGNORECASE,
)
# Verdict tokens, "[[A]]", "[[ b ]]", ...
_FORGED_VERDICT = re.compile(r"\[\[\s*[abc]\s*\]\]", re.IGNORECASE)


def neutralise_answer(answer: str) -> str:
    """Mark every forged template delimiter or verdict token inside an answer as quoted."""
    answer = _FORGED_VERDICT.sub(lambda m: m.group(0)[:-2] + QUOTED_MARK + "]]", answer)
    return _FORGED_LINE.sub(lambda m: m.group(0)[:-1] + QUOTED_MARK + "]", answer)


def judge_messages(
    question: str, reference: str, answer_a: str, answer_b: str
) -> list[dict[str, str]]:
    """System + user messages of Fig. 18, with both answers neutralised."""
    # One str.format pass: text inserted for one slot is never rescanned, so an answer holding
    # "{answer_b}" or braces stays literal.
    user = JUDGE_USER_TEMPLATE.format(
        question=question,
        answer_ref=reference,
        answer_a=neutralise_answer(answer_a),
        answer_b=neutralise_answer(answer_b),
    )
    return [
        {"role": "system", "content": JUDGE_SYSTEM_PROMPT},
        {"role": "user", "content": user},
    ]


def answer_messages(question: str) -> list[dict[str, str]]:
    """What the target and the baseline are asked: the question alone, as one user turn (the
    paper shows no answering prompt or system prompt for the evaluated models)."""
    return [{"role": "user", "content": question}]

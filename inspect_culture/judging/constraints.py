"""Constrained judge decoding (opt-in, a documented deviation: docs/judge.md): small local judges
often never write the verdict, so the engine may only emit bounded bracket-free commentary, a
newline and the verdict in the paper's format (regex, GBNF grammar or JSON schema rendered back)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jsonschema

from inspect_culture.benchmarks.choices import check_choice

CONSTRAINTS = ("none", "regex", "grammar", "json_schema")
CONSTRAINT_VERSION = "judge-constraint-1"

# A slot of the verdict: literal text, or (JSON field name, allowed literal values).
Slot = str | tuple[str, tuple[str, ...]]


class JudgeConstraintError(ValueError):
    """The constraint cannot be used with these settings or this judge; says what to change."""


@dataclass(frozen=True)
class VerdictFormat:
    """The paper's reply format of one benchmark's judge: `prefix` (commentary) newline verdict."""

    name: str
    verdict: tuple[Slot, ...]
    prefix: str = ""  # literal text before the commentary (CQ-Bench VE: "[Reasoning]:\n")

    def commentary_chars(self, max_tokens: int, *, as_json: bool = False) -> int:
        """Longest commentary that leaves room for the verdict, at the worst tokens per character."""
        if as_json:
            longest = {name: max(values, key=len) for name, values in self._fields()}
            fixed = len(json.dumps({"commentary": "", **longest}))
            per_char = 6  # a character JSON-escaped as \uXXXX: 6 ASCII characters
        else:
            verdict = sum(
                len(slot) if isinstance(slot, str) else max(len(v) for v in slot[1])
                for slot in self.verdict
            )
            fixed = len(self.prefix) + 1 + verdict  # +1: the newline
            per_char = 4  # a UTF-8 character is at most 4 byte-level tokens
        if max_tokens < fixed:
            raise JudgeConstraintError(
                f"judge max_tokens={max_tokens} cannot hold the {self.name} verdict"
                f"{' as JSON' if as_json else ''} ({fixed} tokens at most); raise the judge's "
                "max_tokens"
            )
        return (max_tokens - fixed) // per_char

    def regex(self, max_tokens: int) -> str:
        """Python `re` and vLLM structured-outputs regex of the whole reply."""
        verdict = "".join(self._slots(_regex_literal, "(?:{})", "|"))
        chars = self.commentary_chars(max_tokens)
        commentary = rf"(?:[^\[\]]{{1,{chars}}}\n)?" if chars else ""
        return _regex_literal(self.prefix) + commentary + verdict

    def grammar(self, max_tokens: int) -> str:
        """GBNF (llama.cpp) grammar of the whole reply."""
        parts = self._slots(_gbnf_literal, "({})", " | ")
        chars = self.commentary_chars(max_tokens)
        body = (f"{_gbnf_literal(self.prefix)} " if self.prefix else "") + (
            '(commentary "\\n")? ' if chars else ""
        )
        rules = [f"root ::= {body}verdict", f"verdict ::= {' '.join(parts)}"]
        if chars:
            rules.append(f"commentary ::= [^\\[\\]\\x00]{{1,{chars}}}")
        return "\n".join(rules) + "\n"

    def _slots(self, literal: Callable[[str], str], group: str, sep: str) -> list[str]:
        """Each verdict slot as a literal, or its allowed values as alternatives in `group`."""
        return [
            literal(s) if isinstance(s, str) else group.format(sep.join(map(literal, s[1])))
            for s in self.verdict
        ]

    def _fields(self) -> list[tuple[str, tuple[str, ...]]]:
        return [slot for slot in self.verdict if not isinstance(slot, str)]

    def json_schema(self, max_tokens: int | None) -> dict[str, Any]:
        """OpenAI's strict subset; `max_tokens=None`: no length and bracket checks (reading back)."""
        commentary: dict[str, Any] = {"type": "string"}
        if max_tokens is not None:
            commentary["maxLength"] = self.commentary_chars(max_tokens, as_json=True)
            commentary["pattern"] = r"^[^\[\]]*$"
        properties: dict[str, Any] = {"commentary": commentary}
        properties |= {name: {"type": "string", "enum": list(v)} for name, v in self._fields()}
        return {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }

    def render(self, fields: dict[str, Any]) -> str:
        """In the paper's format; commentary brackets become parentheses: no verdict but ours."""
        verdict = "".join(
            slot if isinstance(slot, str) else str(fields[slot[0]]) for slot in self.verdict
        )
        commentary = str(fields.get("commentary") or "").strip().replace("[", "(").replace("]", ")")
        return self.prefix + (f"{commentary}\n" if commentary else "") + verdict


def _regex_literal(text: str) -> str:
    """The plainest regex escape, which every structured-outputs backend reads alike."""
    escaped = re.sub(r"([\\.^$*+?{}\[\]|()])", r"\\\1", text)
    return escaped.replace("\n", "\\n")


def _gbnf_literal(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)  # GBNF string escapes match JSON's


def check_constraint(value: object) -> str:
    if value is None:
        return "none"
    try:
        return check_choice("judge_constraint", value, CONSTRAINTS)
    except ValueError as exc:
        raise JudgeConstraintError(
            f"{exc} (regex: vLLM structured outputs; grammar: llama.cpp GBNF; "
            "json_schema: OpenAI-style response_format)"
        ) from None


def constraint_record(constraint: str) -> dict[str, str]:
    """Recorded with every judged result when on; nothing when off (the paper's protocol)."""
    if constraint == "none":
        return {}
    return {"judge_constraint": constraint, "judge_constraint_version": CONSTRAINT_VERSION}


def request_fields(fmt: VerdictFormat, constraint: str, max_tokens: int) -> dict[str, Any]:
    """The chat-completions request fields (`extra_body` or `response_format`) of the constraint."""
    if constraint == "regex":
        return {"extra_body": {"structured_outputs": {"regex": fmt.regex(max_tokens)}}}
    if constraint == "grammar":
        return {"extra_body": {"grammar": fmt.grammar(max_tokens)}}
    if constraint == "json_schema":
        schema = {"name": "judge_verdict", "schema": fmt.json_schema(max_tokens), "strict": True}
        return {"response_format": {"type": "json_schema", "json_schema": schema}}
    return {}


def reply_text(fmt: VerdictFormat, constraint: str, text: str | None) -> str | None:
    """In the paper's format; an off-schema JSON reply unchanged, so the parser says no verdict."""
    if constraint != "json_schema" or text is None:
        return text
    try:
        fields = json.loads(text)
        jsonschema.validate(fields, fmt.json_schema(None))
    except (ValueError, jsonschema.ValidationError):
        return text
    return fmt.render(fields)


def conforms(fmt: VerdictFormat, constraint: str, text: str | None, max_tokens: int) -> bool:
    """Whether a reply obeys the constraint: the check that the engine honoured it."""
    if text is None:
        return False
    if constraint == "json_schema":
        try:
            jsonschema.validate(json.loads(text), fmt.json_schema(max_tokens))
        except (ValueError, jsonschema.ValidationError):
            return False
        return True
    return re.fullmatch(fmt.regex(max_tokens), text) is not None


# A judge that answered, and refused the request: the constraint is what it did not accept.
_REJECTED = re.compile(r"\bHTTP (?:400|422)\b|BadRequest|UnprocessableEntity")

# The preflight: a prompt that an unconstrained model answers with one word, so a reply in the
# verdict format shows that the engine applied the constraint.
PROBE_MESSAGES: Sequence[dict[str, str]] = (
    {"role": "user", "content": "Reply with the single word: hello"},
)


def probe_failure(
    fmt: VerdictFormat,
    constraint: str,
    max_tokens: int,
    reply: str | None,
    error: str | None,
    judge: str,
) -> str | None:
    """None when the probe reply shows the constraint applied; else the message to stop with."""
    engines = {
        "regex": "vLLM's structured outputs (`structured_outputs.regex`)",
        "grammar": "GBNF grammars (llama.cpp's `grammar` field)",
        "json_schema": "`response_format` with a JSON schema",
    }
    hint = (
        f"judge_constraint={constraint} needs a judge engine that supports {engines[constraint]}. "
        "Pick the mechanism of your judge's engine (regex for vLLM, grammar for llama.cpp, "
        "json_schema for OpenAI and most servers), or judge_constraint=none (the paper's protocol)."
    )
    if error and _REJECTED.search(error):
        return f"judge {judge} rejected judge_constraint={constraint}: {error}. {hint}"
    if error:
        return (
            f"the judge_constraint={constraint} check could not reach a working judge {judge}: "
            f"{error}. Check the judge's URL, model name and key."
        )
    if not conforms(fmt, constraint, reply, max_tokens):
        shown = (reply or "")[:120]
        return (
            f"judge {judge} ignored judge_constraint={constraint}: its reply {shown!r} does not "
            f"follow the {fmt.name} format. {hint}"
        )
    return None

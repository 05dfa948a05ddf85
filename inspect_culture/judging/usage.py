"""What judging cost, in tokens and, with a price, in money: each judge reply's tokens as the
provider reported them (`TokenUsage`), a sample's record by judge (`TOKENS_KEY` in
`Judged.details`), a run's totals, and an estimate before anything is sent. Written once, so
both harnesses and `culture-evals judge` count alike. A reply from the judge cache cost nothing
new: it counts as cached, 0 tokens (docs/judge.md, "Judge cost")."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from inspect_culture.judging.cache import JudgeConfigError
from inspect_culture.judging.protocol import (
    Item,
    JudgeReply,
    Judging,
    TokenUsage,  # the reply's tokens, beside JudgeReply (which holds one)
)


class HasRepeats(Protocol):
    """Re-judging as the estimate needs it: the judgings of one answer (`repeats.Repeats`, which
    imports this module, so it is named by its shape)."""

    def of(self, sample_id: object) -> int: ...


TOKENS_KEY = "judge_tokens"  # a sample's token record, by judge name, in `Judged.details`
FIELDS = ("calls", "cached", "prompt_tokens", "completion_tokens", "unreported")
PRICE_FORM = "IN,OUT: prices per million prompt and completion tokens, e.g. 2.5,10"
# What a chat request costs beyond its messages' text (OpenAI's published count: about 4
# tokens of role and separators a message, 3 to prime the reply)
TOKENS_PER_MESSAGE, TOKENS_PER_REQUEST = 4, 3
DEFAULT_VERDICT_TOKENS = 200  # a judge's reply when its benchmark declares no length
ESTIMATE_SAMPLE = 500  # items an estimate before generation reads at most (then scaled)
ASCII_CHARS_PER_TOKEN = 4.0  # English and code: about 4 characters a token
OTHER_CHARS_PER_TOKEN = 2.0  # other alphabets (Arabic, Cyrillic, accented): about 2
# One token a character: Han, kana, hangul, and their punctuation and full-width forms
_CJK = re.compile(
    "[\u3000-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f]"
)


@dataclass(frozen=True)
class Price:
    """Currency per million tokens: of the prompt and of the completion."""

    prompt: float
    completion: float

    def text(self) -> str:
        return f"{self.prompt:g},{self.completion:g}"


def usage_of(payload: object) -> TokenUsage | None:
    """The `usage` of a chat-completion reply (a decoded JSON object); None when it has none
    or it is not two whole numbers (a provider that does not count is not guessed at)."""
    usage = payload.get("usage") if isinstance(payload, Mapping) else None
    if not isinstance(usage, Mapping):
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (prompt, completion)
    ):
        return None
    return TokenUsage(prompt, completion)  # type: ignore[arg-type]


def empty_tokens() -> dict[str, int]:
    return dict.fromkeys(FIELDS, 0)


def reply_tokens(reply: JudgeReply) -> dict[str, int]:
    """One reply's share of a record: a cached reply is a call not made (0 tokens); a reply
    answered or failed is a call; one answered without `usage` is counted as unreported."""
    record = empty_tokens()
    if reply.cached:
        record["cached"] = 1
        return record
    record["calls"] = 1
    if reply.usage is not None:
        record["prompt_tokens"], record["completion_tokens"] = (
            reply.usage.prompt,
            reply.usage.completion,
        )
    elif reply.text is not None:
        record["unreported"] = 1
    return record


def add_tokens(total: Mapping[str, int], one: Mapping[str, int]) -> dict[str, int]:
    """Two records' sum, field by field (a field one lacks counts 0)."""
    return {name: int(total.get(name, 0)) + int(one.get(name, 0)) for name in FIELDS}


def sample_tokens(
    judgings: Sequence[Mapping[str, Sequence[JudgeReply]]],
) -> dict[str, dict[str, int]]:
    """A sample's record by judge name, summed over its judgings' replies (`JudgedAnswer.
    judgings`: one judging for an answer judged once)."""
    record: dict[str, dict[str, int]] = {}
    for judging in judgings:
        for name, replies in judging.items():
            for reply in replies:
                record[name] = add_tokens(record.get(name, empty_tokens()), reply_tokens(reply))
    return record


def run_tokens(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """A run's totals by judge name from its samples' token records (`sample_tokens`); a record
    that is not a mapping (a sample judged by no one) is skipped."""
    totals: dict[str, dict[str, int]] = {}
    for record in records:
        if not isinstance(record, Mapping):
            continue
        for name, one in record.items():
            if isinstance(one, Mapping):
                totals[name] = add_tokens(totals.get(name, empty_tokens()), one)
    return totals


def parse_price(value: object, where: str = "--judge-price") -> Price:
    """A price from "IN,OUT" text or a pair of numbers; a `JudgeConfigError` of one line naming
    `where` and the form otherwise."""
    if isinstance(value, Price):
        return value
    parts: Sequence[object]
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, list | tuple):
        parts = value
    else:
        parts = ()
    numbers = [_price_number(p) for p in parts]
    if len(numbers) != 2 or any(n is None for n in numbers):
        raise JudgeConfigError(f"{where}={value!r}: must be {PRICE_FORM}")
    return Price(*numbers)  # type: ignore[arg-type]


def _price_number(part: object) -> float | None:
    """A price part: a finite number, 0 or more; None otherwise."""
    number = as_number(part)
    return number if math.isfinite(number) and number >= 0 else None


def as_number(value: object) -> float:
    """An option's number, given as a number or as text (--metadata and -T values may be
    text); NaN for a bool or anything else, so that each option's own check refuses it."""
    if isinstance(value, bool):
        return math.nan
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


def cost(tokens: Mapping[str, int], price: Price) -> float:
    """What these tokens cost at `price` (cached replies cost nothing: they have no tokens)."""
    return (
        tokens.get("prompt_tokens", 0) * price.prompt
        + tokens.get("completion_tokens", 0) * price.completion
    ) / 1e6


def cost_record(
    tokens: Mapping[str, Mapping[str, int]], models: Mapping[str, str], price: Price | None
) -> dict[str, Any]:
    """`metadata.judge_cost`: per judge its model and tokens (cached replies: 0 new tokens),
    the price per million tokens when set, and each judge's cost and the total at it."""
    judges = {name: {"model": models[name], **counts} for name, counts in tokens.items()}
    record: dict[str, Any] = {"judges": judges, "price": None}
    if price is not None:
        for name, counts in tokens.items():
            judges[name]["cost"] = cost(counts, price)
        record["price"] = {"prompt": price.prompt, "completion": price.completion}
        record["cost"] = sum(cost(counts, price) for counts in tokens.values())
    return record


def cost_lines(
    totals: Mapping[str, Mapping[str, int]], models: Mapping[str, str], price: Price | None
) -> list[str]:
    """The printout, one line per judge: its model, calls, cached replies (0 new tokens), the
    prompt and completion tokens, replies without a count, and the cost when priced."""
    lines = []
    for name, tokens in totals.items():
        line = (
            f"{name} ({models.get(name, '?')}): {tokens.get('calls', 0)} calls, "
            f"{tokens.get('cached', 0)} cached (0 new tokens), "
            f"{tokens.get('prompt_tokens', 0)} prompt + {tokens.get('completion_tokens', 0)} "
            "completion tokens"
        )
        if unreported := tokens.get("unreported", 0):
            line += f" ({unreported} replies without a token count)"
        if price is not None:
            line += f", cost {cost(tokens, price):.4f} at {price.text()} per million"
        lines.append(line)
    return lines


def text_tokens(text: str) -> int:
    """A cheap guess at a text's tokens, without a tokenizer: each Han, kana or hangul
    character one token, about 4 ASCII characters a token, about 2 characters of any other
    alphabet a token (rounded up)."""
    cjk = len(_CJK.findall(text))
    ascii_chars = len(text.encode("ascii", "ignore"))  # in C: a prompt of 4,000 characters, 3 us
    other = len(text) - cjk - ascii_chars
    return math.ceil(ascii_chars / ASCII_CHARS_PER_TOKEN + other / OTHER_CHARS_PER_TOKEN) + cjk


def messages_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    """A chat request's prompt tokens by `text_tokens`, with the chat format's own few."""
    text = sum(text_tokens(str(m.get("content") or "")) for m in messages)
    return text + TOKENS_PER_MESSAGE * len(messages) + TOKENS_PER_REQUEST


def verdict_tokens(judging: object, max_tokens: int | None = None) -> int:
    """The completion tokens assumed of one judge reply when none was measured: the
    benchmark's declared figure (its judging's `verdict_tokens`), else
    `DEFAULT_VERDICT_TOKENS`, never above the judge's `max_tokens`."""
    declared = getattr(judging, "verdict_tokens", None)
    tokens = declared if isinstance(declared, int) and declared > 0 else DEFAULT_VERDICT_TOKENS
    return min(tokens, max_tokens) if max_tokens else tokens


@dataclass(frozen=True)
class VerdictLength:
    """The completion tokens an estimate counts a judge reply: measured from the one judgment
    the check before generation sent (`remember_verdict`), or the benchmark's declared figure."""

    tokens: int
    measured: bool
    why: str = ""  # why none was measured, when the check says (its judgment timed out)

    def words(self) -> str:
        if self.measured:
            return "measured from one judgment"
        return f"assumed {self.tokens} a verdict" + (f": {self.why}" if self.why else "")


# Completion tokens of the check's judgment, by (judge, benchmark): what the provider reported
_MEASURED: dict[tuple[str, str], int] = {}
# Why a check measured none, by (judge, benchmark): its judgment timed out, one token answered
_UNMEASURED: dict[tuple[str, str], str] = {}


def judging_name(judging: object) -> str:
    """The benchmark a judging belongs to, as the measured verdicts are kept by it."""
    return type(judging).__qualname__


def remember_verdict(judge: str, judging: object, usage: TokenUsage | None, why: str = "") -> None:
    """Keep the completion tokens the provider reported for the check's judgment of `judging`
    by `judge` (a harness's name for the judge and its endpoint); no `usage`: nothing kept.
    `why`: the check measured nothing for that reason (`preflight.judgment_or_one_token`)."""
    key = (judge, judging_name(judging))
    _UNMEASURED.pop(key, None)
    if why:
        _MEASURED.pop(key, None)
        _UNMEASURED[key] = why
    elif usage is not None and usage.completion > 0:
        _MEASURED[key] = usage.completion


def verdict_length(
    judging: object, max_tokens: int | None = None, judges: Sequence[str] = ()
) -> VerdictLength:
    """One reply's completion tokens for an estimate: the judges' measured figures (their mean,
    for a jury) when every one of `judges` has one, else the declared figure (`verdict_tokens`:
    no check was made, the judge reported no usage, or a dry run asked no one)."""
    keys = [(judge, judging_name(judging)) for judge in judges]
    found = [_MEASURED.get(key) for key in keys]
    if found and all(n is not None for n in found):
        return VerdictLength(round(sum(found) / len(found)), True)  # type: ignore[arg-type]
    why = next((_UNMEASURED[key] for key in keys if key in _UNMEASURED), "")
    return VerdictLength(verdict_tokens(judging, max_tokens), False, why)


def estimate_text(
    tokens: tuple[int, int], price: Price | None = None, verdict: VerdictLength | None = None
) -> str:
    """An estimate (prompt, completion) in words, with how the completion was had (`verdict`)
    and its cost when priced."""
    prompt, completion = tokens
    text = f"estimated {prompt} prompt + {completion} completion tokens"
    if verdict is not None:
        text += f" (completion {verdict.words()})"
    if price is not None:
        one = cost({"prompt_tokens": prompt, "completion_tokens": completion}, price)
        text += f", about {one:.4f} at {price.text()} per million"
    return text


def answers_estimate(
    judging: Judging,
    answers: Iterable[tuple[Item, str | None]],
    repeats: HasRepeats | None = None,
    judges: int = 1,
    max_tokens: int | None = None,
    each: int | None = None,
) -> tuple[int, int]:
    """The (prompt, completion) tokens of judging these answers: each answer's requests
    (their prompts by `messages_tokens`) as often as re-judging judges it, times the judges;
    each reply `each` tokens (`verdict_length`), else the benchmark's declared verdict
    (`verdict_tokens`)."""
    each = verdict_tokens(judging, max_tokens) if each is None else each
    prompt = completion = 0
    for item, answer in answers:
        times = repeats.of(item["id"]) if repeats is not None else 1
        requests = judging.requests(item, answer)
        prompt += times * sum(messages_tokens(request.messages) for request in requests)
        completion += times * each * len(requests)
    return prompt * judges, completion * judges


def reference_estimate(
    judging: Judging,
    items: Iterable[Item],
    repeats: HasRepeats | None = None,
    judges: int = 1,
    max_tokens: int | None = None,
    sample: int = ESTIMATE_SAMPLE,
    each: int | None = None,
) -> tuple[int, int]:
    """`answers_estimate` before generation: each item's reference answer (`item["answer"]`)
    stands in for the model's, not written yet; each reply `each` tokens (`verdict_length`) or
    the declared figure. Over `sample` items at most, spread evenly and
    scaled to all: said when a task loads, it must not delay the first request."""
    listed = list(items)
    chosen = listed[:: max(1, math.ceil(len(listed) / sample))] if sample > 0 else listed
    answers = ((item, item.get("answer")) for item in chosen)
    prompt, completion = answers_estimate(judging, answers, repeats, judges, max_tokens, each)
    scale = len(listed) / len(chosen) if chosen else 0.0
    return round(prompt * scale), round(completion * scale)

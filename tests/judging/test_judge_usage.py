"""Known answers for the judge's token counts, their cost and the estimate (`judging/usage.py`):
sums worked out by hand, a cached reply counted as 0 new tokens, prices parsed or refused in
one line naming the form."""

from __future__ import annotations

import pytest

from inspect_culture.judging.cache import JudgeConfigError
from inspect_culture.judging.constraints import VerdictFormat
from inspect_culture.judging.options import inspect_options, metadata_options
from inspect_culture.judging.protocol import JudgeReply, JudgeRequest, user_message
from inspect_culture.judging.usage import (
    DEFAULT_VERDICT_TOKENS,
    Price,
    TokenUsage,
    add_tokens,
    answers_estimate,
    cost,
    cost_lines,
    parse_price,
    reference_estimate,
    run_tokens,
    sample_tokens,
    text_tokens,
    usage_of,
    verdict_tokens,
)

FMT = VerdictFormat("x", ("[[", ("v", ("A", "B")), "]]"))


def reply(prompt: int, completion: int, *, cached: bool = False) -> JudgeReply:
    return JudgeReply("[[A]]", cached=cached, usage=TokenUsage(prompt, completion))


def test_a_sample_record_sums_each_judges_replies_over_its_judgings() -> None:
    judgings = [
        {"judge_1": [reply(100, 20), reply(110, 30)], "judge_2": [reply(7, 3, cached=True)]},
        {
            "judge_1": [reply(50, 5), JudgeReply("[[B]]")],  # answered, no usage
            "judge_2": [JudgeReply(None, error="HTTP 500")],  # failed: a call, no tokens
        },
    ]
    assert sample_tokens(judgings) == {
        "judge_1": {
            "calls": 4,
            "cached": 0,
            "prompt_tokens": 260,
            "completion_tokens": 55,
            "unreported": 1,
        },
        "judge_2": {  # the cached reply's usage is not counted: 0 new tokens
            "calls": 1,
            "cached": 1,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "unreported": 0,
        },
    }


def test_run_totals_add_the_samples_and_skip_records_without_tokens() -> None:
    one = {"judge_1": {"calls": 1, "cached": 0, "prompt_tokens": 10, "completion_tokens": 2}}
    two = {"judge_1": {"calls": 2, "cached": 1, "prompt_tokens": 30, "completion_tokens": 4}}
    assert run_tokens([one, None, two, {}]) == {  # type: ignore[list-item]
        "judge_1": {
            "calls": 3,
            "cached": 1,
            "prompt_tokens": 40,
            "completion_tokens": 6,
            "unreported": 0,
        }
    }
    assert add_tokens({}, {"calls": 1})["calls"] == 1


def test_cost_per_million_tokens() -> None:
    tokens = {"prompt_tokens": 2_000_000, "completion_tokens": 500_000}
    assert cost(tokens, Price(2.5, 10)) == pytest.approx(5.0 + 5.0)
    assert cost({"prompt_tokens": 1234, "completion_tokens": 0}, Price(1, 1)) == pytest.approx(
        0.001234
    )


@pytest.mark.parametrize(
    ("given", "price"),
    [
        ("2.5,10", Price(2.5, 10.0)),
        (" 0.15 , 0.6 ", Price(0.15, 0.6)),
        ([3, 15], Price(3.0, 15.0)),
        ("0,0", Price(0.0, 0.0)),
    ],
)
def test_parse_price_takes_in_comma_out(given: object, price: Price) -> None:
    assert parse_price(given) == price


@pytest.mark.parametrize("given", ["2.5", "2.5;10", "a,b", "-1,2", "1,2,3", "nan,1", "", 7, True])
def test_parse_price_refuses_in_one_line_naming_the_form(given: object) -> None:
    with pytest.raises(JudgeConfigError) as raised:
        parse_price(given, "--judge-price")
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("--judge-price=") and "IN,OUT" in message and "2.5,10" in message


def test_every_entry_point_takes_the_price_option() -> None:
    assert inspect_options({"judge_price": "2.5,10"}).judge_price == Price(2.5, 10)
    assert inspect_options({}).judge_price is None
    taken = metadata_options({"judge_price": [1, 2], "judge_later": True}, env={})
    assert taken.judge_price == Price(1, 2)
    with pytest.raises(JudgeConfigError, match="judge_price='x'"):
        metadata_options({"judge_price": "x", "judge_later": True}, env={})


def test_cost_lines_say_each_judge_its_cached_replies_and_the_cost() -> None:
    totals = {
        "judge_1": {"calls": 3, "cached": 2, "prompt_tokens": 1000, "completion_tokens": 100},
        "judge_2": {"calls": 1, "cached": 0, "prompt_tokens": 0, "unreported": 1},
    }
    lines = cost_lines(totals, {"judge_1": "gpt-x", "judge_2": "local"}, Price(2, 10))
    assert lines[0] == (
        "judge_1 (gpt-x): 3 calls, 2 cached (0 new tokens), 1000 prompt + 100 completion "
        "tokens, cost 0.0030 at 2,10 per million"
    )
    assert "1 replies without a token count" in lines[1]
    assert "cost" not in cost_lines(totals, {}, None)[0]


def test_usage_of_a_reply_reads_the_two_counts_or_nothing() -> None:
    assert usage_of({"usage": {"prompt_tokens": 12, "completion_tokens": 3}}) == TokenUsage(12, 3)
    assert usage_of({"usage": None}) is None
    assert usage_of({"usage": {"prompt_tokens": "12", "completion_tokens": 3}}) is None
    assert usage_of([]) is None


def test_text_tokens_counts_cjk_by_character_and_ascii_by_four() -> None:
    assert text_tokens("") == 0
    assert text_tokens("abcdefgh") == 2  # 8 ASCII characters
    assert text_tokens("中国文化") == 4  # one a Han character
    assert text_tokens("ひらがな、カタカナ") == 9  # kana and the ideographic comma
    assert text_tokens("مرحبا") == 3  # 5 Arabic letters, 2 a token, rounded up
    assert text_tokens("ab 中文") == 3  # 3 ASCII (0.75) rounded up with the Han 2


def test_estimate_adds_the_chat_formats_tokens_and_a_verdict_each() -> None:
    requests = [
        JudgeRequest(user_message("abcdefgh"), FMT),
        JudgeRequest(user_message("中文"), FMT),
    ]

    class Judging:
        def requests(self, item: dict, answer: str | None) -> list[JudgeRequest]:
            return requests

        def outcome(self, *_: object) -> None: ...

    # (2 + 4 + 3) + (2 + 4 + 3): text, per message, per request
    assert answers_estimate(Judging(), [({"id": "q"}, "a")], each=150) == (18, 300)


def test_verdict_tokens_declared_or_the_default_capped_by_max_tokens() -> None:
    class Declared:
        verdict_tokens = 120

    assert verdict_tokens(Declared()) == 120
    assert verdict_tokens(object()) == DEFAULT_VERDICT_TOKENS
    assert verdict_tokens(Declared(), max_tokens=50) == 50


def test_the_estimate_before_generation_reads_a_sample_and_scales_it() -> None:
    """A task of 1,200 items is estimated from 400 of them (every third), scaled to all."""
    asked: list[str] = []

    class Judging:
        verdict_tokens = 100

        def requests(self, item: dict, answer: str | None) -> list[JudgeRequest]:
            asked.append(item["id"])
            return [JudgeRequest(user_message(f"{answer}"), FMT)]

        def outcome(self, *_: object) -> None: ...

    items = [{"id": f"q{i}", "answer": "abcdefgh"} for i in range(1200)]
    # each request: 2 tokens of text + 4 + 3; each reply 100
    assert reference_estimate(Judging(), items) == (1200 * 9, 1200 * 100)
    assert len(asked) == 400
    asked.clear()
    assert reference_estimate(Judging(), items[:10], judges=3) == (3 * 10 * 9, 3 * 10 * 100)
    assert len(asked) == 10

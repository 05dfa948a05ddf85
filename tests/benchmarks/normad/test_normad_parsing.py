import pytest

from inspect_culture.benchmarks.normad.parse import parse_answer


@pytest.mark.parametrize(
    ("text", "label", "rule"),
    [
        ("Yes", "yes", "first_word"),
        ("  no. The host would be offended.", "no", "first_word"),
        ("Neither", "neutral", "first_word"),
        ("Neutral", "neutral", "first_word"),
        ("**Answer:** No", "no", "first_word"),
        ("Answer (options Yes, No or Neither): Yes", "yes", "first_word"),
        ("# Answer\nNeither", "neutral", "first_word"),
        ("Final answer - yes", "yes", "first_word"),
        ("1) Yes", "yes", "option_number"),
        ("2", "no", "option_number"),
        ("Option 3", "neutral", "option_number"),
        ("(2) No", "no", "option_number"),
        ("3. Neither", "neutral", "option_number"),
        ("The answer is No.", "no", "single_label_word"),
        ("I would say neither applies here.", "neutral", "single_label_word"),
        ("I think yes, but also no.", None, "unparsed"),
        ("It is not acceptable.", None, "unparsed"),
        ("Nobody would mind.", None, "unparsed"),
        ("1.5", None, "unparsed"),
        ("3 people would object, so no.", "no", "single_label_word"),
        ("2nd option", None, "unparsed"),
        ("2 no", "no", "option_number"),
        ('"No", though yes elsewhere', "no", "first_word"),
        ("", None, "unparsed"),
        (None, None, "unparsed"),
    ],
)
def test_strict(text: str | None, label: str | None, rule: str) -> None:
    parsed = parse_answer(text, "strict")
    assert (parsed.label, parsed.rule) == (label, rule)


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Yes", "yes"),
        ("No, but Yes in some cases", "yes"),  # "Yes" anywhere wins
        ("Neither. Note that the host...", "no"),  # "No" matches "Note"
        ("yes", "neutral"),  # case-sensitive: lower case is not matched
        ("I pick option 2", "no"),
        ("OPTION 3", "neutral"),
        ("Neither", "neutral"),
        ("Unclear", "neutral"),  # fallback
        ("", "neutral"),
    ],
)
def test_upstream_rules(text: str, label: str) -> None:
    assert parse_answer(text, "upstream").label == label


def test_unknown_parser_names_allowed_values() -> None:
    with pytest.raises(ValueError, match="parser='lenient'.*strict, upstream"):
        parse_answer("Yes", "lenient")

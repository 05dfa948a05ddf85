import pytest

from inspect_culture.benchmarks.cqbench.metrics import ad_metrics, ve_metrics, vs_metrics
from inspect_culture.benchmarks.cqbench.parse import (
    effective_prediction,
    extract_ad_answer,
    match_option,
    read_ve_judgement,
    score_ad,
    score_ve,
    score_vs,
    select_values,
)
from inspect_culture.benchmarks.cqbench.spec import AdOutcome, VeOutcome, VsOutcome

AGREE = [" agree ", " neither agree nor disagree ", " disagree"]


@pytest.mark.parametrize("options", [AGREE, list(reversed(AGREE))])
@pytest.mark.parametrize(
    ("answer", "expected", "rule"),
    [
        ("agree", " agree ", "exact"),
        ("Disagree.", " disagree", "exact"),
        ("I think Ana would disagree", " disagree", "phrase"),
        ("Neither agree nor disagree, really", " neither agree nor disagree ", "phrase"),
        ("strongly agree", " agree ", "phrase"),
        ("agre", " agree ", "fuzzy"),
        ("agree or disagree", None, "unparsed"),  # names two options
        ("It depends on the context", None, "unparsed"),
        ("", None, "unparsed"),
    ],
)
def test_match_option_is_order_independent(options, answer, expected, rule) -> None:
    assert match_option(answer, options) == (expected, rule)


@pytest.mark.parametrize("neutral", [" neither agree or disagree ", "neither agree/disagree"])
@pytest.mark.parametrize("answer", ["Neither agree nor disagree", "neither disagree or agree"])
def test_neutral_option_in_other_words_is_matched(neutral: str, answer: str) -> None:
    """The social and ethical files spell the neutral option differently from the prompt's
    example; naming both "agree" and "disagree" must not make it unparsable."""
    options = [" agree ", neutral, " disagree"]
    for ordered in (options, options[::-1]):
        assert match_option(answer, ordered) == (neutral, "words")
    assert match_option("agree and disagree", options) == (None, "unparsed")


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Reasoning...\n[Answer]: Disagree", "Disagree"),
        ("**Answer** agree", "agree"),
        ("<think>hmm</think>\nNot often", "Not often"),
        ("[Answer]: a [Answer]: b", "a [Answer]: b"),  # the first marker occurrence
        ("agree", "agree"),
        # the justification after the answer line names another option: not read
        ("[Answer]: Disagree\n\nBecause she would never agree.", "Disagree"),
        ("[Answer]:\n\n  Agree  \nmore text", "Agree"),
    ],
)
def test_extract_ad_answer(text: str, answer: str) -> None:
    assert extract_ad_answer(text) == answer


def test_merged_pairs_accept_the_partner_only_when_asked() -> None:
    said, gold = " Not often ", "Not at all often"
    assert effective_prediction(said, gold, merged=True) == "not at all often"
    assert effective_prediction(said, gold, merged=False) == "not often"
    assert effective_prediction("Very often", "Not at all often", merged=True) == "very often"
    assert effective_prediction(None, "agree", merged=True) is None


def test_ad_metrics_by_hand() -> None:
    outcomes = [
        AdOutcome("q1", "social", "agree", "agree"),
        AdOutcome("q2", "social", "agree", "disagree"),
        AdOutcome("q3", "ethical", "disagree", "disagree"),
        AdOutcome("q4", "ethical", "disagree", None),
    ]
    m = ad_metrics(outcomes)
    assert m["accuracy"] == 0.5 and m["unparsed_rate"] == 0.25
    # agree: P=1/1 R=1/2 F1=2/3; disagree: P=1/2 R=1/2 F1=1/2 -> macro 7/12
    assert m["macro_f1"] == pytest.approx(7 / 12)
    assert m["accuracy_social"] == 0.5 and m["accuracy_ethical"] == 0.5


OPTIONS = [f"Statement {i}--agree" for i in range(12)] + [
    "Work matters--agree",
    "Obey laws--disagree",
    "Family first--agree",
]
GOLD = ["Work matters--agree", "Obey laws--disagree"]


def test_select_values_reads_lines_with_separator() -> None:
    text = "Here you go:\n1. Work matters--agree\n- obey laws -- disagree\n* Made up--agree\nno separator line"
    selected, unmatched = select_values(text, OPTIONS)
    assert selected == {"Work matters--agree", "Obey laws--disagree"}
    assert unmatched == 1  # "Made up--agree" names no option


RECORD = {"options": OPTIONS, "gold_values": GOLD, "category": "social"}


def test_vs_story_by_hand() -> None:
    # selected: Work matters (TP), Family first (FP), one unmatched line (FP) -> P = 1/3, R = 1/2
    story = score_vs("s1", RECORD, "Work matters--agree\nFamily first--agree\nNothing--agree")
    assert (story.precision, story.recall, story.empty) == (pytest.approx(1 / 3), 0.5, False)
    assert story.f1 == pytest.approx(2 * (1 / 3) * 0.5 / (1 / 3 + 0.5))
    empty = score_vs("s1", RECORD, "I cannot tell.")
    assert (empty.precision, empty.recall, empty.empty, empty.skipped) == (0.0, 0.0, True, False)
    assert score_vs("s1", RECORD, "I cannot tell.", skip_empty=True).skipped
    assert not score_vs("s1", RECORD, "[Final answer]:\nWork matters--agree", True).skipped


def test_vs_metrics_f1_of_means_and_upstream_skip() -> None:
    stories = [
        VsOutcome("s1", "social", 1.0, 0.5, False),
        VsOutcome("s2", "social", 0.5, 1.0, False),
        VsOutcome("s3", "social", 0.0, 0.0, True),
    ]
    m = vs_metrics(stories)
    # mean P = 1.5/3 = 0.5, mean R = 0.5 -> F1 = 0.5; per-story F1 = 2/3, 2/3, 0 -> mean 4/9
    assert m["precision"] == 0.5 and m["recall"] == 0.5 and m["f1"] == 0.5
    assert m["mean_story_f1"] == pytest.approx(4 / 9)
    assert m["empty_rate"] == pytest.approx(1 / 3) and m["n_stories"] == 3
    upstream = vs_metrics([*stories[:2], VsOutcome("s3", "social", 0.0, 0.0, True, True)])
    # mean P = 0.75, mean R = 0.75 -> F1 = 0.75 over the two stories kept
    assert upstream["f1"] == pytest.approx(0.75) and upstream["n_stories"] == 2


def test_ve_recall_pools_values_and_counts_unscored() -> None:
    m = ve_metrics([VeOutcome("a", "social", (1.0, 0.5)), VeOutcome("b", "ethical", (0.0, None))])
    assert m["recall"] == pytest.approx(1.5 / 3)
    assert (m["n_scored"], m["n_unscored"]) == (3.0, 1.0)
    assert m["recall_social"] == 0.75 and m["recall_ethical"] == 0.0
    # nothing scored: no number, not 0
    assert "recall" not in ve_metrics([VeOutcome("a", "social", (None,))])


def test_parse_ve_judgement_places_scores_by_index() -> None:
    reply = (
        "[Reasoning]:\n[Ground truth 1]: discussed\n[Final answer]:\n"
        "[Ground truth 2]:0.5\n[Ground truth 1]: 1\n[Ground truth 4]:0\n[Ground truth 3]: 0.7\n"
    )
    # value 3's 0.7 is off-scale and value 5 was never scored: both unscored, not 0
    assert read_ve_judgement(reply, 5)[0] == [1.0, 0.5, None, 0.0, None]
    assert read_ve_judgement("no final answer here", 2)[0] == [None, None]
    assert read_ve_judgement(None, 1)[0] == [None]


def test_vs_empty_rate_is_reported_when_every_story_is_skipped() -> None:
    stories = [VsOutcome(s, "social", 0.0, 0.0, True, True) for s in ("s1", "s2")]
    assert vs_metrics(stories) == {"n_stories": 0.0, "empty_rate": 1.0}
    assert vs_metrics([]) == {"n_stories": 0.0, "empty_rate": 0.0}


def test_score_ad_and_score_ve_build_the_outcome_records() -> None:
    record = {"options": AGREE, "gold": " Agree ", "category": "social"}
    option, rule, outcome = score_ad("q1", record, "[Answer]: agree")
    assert (option, rule) == (" agree ", "exact")
    assert outcome == AdOutcome("q1", "social", "agree", "agree")
    assert AdOutcome.from_record(outcome.to_record()) == outcome
    ve_record = {"gold_values": ["A--agree", "B--agree"], "category": "ethical"}
    reply = "[Final answer]:\n[Ground truth 1]: 1\n[Ground truth 2]: 0.5"
    assert score_ve("v1", ve_record, reply, None) == VeOutcome("v1", "ethical", (1.0, 0.5))
    # a failed judge call leaves every value unscored, whatever text came back
    assert score_ve("v1", ve_record, reply, "judge call failed").value_scores == (None, None)
    record_json = {"sample_id": "v1", "category": "ethical", "value_scores": [1.0, None]}
    assert VeOutcome.from_record(record_json).value_scores == (1.0, None)


def test_epochs_count_each_question_once() -> None:
    """Question q1 answered right in 2 of 3 epochs, q2 wrong in its one: accuracy is the mean of
    the questions' means (2/3 + 0) / 2, not 2 of 4 answers; macro-F1 pools every judgment."""
    ad = [AdOutcome("q1", "social", "agree", p) for p in ("agree", "agree", None)]
    ad.append(AdOutcome("q2", "ethical", "disagree", "agree"))
    m = ad_metrics(ad)
    assert m["accuracy"] == pytest.approx(1 / 3) and m["accuracy_social"] == pytest.approx(2 / 3)
    assert m["unparsed_rate"] == pytest.approx(1 / 6)
    # agree: P = 2/3, R = 2/3; disagree: P = R = 0 (pooled over the 4 judgments)
    assert m["macro_f1"] == pytest.approx(1 / 3)
    vs = [VsOutcome("s1", "social", p, 1.0, False) for p in (1.0, 0.5, 0.0)]
    vs += [
        VsOutcome("s2", "social", 0.0, 0.0, True, True),
        VsOutcome("s2", "social", 1.0, 0.5, False),
    ]
    v = vs_metrics(vs)
    # s1: P = 0.5, R = 1; s2 (its empty epoch skipped): P = 1, R = 0.5; empty: (0 + 0.5) / 2
    assert (v["precision"], v["recall"], v["n_stories"]) == (0.75, 0.75, 2.0)
    assert v["empty_rate"] == 0.25
    ve = ve_metrics(
        [VeOutcome("a", "social", (1.0, None)), VeOutcome("a", "social", (0.0, None)),
         VeOutcome("b", "social", (0.5, 1.0))]
    )  # fmt: skip
    # value a1 = mean(1, 0) = 0.5; a2 never scored; b1 0.5, b2 1: 3 values of 4 questions' values
    assert (ve["n_scored"], ve["n_unscored"]) == (3.0, 1.0)
    assert ve["recall"] == pytest.approx(2 / 3)

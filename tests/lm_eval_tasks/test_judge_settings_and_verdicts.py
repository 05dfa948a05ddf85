import pytest

from inspect_culture.benchmarks.care.judging import read_rating
from inspect_culture.judging.options import JudgeConfigError, resolve_judge_settings


@pytest.mark.parametrize(
    ("text", "rating"),
    [
        ("Explanation...\nRating: [[7]]", 7.0),
        ("Rating: [[3]] ... on reflection, Rating: [[8.5]]", None),  # rating-2: ambiguous
        ("Rating: [[8.5]] ... again, Rating: [[8.5]]", 8.5),  # the same rating repeated
        ("rating:[[ 10 ]]", 10.0),
        ("I give it [[6]].", 6.0),  # fallback: bare [[n]]
        ("[[2]] then Rating: [[9]] then [[4]]", None),  # rating-2: every rating counts
        ("Rating: [[11]]", None),  # out of range
        ("Rating: [[0]]", None),
        ("Rating: 7", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_rating(text, rating) -> None:
    assert read_rating(text).rating == rating


def test_metadata_wins_over_environment() -> None:
    env = {
        "INSPECT_CULTURE_JUDGE_MODEL": "env-model",
        "INSPECT_CULTURE_JUDGE_BASE_URL": "http://env/v1",
        "INSPECT_CULTURE_JUDGE_API_KEY": "k",
    }
    settings = resolve_judge_settings({"judge_model": "meta-model"}, env)
    expected = ("meta-model", "http://env/v1", "k")
    assert (settings.model, settings.base_url, settings.api_key) == expected
    assert resolve_judge_settings({}, env).model == "env-model"


def test_missing_judge_says_how_to_configure() -> None:
    with pytest.raises(JudgeConfigError, match="judge_model.*INSPECT_CULTURE_JUDGE_MODEL"):
        resolve_judge_settings({}, {})


def test_api_key_in_metadata_is_refused() -> None:
    with pytest.raises(JudgeConfigError, match="INSPECT_CULTURE_JUDGE_API_KEY"):
        resolve_judge_settings({"judge_model": "m", "judge_api_key": "sk"}, {})


def test_numeric_options_are_validated() -> None:
    settings = resolve_judge_settings({"judge_model": "m", "judge_concurrency": "8"}, {})
    assert settings.concurrency == 8
    with pytest.raises(
        JudgeConfigError, match="judge_timeout='soon': must be a number of seconds > 0"
    ):
        resolve_judge_settings({"judge_model": "m", "judge_timeout": "soon"}, {})
    with pytest.raises(JudgeConfigError, match="judge_concurrency=0: must be an integer >= 1"):
        resolve_judge_settings({"judge_model": "m", "judge_concurrency": 0}, {})
    with pytest.raises(JudgeConfigError, match="judge_max_retries=-1: must be an integer >= 0"):
        resolve_judge_settings({"judge_model": "m", "judge_max_retries": -1}, {})
    with pytest.raises(JudgeConfigError, match="judge_max_retries='²': must be an integer >= 0"):
        resolve_judge_settings({"judge_model": "m", "judge_max_retries": "²"}, {})


def test_a_null_seed_reaches_the_scoring_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--metadata '{"judge_seed": null}'` (endpoints without seed support) holds for the
    judge calls, not only for the settings recorded in each doc."""
    from inspect_culture.judging.http_client import run_sync
    from inspect_culture.judging.options import metadata_options
    from inspect_culture.lm_eval_tasks.judge import batch

    metadata = {
        "judge_model": "m",
        "judge_base_url": "http://127.0.0.1:9/v1",
        "judge_seed": None,
        "judge_preflight": False,  # nothing listens on port 9
    }
    options = metadata_options(metadata)  # as a loader builds them
    sent: list = []

    async def recording(self: object, *_: object) -> list:
        sent.append(self)
        return []

    monkeypatch.setattr(batch.OpenAICompatibleJudge, "judge_all", recording)
    [transport] = batch.transports("t", options)
    run_sync(lambda: transport.send([], 1))
    [settings] = options.judges
    assert settings.seed is None and sent[0].settings.seed is None


def test_inspect_judge_caps_replies_like_lm_eval_unless_the_grader_says_otherwise() -> None:
    from inspect_ai.model import GenerateConfig, get_model

    from inspect_culture.inspect_adapter.judge import judge_config
    from inspect_culture.judging.options import JudgeSettings

    default = judge_config(get_model("mockllm/model"))
    assert default.max_tokens == JudgeSettings(model="m", base_url=None).max_tokens == 1024
    assert default.temperature == 0.0 and default.seed is not None
    thinking = judge_config(get_model("mockllm/model", config=GenerateConfig(max_tokens=8192)))
    assert thinking.max_tokens == 8192 and thinking.temperature == 0.0

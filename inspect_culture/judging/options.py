"""Judge settings for lm-eval, from task metadata or the environment, checked when the task
loads. The API key comes only from the environment: lm-eval writes metadata to its results."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import urlparse

from inspect_culture.benchmarks.choices import is_whole_number_text
from inspect_culture.judging.cache import OPENAI_BASE_URL, JudgeConfigError, JudgeId, endpoint_key
from inspect_culture.judging.constraints import (
    CONSTRAINT_VERSION,
    JudgeConstraintError,
    check_constraint,
)
from inspect_culture.judging.defaults import DEFAULT_MAX_TOKENS, DEFAULT_SEED
from inspect_culture.judging.jury import RepeatedJudgeError, model_names, refuse_repeated_judges
from inspect_culture.judging.preflight import Knobs, endpoint_problem
from inspect_culture.judging.redaction import url_secrets, without_userinfo
from inspect_culture.judging.repeats import Repeats, check_repeats

MODEL_ENV = "INSPECT_CULTURE_JUDGE_MODEL"
BASE_URL_ENV = "INSPECT_CULTURE_JUDGE_BASE_URL"
DEFAULT_BASE_URL = OPENAI_BASE_URL
API_KEY_ENV = "INSPECT_CULTURE_JUDGE_API_KEY"
PREFLIGHT_ENV = "INSPECT_CULTURE_JUDGE_PREFLIGHT"  # "off" skips the check at load


def _integer(minimum: int, key: str, value: Any) -> int:
    number = int(value) if isinstance(value, str) and is_whole_number_text(value) else value
    if isinstance(number, bool) or not isinstance(number, int) or number < minimum:
        raise JudgeConfigError(f"{key}={value!r}: must be an integer >= {minimum}")
    return number


def _positive(key: str, value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not number > 0 or number == float("inf"):
        raise JudgeConfigError(f"{key}={value!r}: must be a number of seconds > 0")
    return number


# The numeric `judge_<name>` metadata options: the JudgeSettings field each sets, and its check.
NUMERIC: dict[str, Callable[[str, Any], Any]] = {
    "concurrency": partial(_integer, 1),
    "max_concurrency": partial(_integer, 1),
    "timeout": _positive,
    "max_retries": partial(_integer, 0),
    "retry_budget": _positive,
    "max_tokens": partial(_integer, 1),
    "seed": lambda key, value: None if value is None else _integer(0, key, value),
}
SWITCHES = ("judge_later", "judge_preflight")
# Every judge key a judged task accepts in --metadata (the API key is refused, by design).
JUDGE_KEYS = (
    "judge_model",
    "judge_models",
    "judge_base_url",
    "judge_constraint",
    *(f"judge_{name}" for name in NUMERIC),
    "judge_adaptive_concurrency",
    *SWITCHES,
)
REPEAT_KEYS = ("judge_repeats", "rejudge_fraction")  # re-judging: `judging/repeats.py`


def check_switch(key: str, value: Any) -> bool:
    """A boolean option; "true"/"false" strings too, since --metadata values may be text."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise JudgeConfigError(f"{key}={value!r}: must be true or false")


def check_base_url(value: Any) -> str:
    parsed = urlparse(str(value))
    if not isinstance(value, str) or parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise JudgeConfigError(
            f"judge_base_url={value!r}: must be an http:// or https:// URL of the API root, "
            "e.g. http://127.0.0.1:8000/v1"
        )
    if problem := endpoint_problem(value, "judge_base_url"):
        raise JudgeConfigError(problem)
    return value


# What the check before generation names when it says what to fix.
KNOBS = Knobs(
    key=f"{API_KEY_ENV} (or OPENAI_API_KEY)",
    base_url="judge_base_url",
    concurrency="judge_concurrency",
    switch_off="a one-request check when the task loads; --metadata "
    f"'{{\"judge_preflight\": false}}' or {PREFLIGHT_ENV}=off skips it, e.g. for offline replays "
    "from the judge cache",
)


@dataclass(frozen=True)
class JudgeSettings:
    model: str
    base_url: str | None
    api_key: str = field(default="", repr=False)
    temperature: float = 0.0
    seed: int | None = DEFAULT_SEED
    max_tokens: int = DEFAULT_MAX_TOKENS
    concurrency: int = 32  # calls in flight at the start (all the time, when not adaptive)
    # follow the judge's rate limits (429, x-ratelimit-* headers) between 1 and max_concurrency
    adaptive_concurrency: bool = True
    max_concurrency: int = 256
    timeout: float = 120.0  # seconds, one attempt
    max_retries: int = 10
    retry_budget: float = 300.0  # seconds, one judgment: every attempt and wait
    constraint: str = "none"  # constrained decoding of the verdict (constraints.py)

    def generation_settings(self) -> dict[str, Any]:
        """What the result records include (never the key): the constraint only when on."""
        settings = self.sampling()
        if self.constraint != "none":  # a new constraint version misses old verdicts
            settings |= {"constraint": self.constraint, "constraint_version": CONSTRAINT_VERSION}
        return settings

    def secrets(self) -> tuple[str, ...]:
        """What no written text may hold: the key, and the credentials in the URL."""
        return tuple(s for s in (self.api_key, *url_secrets(self.base_url)) if s)

    def judge_id(self) -> JudgeId:
        return JudgeId(self.model, endpoint_key(self.base_url or DEFAULT_BASE_URL))

    def sampling(self) -> dict[str, Any]:
        """What the shared cache key takes as sampling (the constraint goes in on its own)."""
        return {"temperature": self.temperature, "seed": self.seed, "max_tokens": self.max_tokens}

    def public(self) -> dict[str, Any]:
        shown = self.shown_url() if self.base_url else None
        return {"judge_model": self.model, "judge_base_url": shown}

    def shown_url(self) -> str:
        """The API root for messages and result files: never credentials written into it."""
        return without_userinfo(self.base_url) if self.base_url else DEFAULT_BASE_URL

    def endpoint(self) -> str:
        """The host the judge is reached at, for messages (never the key)."""
        return urlparse(self.shown_url()).netloc


def refuse_written_credentials(metadata: Mapping[str, Any]) -> None:
    """lm-eval writes --metadata into its results file: credentials there would be written."""
    given = metadata.get("judge_base_url")
    urls = given if isinstance(given, list) else str(given or "").split(",")  # a jury's form too
    for url in (u.strip() if isinstance(u, str) else u for u in urls):
        if not (isinstance(url, str) and "@" in urlparse(url).netloc):
            continue
        raise JudgeConfigError(
            f"judge_base_url={without_userinfo(url)!r} carries credentials (user:password@), and "
            f"lm-eval writes --metadata into its results file. Set {BASE_URL_ENV} to the URL with "
            "its credentials instead (read from the environment, recorded without them) and leave "
            "judge_base_url out of --metadata."
        )


def resolve_judge_settings(
    metadata: Mapping[str, Any], env: Mapping[str, str] | None = None
) -> JudgeSettings:
    """Metadata wins over the environment; a missing model is an error naming both ways."""
    env = os.environ if env is None else env
    if "judge_api_key" in metadata:
        raise JudgeConfigError(
            f"judge_api_key must not be passed in --metadata (lm-eval writes metadata to its "
            f"results file); set the environment variable {API_KEY_ENV} instead"
        )
    model = metadata.get("judge_model") or env.get(MODEL_ENV)
    if not model:
        raise JudgeConfigError(
            "no judge configured: pass --metadata "
            '\'{"judge_model": "<model>", "judge_base_url": "http://host:port/v1"}\' '
            f"or set {MODEL_ENV} and {BASE_URL_ENV} (and {API_KEY_ENV} if the endpoint needs a "
            "key)"
        )
    if not isinstance(model, str):
        raise JudgeConfigError(f"judge_model={model!r}: must be a model name (text)")
    options: dict[str, Any] = {
        name: check(f"judge_{name}", metadata[f"judge_{name}"])
        for name, check in NUMERIC.items()
        if f"judge_{name}" in metadata
    }
    if "judge_adaptive_concurrency" in metadata:
        options["adaptive_concurrency"] = check_switch(
            "judge_adaptive_concurrency", metadata["judge_adaptive_concurrency"]
        )
    start = options.get("concurrency", JudgeSettings.concurrency)
    # unset: the default, or the start where a user starts above it
    most = options.setdefault("max_concurrency", max(start, JudgeSettings.max_concurrency))
    if most < start:
        raise JudgeConfigError(
            f"judge_max_concurrency={most} is below judge_concurrency={start}: the most calls "
            "in flight cannot be fewer than the calls it starts with"
        )
    try:
        options["constraint"] = check_constraint(metadata.get("judge_constraint"))
    except JudgeConstraintError as exc:
        raise JudgeConfigError(str(exc)) from None
    base_url = metadata.get("judge_base_url") or env.get(BASE_URL_ENV) or None
    return JudgeSettings(
        model=model,
        base_url=None if base_url is None else check_base_url(base_url),
        api_key=env.get(API_KEY_ENV, "") or env.get("OPENAI_API_KEY", ""),
        **options,
    )


def resolve_jury_settings(
    metadata: Mapping[str, Any], env: Mapping[str, str] | None = None
) -> tuple[JudgeSettings, ...]:
    """The judges: `judge_model` alone, or a jury from `judge_models` (a list, or names split by
    commas) with one `judge_base_url` for all or a list of one per model; every other judge
    option applies to each judge."""
    if "judge_models" not in metadata:
        return (resolve_judge_settings(metadata, env),)
    if "judge_model" in metadata:
        raise JudgeConfigError(
            "pass judge_model (one judge) or judge_models (a jury of judges), not both"
        )
    names = _model_list(metadata["judge_models"])
    urls = metadata.get("judge_base_url")
    if isinstance(urls, str) and "," in urls:  # the command line's form
        urls = [url.strip() for url in urls.split(",")]
    if isinstance(urls, list):
        if len(urls) != len(names):
            raise JudgeConfigError(
                f"judge_base_url lists {len(urls)} URLs for {len(names)} judge_models: give one "
                "URL for every judge, or a single URL they all share"
            )
    else:
        urls = [urls] * len(names)
    common = {k: v for k, v in metadata.items() if k not in ("judge_models", "judge_base_url")}
    jury = tuple(
        resolve_judge_settings(
            {**common, "judge_model": name, **({"judge_base_url": url} if url else {})}, env
        )
        for name, url in zip(names, urls)
    )
    entries = [(f"judge_models entry {n}", j.model, j.shown_url()) for n, j in enumerate(jury, 1)]
    try:
        refuse_repeated_judges(entries, '"judge_repeats" (e.g. "judge_repeats": 2)')
    except RepeatedJudgeError as exc:
        raise JudgeConfigError(str(exc)) from None
    return jury


def _model_list(value: Any) -> list[str]:
    if (names := model_names(value)) is not None:
        return names
    if isinstance(value, str | list) and value:
        listed = value.split(",") if isinstance(value, str) else value
        bad = next(n for n in listed if not (isinstance(n, str) and n.strip()))
        raise JudgeConfigError(f"judge_models={value!r}: {bad!r} is not a model name")
    raise JudgeConfigError(
        f"judge_models={value!r}: must be a list of model names (or names separated by commas)"
    )


def resolve_repeats(metadata: Mapping[str, Any]) -> Repeats:
    """`judge_repeats` and `rejudge_fraction` from --metadata (`judging/repeats.py`); re-judging
    needs a judge seed, the one thing that makes each judging its own request."""
    try:
        repeats = check_repeats(
            metadata.get("judge_repeats", 1), metadata.get("rejudge_fraction", 1.0)
        )
    except ValueError as exc:
        raise JudgeConfigError(str(exc)) from None
    if repeats.k > 1 and "judge_seed" in metadata and metadata["judge_seed"] is None:
        raise JudgeConfigError(
            f"judge_repeats={repeats.k} needs a judge seed (judging r sends the seed plus r-1): "
            "leave judge_seed out (the default seed) or give a number"
        )
    return repeats


def preflight_on(metadata: Mapping[str, Any], env: Mapping[str, str] | None = None) -> bool:
    """Metadata `judge_preflight: false` or INSPECT_CULTURE_JUDGE_PREFLIGHT=off skips it."""
    env = os.environ if env is None else env
    if not check_switch("judge_preflight", metadata.get("judge_preflight", True)):
        return False
    value = env.get(PREFLIGHT_ENV, "").strip().lower()
    if value not in ("", "on", "off"):
        raise JudgeConfigError(f"{PREFLIGHT_ENV}={value!r}: must be on or off")
    return value != "off"

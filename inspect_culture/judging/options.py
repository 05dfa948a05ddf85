"""The judge's options, each declared once (`OPTIONS`: default, check, help, where it is taken),
and the one value built from them once per entry point: `JudgeOptions`, from an Inspect task's
or scorer's parameters (`inspect_options`), or from lm-eval's --metadata and `culture-evals
judge`'s flags (`metadata_options`, its judges each a `JudgeSettings`, with the environment),
checked when the task loads. The API key comes only from the environment: lm-eval writes
metadata to its results."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import urlparse

from inspect_culture.benchmarks.choices import check_bool, is_whole_number_text
from inspect_culture.judging.cache import OPENAI_BASE_URL, JudgeConfigError, JudgeId, endpoint_key
from inspect_culture.judging.constraints import (
    CONSTRAINT_VERSION,
    check_constraint,
    constraint_record,
)
from inspect_culture.judging.defaults import DEFAULT_MAX_TOKENS, DEFAULT_SEED
from inspect_culture.judging.jury import RepeatedJudgeError, model_names, refuse_repeated_judges
from inspect_culture.judging.preflight import Knobs, endpoint_problem
from inspect_culture.judging.redaction import url_secrets, without_userinfo
from inspect_culture.judging.repeats import MAX_REPEATS, ONCE, Repeats, check_repeats
from inspect_culture.judging.usage import Price, as_number, parse_price

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
    number = as_number(value)
    if not 0 < number < math.inf:
        raise JudgeConfigError(f"{key}={value!r}: must be a number of seconds > 0")
    return number


def check_switch(key: str, value: Any) -> bool:
    """A boolean option; "true"/"false" strings too, since --metadata values may be text."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise JudgeConfigError(f"{key}={value!r}: must be true or false")


def _seconds_or_none(key: str, value: Any) -> float | None:
    """Inspect's judge_timeout: seconds > 0 for one judgment, or None (no limit of the user's)."""
    if value is None:
        return None
    number = as_number(value)
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"-T {key}={value!r}: {key} must be a number of seconds > 0")
    return number


def _temperature(key: str, value: Any) -> float:
    """A sampling temperature: a number >= 0 (0: greedy)."""
    number = as_number(value)
    if not math.isfinite(number) or number < 0:
        raise JudgeConfigError(f"{key}={value!r}: must be a number >= 0 (0, the default: greedy)")
    return number


def _constraint(key: str, value: Any) -> str:
    return check_constraint(value)


def _repeats(key: str, value: Any) -> int:
    return check_repeats(value).k  # with rejudge_fraction: checked as a pair by `check_repeats`


def _fraction(key: str, value: Any) -> float:
    return check_repeats(MAX_REPEATS, value).fraction


# Where an option is taken: Inspect's judged tasks (`-T`) and their judge scorers (`-S`, and the
# arguments a log records for `inspect score`), lm-eval's `--metadata` (and `culture-evals judge
# --metadata`), and a `culture-evals judge --<name>` flag.
TASK, SCORER, METADATA, FLAG = "task", "scorer", "metadata", "flag"


@dataclass(frozen=True)
class Option:
    """One judge option, declared once: its key, its default, its check (key and value in, the
    value checked out, or an error naming the key), its one-line help (`--help`'s, for a flag),
    where it is taken, and what it sets: a `JudgeSettings` field (`field`) and, in both
    harnesses, a field of each judge request (`sends`)."""

    name: str
    default: Any
    check: Callable[[str, Any], Any]
    help: str
    takes: frozenset[str]
    annotation: str = "Any"  # the Inspect parameter's type
    flag_type: Callable[[str], Any] | None = None
    field: str | None = None
    sends: str | None = None


def _option(
    name: str,
    default: Any,
    check: Callable[[str, Any], Any],
    help: str,
    *takes: str,
    **more: Any,
) -> Option:
    return Option(name, default, check, help, frozenset(takes), **more)


def _seed(key: str, value: Any) -> int | None:
    return None if value is None else _integer(0, key, value)


def _price(key: str, value: Any) -> Price | None:
    """`judge_price`: none (no cost said), or IN,OUT per million tokens (`usage.parse_price`)."""
    return None if value is None or value == "" else parse_price(value, key)


def _text(key: str, value: Any) -> Any:
    return value  # a model name or URL: checked with the judge (`resolve_jury_settings`)


INSPECT = (TASK, SCORER)
# Two options of one name differ by harness: Inspect's judge_timeout bounds a judgment, lm-eval's
# an attempt; Inspect's switches say what -T allows, lm-eval's what --metadata does.
OPTIONS: tuple[Option, ...] = (
    _option(
        "self_grade",
        False,
        check_bool,
        "let the evaluated model judge itself when no grader role is bound",
        *INSPECT,
        annotation="bool",
    ),
    _option("judge_model", None, _text, f"judge model name (or {MODEL_ENV})", METADATA, FLAG),
    _option(
        "judge_models",
        None,
        _text,
        "a jury: judge model names separated by commas, instead of --judge-model",
        METADATA,
        FLAG,
    ),
    _option(
        "judge_base_url",
        None,
        _text,
        "OpenAI-compatible API root, e.g. .../v1; for a jury, one for all or one per model, "
        "separated by commas",
        METADATA,
        FLAG,
    ),
    _option(
        "judge_constraint",
        "none",
        _constraint,
        "verdict constraint: none (default), regex, grammar, json_schema",
        *INSPECT,
        METADATA,
        FLAG,
        annotation="str",
        field="constraint",
    ),
    _option(
        "judge_preflight",
        True,
        check_bool,
        "one request to the grader before any generation: a judgment of the first sample "
        "(one token if it times out), the constraint probe with judge_constraint; false offline",
        TASK,
        annotation="bool",
    ),
    _option(
        "judge_timeout",
        None,
        _seconds_or_none,
        "seconds for one judgment, retries included, else unscored (600; none batched)",
        *INSPECT,
        annotation="float | None",
    ),
    _option(
        "judge_later",
        False,
        check_bool,
        "generation only, no grader contacted; `inspect score` judges the log later",
        *INSPECT,
        annotation="bool",
    ),
    _option(
        "judge_concurrency",
        32,  # calls in flight at the start (all the time, when not adaptive)
        partial(_integer, 1),
        "judge calls in flight at the start, all the time when not adaptive (default 32)",
        METADATA,
        FLAG,
        flag_type=int,
        field="concurrency",
    ),
    _option(
        "judge_max_concurrency",
        256,
        partial(_integer, 1),
        "the most judge calls in flight when following the rate limits (default 256)",
        METADATA,
        FLAG,
        flag_type=int,
        field="max_concurrency",
    ),
    _option(
        "judge_adaptive_concurrency",
        True,  # follow the judge's rate limits (429, x-ratelimit-*) from 1 to max_concurrency
        check_switch,
        "true (default) or false: follow the judge's rate limits",
        METADATA,
        FLAG,
        field="adaptive_concurrency",
    ),
    _option(
        "judge_timeout",
        120.0,  # seconds, one attempt
        _positive,
        "seconds for one attempt of a judge call (default 120; Inspect's bounds a judgment)",
        METADATA,
        FLAG,
        flag_type=float,
        field="timeout",
    ),
    _option(
        "judge_max_retries",
        10,
        partial(_integer, 0),
        "retries of a judge call after its first attempt (default 10)",
        METADATA,
        FLAG,
        flag_type=int,
        field="max_retries",
    ),
    _option(
        "judge_retry_budget",
        300.0,  # seconds, one judgment: every attempt and wait
        _positive,
        "seconds for one judgment, its attempts and waits together (default 300)",
        METADATA,
        FLAG,
        flag_type=float,
        field="retry_budget",
    ),
    _option(
        "judge_max_tokens",
        DEFAULT_MAX_TOKENS,
        partial(_integer, 1),
        f"the cap on a judge reply's tokens (default {DEFAULT_MAX_TOKENS})",
        METADATA,
        FLAG,
        flag_type=int,
        field="max_tokens",
    ),
    _option(
        "judge_seed",
        DEFAULT_SEED,
        _seed,
        f"the judge's sampling seed (default {DEFAULT_SEED}; --metadata null sends none)",
        METADATA,
        FLAG,
        flag_type=int,
        field="seed",
    ),
    _option(
        "judge_later",
        False,
        check_switch,
        "generation only, no judge contacted; `culture-evals judge` judges the outputs later",
        METADATA,
    ),
    _option(
        "judge_preflight",
        True,
        check_switch,
        "one judgment sent to each judge before any generation (default true); false skips it",
        METADATA,
    ),
    _option(
        "judge_repeats",
        1,
        _repeats,
        "judge each answer this many times (judging r sends the judge seed plus r-1)",
        *INSPECT,
        METADATA,
        FLAG,
        annotation="int",
        flag_type=int,
    ),
    _option(
        "rejudge_fraction",
        1.0,
        _fraction,
        "re-judge only this share of the answers, chosen by a hash of their ids (1: all)",
        *INSPECT,
        METADATA,
        FLAG,
        annotation="float",
        flag_type=float,
    ),
    _option(
        "judge_temperature",
        0.0,  # greedy: re-judging then measures only what an API judge varies by itself
        _temperature,
        "sample the judge at this temperature (default 0: greedy)",
        *INSPECT,
        METADATA,
        FLAG,
        annotation="float",
        flag_type=float,
        field="temperature",
        sends="temperature",
    ),
    _option(
        "judge_price",
        None,  # no price: tokens are said, not their cost
        _price,
        "the judge's price per million prompt and completion tokens, IN,OUT (e.g. 2.5,10): "
        "the judge-call estimate and the token totals also say the cost",
        *INSPECT,
        METADATA,
        FLAG,
        annotation="str | None",
    ),
)


def declared(where: str) -> tuple[Option, ...]:
    """The options taken `where` (TASK, SCORER, METADATA or FLAG), in declaration order."""
    return tuple(option for option in OPTIONS if where in option.takes)


def _lm_eval_default(settings_field: str) -> Any:
    """The default of the --metadata option that sets `settings_field` of `JudgeSettings`."""
    return next(o.default for o in declared(METADATA) if o.field == settings_field)


REPEAT_KEYS = ("judge_repeats", "rejudge_fraction")  # re-judging: `judging/repeats.py`
# Every judge key a judged task accepts in --metadata (the API key is refused, by design).
JUDGE_KEYS = tuple(o.name for o in declared(METADATA) if o.name not in REPEAT_KEYS)
# Judge options of the Inspect tasks only (`self_grade`): refused in --metadata, naming -T.
INSPECT_ONLY_KEYS = tuple(o.name for o in declared(TASK) if o.name not in JUDGE_KEYS + REPEAT_KEYS)


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


@dataclass(frozen=True)
class JudgeOptions:
    """The judge options of an Inspect task or of its judge scorer (`inspect_options`), or of an
    lm-eval task or `culture-evals judge` (`metadata_options`), checked: built once and passed
    on as one value."""

    self_grade: bool = False
    judge_constraint: str = "none"
    judge_preflight: bool = True
    judge_timeout: float | None = None
    judge_later: bool = False
    repeats: Repeats = ONCE
    # the values of the options that set a field of each judge request (`sends`), by name
    request: tuple[tuple[str, Any], ...] = ()
    # lm-eval and `culture-evals judge`: the judges, a jury's in order, each with its settings
    # (its constraint and request fields among them); none when no judge is called. Inspect's
    # judges are its grader roles.
    judges: tuple[JudgeSettings, ...] = ()
    # what the judge's tokens cost per million (`judging/usage.py`); None: tokens only
    judge_price: Price | None = None

    def request_fields(self) -> dict[str, Any]:
        """The fields of each judge request these options set (e.g. its temperature)."""
        sends = {o.name: o.sends for o in OPTIONS if o.sends}
        return {sends[name]: value for name, value in self.request}

    def record(self) -> dict[str, Any]:
        """What a task's and a score's metadata record of them: the constraint when on, and
        the re-judging when on."""
        return {**constraint_record(self.judge_constraint), **self.repeats.settings()}

    def scorer_args(self) -> dict[str, Any]:
        """The judge scorer's arguments: plain values, as a log records them (`inspect score`)."""
        plain = {"judge_repeats": self.repeats.k, "rejudge_fraction": self.repeats.fraction}
        plain["judge_price"] = self.judge_price.text() if self.judge_price else None
        plain |= dict(self.request)
        return {o.name: plain.get(o.name, getattr(self, o.name, None)) for o in declared(SCORER)}


def inspect_options(given: Mapping[str, Any], where: str = TASK) -> JudgeOptions:
    """`JudgeOptions` from an Inspect task's (TASK) or judge scorer's (SCORER) judge parameters,
    each checked by its declaration (a ValueError names it); one not given takes its default."""
    options = declared(where)
    checked = {o.name: o.check(o.name, given.get(o.name, o.default)) for o in options}
    repeats = check_repeats(checked.pop("judge_repeats"), checked.pop("rejudge_fraction"))
    request = tuple((o.name, checked.pop(o.name)) for o in options if o.sends)
    return JudgeOptions(**checked, repeats=repeats, request=request)


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
    # the declared options' defaults (OPTIONS)
    temperature: float = _lm_eval_default("temperature")
    seed: int | None = _lm_eval_default("seed")
    max_tokens: int = _lm_eval_default("max_tokens")
    concurrency: int = _lm_eval_default("concurrency")
    adaptive_concurrency: bool = _lm_eval_default("adaptive_concurrency")
    max_concurrency: int = _lm_eval_default("max_concurrency")
    timeout: float = _lm_eval_default("timeout")
    max_retries: int = _lm_eval_default("max_retries")
    retry_budget: float = _lm_eval_default("retry_budget")
    constraint: str = _lm_eval_default("constraint")  # constrained decoding (constraints.py)

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
    options = _settings_fields(metadata)
    start = options.get("concurrency", JudgeSettings.concurrency)
    # unset: the default, or the start where a user starts above it
    most = options.setdefault("max_concurrency", max(start, JudgeSettings.max_concurrency))
    if most < start:
        raise JudgeConfigError(
            f"judge_max_concurrency={most} is below judge_concurrency={start}: the most calls "
            "in flight cannot be fewer than the calls it starts with"
        )
    base_url = metadata.get("judge_base_url") or env.get(BASE_URL_ENV) or None
    return JudgeSettings(
        model=model,
        base_url=None if base_url is None else check_base_url(base_url),
        api_key=env.get(API_KEY_ENV, "") or env.get("OPENAI_API_KEY", ""),
        **options,
    )


def _settings_fields(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The `JudgeSettings` fields the declared --metadata options given set, each checked."""
    fields: dict[str, Any] = {}
    for option in (o for o in declared(METADATA) if o.field and o.name in metadata):
        try:
            fields[option.field] = option.check(option.name, metadata[option.name])
        except ValueError as exc:  # a shared check's error: said as the judge settings' own
            raise JudgeConfigError(str(exc)) from None
    return fields


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


def _metadata_repeats(metadata: Mapping[str, Any]) -> Repeats:
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


def _preflight_on(metadata: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """Metadata `judge_preflight: false` or INSPECT_CULTURE_JUDGE_PREFLIGHT=off skips it."""
    if not check_switch("judge_preflight", metadata.get("judge_preflight", True)):
        return False
    value = env.get(PREFLIGHT_ENV, "").strip().lower()
    if value not in ("", "on", "off"):
        raise JudgeConfigError(f"{PREFLIGHT_ENV}={value!r}: must be on or off")
    return value != "off"


def metadata_options(
    metadata: Mapping[str, Any],
    env: Mapping[str, str] | None = None,
    *,
    judges: bool = True,
    judging_now: bool = False,
) -> JudgeOptions:
    """`JudgeOptions` from lm-eval's --metadata (or `culture-evals judge`'s flags and --metadata,
    the same keys), every option checked (a `JudgeConfigError` names it): credentials written
    into the URL refused, re-judging, `judge_later`, the preflight switch and, with `judges`,
    the judges (none when judged later). `judging_now` (`culture-evals judge`, the later
    judging itself): `judge_later` is checked, then ignored, and credentials in the URL are
    taken (that command records the URL without them, and writes no --metadata)."""
    env = os.environ if env is None else env
    if not judging_now:
        refuse_written_credentials(metadata)
    repeats = _metadata_repeats(metadata)
    later = check_switch("judge_later", metadata.get("judge_later", False)) and not judging_now
    price = _price("judge_price", metadata.get("judge_price"))
    jury = resolve_jury_settings(metadata, env) if judges and not later else ()
    preflight = _preflight_on(metadata, env)
    return JudgeOptions(
        judge_later=later,
        judge_preflight=preflight,
        repeats=repeats,
        judges=jury,
        judge_price=price,
    )

"""Judging at a hosted provider's rate limits, in both harnesses, against their own clients.

    python benchmarks/rate_limits.py                      # every scenario, about 15 minutes
    python benchmarks/rate_limits.py --seconds 10 --scenarios tight   # a quick look

The stub judge (`tests.support.openai_stub --rpm --tpm --minute`) enforces requests and tokens
per minute as OpenAI documents them: buckets refilled continuously, a request's prompt and its
`max_tokens` charged to the token limit, 429 with `Retry-After` beyond the limits, and
`x-ratelimit-limit-*`, `-remaining-*` and `-reset-*` headers on every reply. Time is scaled: a
"minute" lasts `--minute` real seconds (12: five times faster than real time).

Two scenarios, where a fixed 32 calls in flight is wrong one way or the other:

- tight: 480 requests a minute, 0.2 s a judgment. 32 in flight would send 160 a second against
  40 allowed: three calls in four are refused.
- roomy: 480 requests a minute, 2 s a judgment (a reasoning judge). 32 in flight send 16 a
  second against 40 allowed: 60% of the quota is left unused.

Each client judges the same number of CARE judge prompts, sized so the run lasts about
`--seconds` at the allowed rate, each against a fresh server (full buckets). Reported:

- quota used: admitted calls as a share of all the limits allowed over the judging span (the
  first admitted call to the last), the full bucket at the start included, requests or tokens,
  whichever binds. A client that keeps the allowed rate but never spends the starting bucket
  scores below 100%, so this is a lower bound of the share of the allowed rate sustained;
- 429s, failed judgments, and calls paid twice (admitted calls beyond one per judgment).

Two storms (`--scenarios storm-forever,storm-burst`): a judge that answers every judge request
with 429 and `Retry-After: 1` (a quota run out), and one that does so for the first third of
`--storm-budget` from its first judge request, then answers (a burst that clears). Each client judges
`--storm-judgments` CARE answers with `judge_retry_budget` (lm-eval) and `judge_timeout`
(Inspect) set to `--storm-budget`. Reported: the wall time, the judgments scored and unscored,
and whether the storm that never clears ended within the budget plus a margin (ours: the whole
batch within one budget; Inspect: each judgment within `judge_timeout`, samples in waves).

Clients (`--clients`): `lm-eval-judge` (ours, adaptive: the default), `lm-eval-judge-fixed-32`
(`judge_adaptive_concurrency=false`), lm-eval's own `LocalChatCompletion` at its defaults (1 in
flight) and `LocalChatCompletion-32`; full Inspect CARE evals scored by our `care_judge` and by
Inspect's `model_graded_qa` at Inspect's defaults (adaptive connections), and `care_judge-32`
(the grader's `max_connections=32`), `care_judge-max-samples-300` (`--max-samples 300`, the
advice of docs/judge.md for a slow hosted judge), and `care_judge-inspect-score` (the eval with
`-T judge_later=true`, then `inspect score`: Inspect's judge-later route).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import judge_throughput as jt  # noqa: E402

from tests.support.openai_stub import StubOpenAIServer  # noqa: E402


@dataclass(frozen=True)
class Scenario:
    name: str
    rate: float  # requests a second allowed
    token_rate: float  # tokens a second allowed
    latency: float  # seconds a judgment takes at the server
    storm: float | None = None  # 429 for the first S seconds (-1: forever); None: rate limits

    def rpm(self, minute: float) -> int:
        return round(self.rate * minute)

    def tpm(self, minute: float) -> int:
        return round(self.token_rate * minute)


SCENARIOS = {
    "tight": Scenario("tight", rate=20, token_rate=160_000, latency=0.2),
    "roomy": Scenario("roomy", rate=20, token_rate=160_000, latency=4.0),
    "storm-forever": Scenario("storm-forever", 0, 0, latency=0.2, storm=-1),
    "storm-burst": Scenario("storm-burst", 0, 0, latency=0.2, storm=0),  # a third of the budget
}
STORM_MARGIN = 5.0  # seconds: the last attempt in flight and the client's own start


@dataclass
class Outcome:
    client: str
    wall: float
    judgments: int
    failed: int
    stats: dict

    def paid_twice(self) -> int:
        """Admitted calls beyond one per judgment (and the checks before generation)."""
        return max(0, len(self.stats["paid"]) - self.stats["preflights"] - self.judgments)

    def used(self, scenario: Scenario, minute: float) -> float:
        """Admitted calls as a share of all the limits allowed over the judging span, the full
        bucket at the start included (requests or tokens, whichever binds)."""
        paid = sorted(self.stats["paid"])
        span = paid[-1][0] - paid[0][0] if paid else 0.0
        requests = len(paid) / (scenario.rpm(minute) + span * scenario.rate)
        tokens = sum(t for _, t in paid) / (scenario.tpm(minute) + span * scenario.token_rate)
        return max(requests, tokens)


def _server(scenario: Scenario, minute: float, storm: float | None = None):
    if storm is not None:
        extra = ("--storm", str(storm), "--storm-retry-after", "1")
        return jt.judge_server(scenario.latency, reply="Rating: [[7]]\nGRADE: C", extra=extra)
    return jt.judge_server(
        scenario.latency,
        reply="Rating: [[7]]\nGRADE: C",
        extra=(
            "--rpm",
            str(scenario.rpm(minute)),
            "--tpm",
            str(scenario.tpm(minute)),
            "--minute",
            str(minute),
        ),  # fmt: skip
    )


BUDGET: dict[str, float] = {}  # a storm's judge_retry_budget and judge_timeout, when set


def lm_eval_ours(n: int, url: str, adaptive: bool) -> tuple[float, int]:
    budget = {"judge_retry_budget": BUDGET["storm"]} if BUDGET else {}
    timer = jt.lm_eval_path(n, 0.0, 32, url, judge_adaptive_concurrency=adaptive, **budget)
    return timer.wall, timer.failed


def lm_eval_client(n: int, url: str, concurrency: int | None) -> tuple[float, int]:
    """lm-eval's LocalChatCompletion; None: its defaults (num_concurrent=1, max_retries=3)."""
    import logging

    logging.getLogger("lm_eval").setLevel(logging.CRITICAL)  # a line for every 429 otherwise
    options = {} if concurrency is None else {"num_concurrent": concurrency}
    client, requests = jt.lm_eval_client(url, n, **options)
    start = time.perf_counter()
    try:
        replies = client.generate_until(requests, disable_tqdm=True)
    except Exception:  # noqa: BLE001 - lm-eval raises when its retries run out: all lost
        return time.perf_counter() - start, n
    return time.perf_counter() - start, sum("Rating" not in r for r in replies)


def inspect_eval(
    n: int,
    url: str,
    scorer: str,
    max_connections: int | None,
    max_samples: int | None = None,
) -> tuple[float, int]:
    """A full CARE eval whose grader role is the rate-limited judge; generation is instant."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import GenerateConfig, get_model

    from inspect_culture.care import care

    nonce = time.time_ns()
    with StubOpenAIServer(responder=lambda p, b: jt.answer(len(p), nonce)) as model:
        task = care(language="zh", **({"judge_timeout": BUDGET["storm"]} if BUDGET else {}))
        task.dataset = jt._repeat(task.dataset, n)
        if scorer == "model_graded_qa":
            task.scorer = [jt._same_prompt_model_graded_qa()]
        os.environ["STUB_API_KEY"] = "bench"
        config = GenerateConfig(max_connections=max_connections)
        grader = get_model("openai-api/stub/judge", base_url=url, config=config)
        start = time.perf_counter()
        [log] = inspect_eval(
            task, model="openai-api/stub/model", model_base_url=model.base_url,
            model_roles={"grader": grader}, display="none", log_dir=tempfile.mkdtemp(),
            cache=False, max_samples=max_samples,
        )  # fmt: skip
        wall = time.perf_counter() - start
    assert log.status == "success", log.error
    return wall, n - log.results.scores[0].scored_samples


def inspect_score_later(n: int, url: str) -> tuple[float, int]:
    """Inspect's judge-later route (docs/judge.md): a CARE eval with `judge_later=true` generates
    only, then `inspect score` judges the log with the rate-limited grader. Scoring a log has no
    sample limit, so the grader's adaptive connections alone pace the judge. Timed: the scoring."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai import score
    from inspect_ai.model import get_model

    from inspect_culture.care import care, care_judge

    nonce = time.time_ns()
    with StubOpenAIServer(responder=lambda p, b: jt.answer(len(p), nonce)) as model:
        task = care(language="zh", judge_later=True)
        task.dataset = jt._repeat(task.dataset, n)
        os.environ["STUB_API_KEY"] = "bench"
        [log] = inspect_eval(
            task, model="openai-api/stub/model", model_base_url=model.base_url, score=False,
            display="none", log_dir=tempfile.mkdtemp(), cache=False,
        )  # fmt: skip
    assert log.status == "success", log.error
    grader = get_model("openai-api/stub/judge", base_url=url)
    start = time.perf_counter()
    scored = score(log, care_judge(), model_roles={"grader": grader}, action="overwrite",
                   display="none")  # fmt: skip
    wall = time.perf_counter() - start
    return wall, n - scored.results.scores[0].scored_samples


CLIENTS: dict[str, Callable[[int, str], tuple[float, int]]] = {
    "lm-eval-judge": lambda n, url: lm_eval_ours(n, url, True),
    "lm-eval-judge-fixed-32": lambda n, url: lm_eval_ours(n, url, False),
    "LocalChatCompletion": lambda n, url: lm_eval_client(n, url, None),
    "LocalChatCompletion-32": lambda n, url: lm_eval_client(n, url, 32),
    "care_judge": lambda n, url: inspect_eval(n, url, "care_judge", None),
    "care_judge-32": lambda n, url: inspect_eval(n, url, "care_judge", 32),
    "care_judge-max-samples-300": lambda n, url: inspect_eval(n, url, "care_judge", None, 300),
    "model_graded_qa": lambda n, url: inspect_eval(n, url, "model_graded_qa", None),
    "care_judge-inspect-score": inspect_score_later,
}


def run(scenario: Scenario, minute: float, seconds: float, clients: list[str]) -> list[Outcome]:
    n = int(scenario.rpm(minute) + scenario.rate * seconds)  # the full bucket, then the rate
    print(
        f"\n{scenario.name}: {scenario.rpm(minute)} requests and {scenario.tpm(minute):,} tokens "
        f"a minute (a minute lasts {minute:g} s: {scenario.rate:g} requests/s allowed), "
        f"{scenario.latency:g} s a judgment, {n} judgments",
        flush=True,
    )
    print(
        f"  {'client':<36} {'wall s':>7} {'quota used':>10} {'429s':>6} {'failed':>6} "
        f"{'paid twice':>10} {'peak in flight':>14}"
    )
    outcomes = []
    for name in clients:
        with _server(scenario, minute) as url:
            wall, failed = CLIENTS[name](n, url)
            stats = jt.stub_stats(url)
        outcome = Outcome(name, wall, n, failed, stats)
        outcomes.append(outcome)
        print(
            f"  {name:<36} {wall:>7.1f} {outcome.used(scenario, minute):>10.1%} "
            f"{stats['limited']:>6} {failed:>6} {outcome.paid_twice():>10} "
            f"{stats['max_in_flight']:>14}",
            flush=True,
        )
    return outcomes


# model_graded_qa takes no judge_timeout: a storm that never clears holds it ~10 min a judgment
STORM_CLIENTS = ("lm-eval-judge", "lm-eval-judge-fixed-32", "LocalChatCompletion", "care_judge")


def run_storm(scenario: Scenario, n: int, budget: float, clients: list[str]) -> None:
    """Each client against a storm: every sample unscored within the budget (forever), or
    every sample scored (a burst that clears)."""
    storm = scenario.storm if scenario.storm else budget / 3
    what = "every judge request" if storm < 0 else f"every judge request for {storm:g} s"
    print(f"\n{scenario.name}: 429 with Retry-After 1 s to {what}; {n} judgments, budget "
          f"{budget:g} s (judge_retry_budget, judge_timeout)", flush=True)  # fmt: skip
    print(f"  {'client':<36} {'wall s':>7} {'scored':>6} {'unscored':>8} {'429s':>6} {'ended':>22}")
    BUDGET["storm"] = budget
    try:
        for name in clients:
            with _server(scenario, 60.0, storm) as url:
                wall, failed = CLIENTS[name](n, url)
                limited = jt.stub_stats(url)["limited"]
            if storm < 0:
                ours = name.startswith("lm-eval-judge")
                ended = "within budget" if wall <= budget + STORM_MARGIN else "PAST THE BUDGET"
                ended = ended if ours else f"{wall / budget:.1f} budgets"
                ended = ended if failed == n else "SCORED IN A STORM"
            else:
                ended = "every sample scored" if not failed else "SAMPLES LOST"
            print(f"  {name:<36} {wall:>7.1f} {n - failed:>6} {failed:>8} {limited:>6} "
                  f"{ended:>22}", flush=True)  # fmt: skip
    finally:
        BUDGET.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument(
        "--clients", help=f"comma-separated names (default: all; storms: {','.join(STORM_CLIENTS)})"
    )
    parser.add_argument("--minute", type=float, default=12.0, help="real seconds in a minute")
    parser.add_argument("--seconds", type=float, default=60.0, help="judging time at the rate")
    parser.add_argument("--storm-judgments", type=int, default=150, help="judgments in a storm")
    parser.add_argument("--storm-budget", type=float, default=15.0, help="seconds (storms)")
    args = parser.parse_args()
    unknown = [s for s in args.scenarios.split(",") if s not in SCENARIOS]
    clients = [c.strip() for c in (args.clients or ",".join(CLIENTS)).split(",") if c.strip()]
    unknown += [c for c in clients if c not in CLIENTS]
    if unknown:
        raise SystemExit(
            f"unknown: {unknown}; scenarios {list(SCENARIOS)}, clients {list(CLIENTS)}"
        )
    os.environ["INSPECT_CULTURE_JUDGE_CACHE"] = "off"
    os.environ.setdefault("TQDM_DISABLE", "1")
    os.environ.setdefault("INSPECT_CACHE_DIR", tempfile.mkdtemp())
    for name in args.scenarios.split(","):
        if SCENARIOS[name].storm is not None:
            chosen = clients if args.clients else list(STORM_CLIENTS)
            run_storm(SCENARIOS[name], args.storm_judgments, args.storm_budget, chosen)
        else:
            run(SCENARIOS[name], args.minute, args.seconds, clients)


if __name__ == "__main__":
    main()

"""Chaos test of the judge layer: CARE, CultureSynth-7 and CQ-Bench VE in both harnesses against a
judge that fails a lot and echoes its key, killed at a random point and resumed; every check
fails when its property is broken (`--mutation`, proved by tests/benchmarks_scripts).

    python benchmarks/judge_chaos.py --seed 11
    python benchmarks/judge_chaos.py --benchmark care --harness lm-eval --size 30

The judge (a stub server in this process, so it outlives the killed run and counts every
request) answers each judge request with, by a seeded draw: HTTP 500 (30%; the body quotes the
request's `Authorization` header, as is and in base64), a hang that never answers (10%), a reply
with no verdict that quotes the `Authorization` header (10%), or a verdict (that quotes it too,
on a line of its own); every judge request in a rate-limit window (`--window` seconds, from
`--window-start` seconds after the first judge request) gets HTTP 429 with `Retry-After`. A request whose messages hash to 0 mod 10 is ALWAYS
answered with such a garbage reply (on every retry and on the resume), so the checker knows which
samples must end unscored. The evaluated model is a second, well-behaved stub whose answers are
deterministic and carry a token of their prompt (`ans-<hex>`), so a re-generated sample asks the
judge the same question and every judge request names its sample.

The judge's key is a realistic one (`jdg-live-` + 24 alphanumerics, not `sk-` shaped): Inspect's
grader reads it from the environment; lm-eval's judge is given `http://chaos:<password>@.../v1`
(sent as Basic auth) with the key in the environment too.

- Inspect: `inspect eval <task>`, killed (SIGKILL) after a random number of paid judgments, then
  `inspect eval-retry` on the crashed log. Also, once: a grader URL with credentials must be
  refused (non-zero exit naming the credentials, no log holding the password).
- lm-eval: generation only (`judge_later`, `--log_samples`; CQ-Bench VE: the summary task first,
  then `cqbench_ve_<setting>` with `ve_summaries`), then `culture-evals judge` on the saved
  generations, killed the same way, then the same command again.

CARE is the bundled zh set (150 questions); CultureSynth-7 and CQ-Bench VE are the tests' toy
data (tests/support), repeated with numbered variants so that a kill can land mid-judging.
Checks, for each benchmark and harness, read from what the harness wrote: no sample lost or
doubled; every scored value in the benchmark's range; every sample whose judgment is always
garbage unscored; every unscored sample with a readable reason; the kill landed mid-judging; no
judgment paid twice apart from those in flight at the kill; no secret in any form in anything
the run wrote (logs, .eval members, output folders, the judge cache, captured output). Each
failed check prints `FAIL: <check>: ...`; the script exits non-zero when any fails.
"""

from __future__ import annotations

import argparse
import base64
import collections
import hashlib
import inspect
import json
import os
import random
import re
import signal
import string
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from inspect_culture.judging.cache import JudgeCache  # noqa: E402
from inspect_culture.judging.redaction import secret_forms  # noqa: E402
from tests.support import openai_stub  # noqa: E402
from tests.support.cqbench_data import install_folder_mirror, original_items  # noqa: E402
from tests.support.culturesynth_data import (  # noqa: E402
    MISSING,
    SAMPLE_ROWS,
    is_judge_call,
    write_culturesynth_jsonl,
)
from tests.support.openai_stub import StubOpenAIServer, care_responder  # noqa: E402

BIN = Path(sys.executable).parent
HANG = 3600.0  # seconds: a hung request is never answered while the benchmark runs
KILL_DELIVERY = 0.1  # seconds: a request sent while the SIGKILL was on its way was in flight
FORCED_MODULUS = 10  # a judge request whose messages hash to 0 mod this is always garbage
ANSWER_TOKEN = re.compile(r"ans-[0-9a-f]{10}")
# What a readable reason must not look like: a key, a bearer or basic token, an object repr.
UNREADABLE = re.compile(
    r"sk-[A-Za-z0-9]|jdg-live-|Bearer |Basic [A-Za-z0-9+/]{8}|<Future|object at 0x|RetryError\["
)
MUTATIONS = ("score_zero", "no_redaction", "blank_reason", "no_kill", "no_cache", "wave_budget")
BENCHMARKS = ("care", "culturesynth", "cqbench_ve")
CHECKS = (
    "lost or doubled samples",
    "value out of range",
    "scored where unscored was due",
    "unreadable reason",
    "kill not mid-judging",
    "paid twice",
    "secret leaked",
)
STORM_CHECKS = (
    "scored in a storm that never clears",
    "reason is not the rate limit",
    "no banner",
    "storm outlasted the budget",
    "unscored after the storm cleared",
)
STORM_MARGIN = 10.0  # seconds beyond the budget: the last attempt, writing results, a busy machine


# ------------------------------------------------------------------------------ the judge stub


@dataclass
class Request:
    key: str
    kind: str  # "500", "429", "hang", "garbage", "forced", "verdict"
    received: float
    token: str | None  # the answer token of the sample the request judges
    answered: float | None = None


@dataclass
class ChaosJudge:
    """Decides each judge request's fate and records it. Thread-safe: the stub serves requests
    on its own event loop thread while the benchmark reads the counts."""

    seed: int
    window_start: float
    window: float
    retry_after: int
    storm: str | None = None  # "forever": every request 429; "burst": the first storm_requests
    storm_requests: int = 0
    requests: list[Request] = field(default_factory=list)
    authorizations: collections.Counter = field(default_factory=collections.Counter)
    first_at: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def fault(self, _: int, body: dict[str, Any]) -> Any:
        now = time.time()
        messages = json.dumps(body.get("messages"), sort_keys=True)
        key = hashlib.sha256(messages.encode("utf-8")).hexdigest()
        tokens = ANSWER_TOKEN.findall(messages)
        authorization = _authorization()
        with self.lock:
            self.authorizations[authorization.split(" ", 1)[0] or "(none)"] += 1
            self.first_at = self.first_at or now
            since = now - self.first_at
            draw = self.rng.random()
            if self.storm:  # only 429s (all, or the first ones), then clean verdicts
                burst = self.storm == "forever" or len(self.requests) < self.storm_requests
                kind = "429" if burst else "verdict"
            elif is_forced(key):
                kind = "forced"
            elif self.window_start <= since < self.window_start + self.window:
                kind = "429"
            elif draw < 0.3:
                kind = "500"
            elif draw < 0.4:
                kind = "hang"
            elif draw < 0.5:
                kind = "garbage"
            else:
                kind = "verdict"
            self.requests.append(Request(key, kind, now, tokens[-1] if tokens else None))
            body["_chaos"] = len(self.requests) - 1  # the responder marks it answered
        if kind == "429":
            return {"status": 429, "headers": {"Retry-After": str(self.retry_after)}}
        if kind == "500":  # a server that echoes the credentials it was sent, also as base64
            echoed = base64.b64encode(authorization.encode("utf-8")).decode("ascii")
            message = f"internal error handling {authorization} (request id {echoed})"
            return {"status": 500, "body": {"error": {"message": message, "type": "server"}}}
        if kind == "hang":
            return HANG
        return None

    def respond(self, prompt: str, body: dict[str, Any]) -> str:
        index = body.get("_chaos")
        if index is None:  # not a judge request: should not happen on this server
            return "unexpected"
        with self.lock:
            request = self.requests[index]
            request.answered = time.time()
        if request.kind in ("garbage", "forced"):
            return f"I cannot rate this. Your header was: {_authorization()}"
        if self.storm and prompt.startswith("Please serve as"):  # CARE, always a rating
            return f"Rating: [[{1 + _digest(prompt) % 10}]]"
        # a verdict echoes the credentials too, so every fresh reply a run writes must be redacted
        return f"{judge_verdict(prompt, body)}\n(authorized as {_authorization()})"

    def paid(self) -> int:
        with self.lock:
            return sum(1 for r in self.requests if r.answered is not None)

    def forced_tokens(self) -> set[str]:
        """The samples (answer tokens) with a judgment that can never be parsed."""
        with self.lock:
            return {r.token for r in self.requests if r.kind == "forced" and r.token}

    def report(self, killed_at: float, resumed_at: float, unwritten: float) -> dict[str, int]:
        """Judgments paid before and after the kill, paid more than once, and how many of those
        were in flight at the kill: asked before it (or while the signal was on its way) and
        answered at most `unwritten` seconds before it (a reply not stored yet) or later."""
        with self.lock:
            requests = list(self.requests)
        paid = collections.Counter(r.key for r in requests if r.answered is not None)
        in_flight = {
            r.key
            for r in requests
            if r.kind in ("verdict", "garbage", "forced")
            and r.received < killed_at + KILL_DELIVERY
            and (r.answered is None or r.answered >= killed_at - unwritten)
        }
        twice = {key for key, n in paid.items() if n > 1}
        kinds = collections.Counter(r.kind for r in requests)
        self.twice_detail = [  # each judgment paid twice though not in flight: when, and how
            [(r.kind, round(r.received - killed_at, 2), round(r.answered - killed_at, 2))
             for r in requests if r.key == key and r.answered is not None]
            for key in sorted(twice - in_flight)
        ]  # fmt: skip
        answered = [r for r in requests if r.answered is not None]
        return {
            "requests": len(requests),
            **{f"requests_{kind}": n for kind, n in sorted(kinds.items())},
            "judgments_paid": sum(paid.values()),
            "paid_before_kill": sum(1 for r in answered if r.answered < killed_at),
            "paid_after_kill": sum(1 for r in answered if r.received >= resumed_at),
            "paid_twice": len(twice),
            "paid_twice_in_flight_at_kill": len(twice & in_flight),
            "paid_twice_otherwise": len(twice - in_flight),
        }


def _authorization() -> str:
    return (openai_stub._REQUEST_HEADERS.get() or {}).get("authorization", "")


def is_forced(key: str) -> bool:
    return int(key, 16) % FORCED_MODULUS == 0


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


def judge_verdict(prompt: str, body: dict[str, Any]) -> str:
    """A verdict in each benchmark's format, chosen by hashing the prompt."""
    if prompt.startswith("Please serve as"):  # CARE (one prompt in seven: no rating)
        return care_responder(prompt, body)
    if is_judge_call(body):  # CultureSynth-7: a pairwise game
        return f"Compared with the reference... [[{'ABC'[_digest(prompt) % 3]}]]"
    if "ground truth set of values" in prompt:  # CQ-Bench VE: a score per gold value
        lines = [  # the toy stories have 2 gold values; a line beyond them is ignored
            f"[Ground truth {k}]: {('1', '0.5', '0')[_digest(prompt + str(k)) % 3]}"
            for k in range(1, 4)
        ]
        return "[Final answer]:\n" + "\n".join(lines)
    return "unexpected judge request"


def generation_responder(prompt: str, _: dict[str, Any]) -> str:
    """The evaluated model: a deterministic answer per prompt, carrying the prompt's token."""
    token = "ans-" + hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:10]
    if "Your goal is to summarize the main themes" in prompt:  # CQ-Bench VE step 1
        return f"The story is about honesty and family ({token})."
    if "Your goal is to identify the most prevalent" in prompt:  # CQ-Bench VE step 2
        return f"[Final answer]:\nHonesty matters ({token})."
    return f"An answer about this question ({token})."


# ------------------------------------------------------------------------------ benchmarks


@dataclass(frozen=True)
class Benchmark:
    name: str
    label: str
    inspect_task: str
    inspect_args: tuple[str, ...]
    lm_task: str  # the judged lm-eval task
    low: float  # the range of a scored value
    high: float


SPECS = {
    "care": Benchmark("care", "CARE zh", "inspect_culture/care.py", ("-T", "language=zh"),
                      "care_zh", 1.0, 10.0),
    "culturesynth": Benchmark("culturesynth", "CultureSynth-7", "inspect_culture/culturesynth.py",
                              (), "culturesynth_all", -1.0, 1.0),
    "cqbench_ve": Benchmark("cqbench_ve", "CQ-Bench VE", "inspect_culture/cqbench.py@cqbench_ve",
                            ("-T", "setting=ethical"), "cqbench_ve_ethical", 0.0, 1.0),
}  # fmt: skip
CARE_ZH = 150
TOY_COPIES = 4  # CultureSynth-7 and CQ-Bench VE toy data, repeated with numbered variants


def culturesynth_rows(size: int | None) -> list[dict[str, str]]:
    rows = [
        {**row, "id": f"{row['id']}-{k}", "question": f"{row['question']} ({k})"}
        for k in range(TOY_COPIES)
        for row in SAMPLE_ROWS
    ]
    return rows[:size] if size else rows


def ve_items(size: int | None) -> list[dict[str, Any]]:
    [item] = original_items()
    items = [{**item, "story": f"{item['story']} (Story {k}.)"} for k in range(6 * TOY_COPIES)]
    return items[:size] if size else items


def prepare_data(bench: Benchmark, size: int | None, work: Path) -> tuple[int, int, Path | None]:
    """(samples, judgments expected, baseline answers file) of the benchmark's data, written
    under `work/mirror` (`INSPECT_CULTURE_DATA_DIR`)."""
    mirror = work / "mirror"
    if bench.name == "care":
        n = min(size or CARE_ZH, CARE_ZH)
        return n, n, None
    if bench.name == "culturesynth":
        from inspect_culture.benchmarks.culturesynth.baseline_responses import (
            BaselineResponses,
            write_baseline_responses,
        )

        rows = culturesynth_rows(size)
        write_culturesynth_jsonl(mirror / "culturesynth" / "culturesynth.jsonl", rows)
        answered = [r["id"] for r in rows if not r["id"].startswith(MISSING)]
        baseline = BaselineResponses(
            model="stub/baseline",
            responses={qid: f"BASELINE answer to {qid}" for qid in answered},
            generation_settings={"temperature": 0.0},
        )
        path = write_baseline_responses(baseline, work / "baseline.json")
        return len(rows), 2 * len(answered), path
    items = ve_items(size)
    install_folder_mirror(mirror, {"dataset_ethical_original.json": items})
    return len(items), len(items), None


# ------------------------------------------------------------------------------ mutations

SITECUSTOMIZE = '''
"""judge_chaos.py mutations, applied in every harness subprocess (CHAOS_MUTATION)."""
import os

MUTATION = os.environ.get("CHAOS_MUTATION", "")


def _score_zero():
    from inspect_culture.benchmarks.care import judging as care
    from inspect_culture.benchmarks.cqbench import parse as cq
    from inspect_culture.benchmarks.culturesynth import parse as cs

    read_rating, read_verdict, read_ve = care.read_rating, cs.read_pairwise_verdict, cq.read_ve_judgement

    def rating(text):
        judged = read_rating(text)
        return care.JudgedRating(0.0, None) if judged.rating is None else judged

    def verdict(text):
        found, why = read_verdict(text)
        return ("C", None) if found is None else (found, why)  # a tie: 0

    def ve(text, n_values):
        scores, ambiguous = read_ve(text, n_values)
        return [0.0 if s is None else s for s in scores], ()

    care.read_rating, cs.read_pairwise_verdict, cq.read_ve_judgement = rating, verdict, ve


def _no_redaction():
    import atexit
    import sys

    from inspect_culture.judging import redaction

    originals = {"redact": redaction.redact, "redact_value": redaction.redact_value}
    # patched in the defining module before any other imports it: `from ... import redact`
    # binds the identity; at exit, any module still holding an original is reported
    redaction.redact = lambda text, secrets=(): text
    redaction.redact_value = lambda value, secrets=(): value

    def unpatched():
        for module in list(sys.modules.values()):
            for attribute, value in list(getattr(module, "__dict__", {}).items()):
                if any(value is original for original in originals.values()):
                    print(f"CHAOS: {module.__name__}.{attribute} is not patched", file=sys.stderr)

    atexit.register(unpatched)


def _blank_reason():
    from inspect_culture.judging import protocol

    init = protocol.Judged.__init__

    def blank(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if self.value is None:
            object.__setattr__(self, "reason", "")

    protocol.Judged.__init__ = blank


def _wave_budget():
    """Queued judgments are not charged the holds they wait through: one budget per wave."""
    from inspect_culture.judging.http_client import OpenAICompatibleJudge

    judge_one = OpenAICompatibleJudge._judge_one

    async def fresh_budget(self, client, messages, fmt, held_from=None):
        return await judge_one(self, client, messages, fmt, None)

    OpenAICompatibleJudge._judge_one = fresh_budget


if MUTATION:
    {"score_zero": _score_zero, "no_redaction": _no_redaction,
     "blank_reason": _blank_reason, "wave_budget": _wave_budget}.get(MUTATION, lambda: None)()
'''


def write_sitecustomize(work: Path) -> Path:
    folder = work / "chaos_site"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(textwrap.dedent(SITECUSTOMIZE), "utf-8")
    return folder


# ------------------------------------------------------------------------------ running


@dataclass
class Secrets:
    key: str
    password: str
    user: str = "chaos"

    @classmethod
    def draw(cls, seed: int) -> Secrets:
        rng = random.Random(f"secrets-{seed}")
        alphabet = string.ascii_letters + string.digits
        return cls(
            "jdg-live-" + "".join(rng.choices(alphabet, k=24)),
            "".join(rng.choices(alphabet, k=24)),
        )

    def all(self) -> tuple[str, ...]:
        return (self.key, self.password, f"{self.user}:{self.password}")

    def forms(self) -> dict[str, str]:
        """Every form a secret may be written in -> what it is (for the report)."""
        named = {"key": self.key, "password": self.password, "user:password": self.all()[2]}
        return {form: what for what, secret in named.items() for form in secret_forms(secret)}

    def url(self, base_url: str) -> str:
        return base_url.replace("http://", f"http://{self.user}:{self.password}@", 1)


@dataclass
class Context:
    args: argparse.Namespace
    bench: Benchmark
    judge: ChaosJudge
    secrets: Secrets
    work: Path
    judge_url: str
    gen_url: str
    n: int
    judgments: int
    baseline: Path | None
    logs: list[Path] = field(default_factory=list)  # captured output of every subprocess

    def log(self, name: str) -> Path:
        path = self.work / "captured" / f"{name}.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.logs.append(path)
        return path

    def kill_after(self, salt: int) -> int:
        j = max(self.judgments, 2)
        return random.Random(self.args.seed * 7 + salt).randint(max(1, j // 4), max(1, 3 * j // 4))


def run_until_killed(
    command: list[str], env: dict[str, str], ctx: Context, kill_after: int, log: Path
) -> float:
    """Start `command`; SIGKILL its process group once `kill_after` more judgments are paid
    (never with `--mutation no_kill`). Returns the kill time (or the end time)."""
    start_paid = ctx.judge.paid()
    never = ctx.args.mutation == "no_kill"
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            command, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        while process.poll() is None:
            if not never and ctx.judge.paid() - start_paid >= kill_after:
                killed_at = time.time()
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                return killed_at
            time.sleep(0.02)
    print(f"  (the run ended before the kill point; exit code {process.returncode})")
    if process.returncode:
        print("  " + "\n  ".join(log.read_text("utf-8").splitlines()[-8:]))
    return time.time()


def run_to_end(command: list[str], env: dict[str, str], log: Path) -> int:
    with log.open("w", encoding="utf-8") as out:
        return subprocess.run(
            command, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
        ).returncode


def base_env(ctx: Context) -> dict[str, str]:
    work = ctx.work
    env = dict(os.environ)
    site = write_sitecustomize(work)
    (work / "tmp").mkdir(exist_ok=True)
    env.update(
        {
            "PYTHONPATH": os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH")) if p),
            "CHAOS_MUTATION": ctx.args.mutation or "",
            "INSPECT_CULTURE_DATA_DIR": str(work / "mirror"),
            "INSPECT_CULTURE_CACHE_DIR": str(work / "cache"),
            "INSPECT_CULTURE_JUDGE_CACHE": "off"
            if ctx.args.mutation == "no_cache"
            else str(work / "judge_cache.sqlite"),
            "INSPECT_CACHE_DIR": str(work / "inspect_cache"),
            "HF_DATASETS_CACHE": str(work / "hf_cache"),
            "INSPECT_CULTURE_HF_ENDPOINT": "http://127.0.0.1:9",  # never reached
            "GEN_API_KEY": "gen-stub",  # openai-api/gen/... (Inspect reads <SERVICE>_API_KEY)
            "CHAOS_API_KEY": ctx.secrets.key,  # the grader openai-api/chaos/...
            "OPENAI_API_KEY": ctx.secrets.key,
            "INSPECT_CULTURE_JUDGE_API_KEY": ctx.secrets.key,
            "INSPECT_LOG_DIR": str(work / "logs"),
            "PYTHONUNBUFFERED": "1",
            # everything a harness writes lands under `work`, where the leak check reads
            "XDG_DATA_HOME": str(work / "xdg_data"),
            "XDG_CACHE_HOME": str(work / "xdg_cache"),
            "XDG_STATE_HOME": str(work / "xdg_state"),
            "HF_HOME": str(work / "hf_home"),
            "TMPDIR": str(work / "tmp"),
        }
    )
    return env


# ---------------------------------------------------------------------------------- Inspect


def _grader(ctx: Context, url: str) -> str:
    return json.dumps(
        {
            "model": "openai-api/chaos/judge",
            "model_args": {"base_url": url},
            "attempt_timeout": round(ctx.args.judge_timeout),  # a hung attempt is retried
        }
    )


def _inspect_command(ctx: Context, grader_url: str, log_dir: Path, limit: int | None) -> list:
    bench, args = ctx.bench, ctx.args
    command = [
        str(BIN / "inspect"), "eval", bench.inspect_task, *bench.inspect_args,
        "-T", f"judge_timeout={args.storm_budget if args.storm else args.inspect_judge_timeout}",
        "-T", "judge_preflight=false",
        "--model", "openai-api/gen/model", "--model-base-url", ctx.gen_url,
        "--model-role", f"grader={_grader(ctx, grader_url)}", "--log-dir", str(log_dir),
        "--max-connections", str(args.concurrency), "--display", "none",
    ]  # fmt: skip
    if ctx.baseline is not None:
        command += ["-T", f"baseline_responses={ctx.baseline}"]
    if limit is not None:
        command += ["--limit", str(limit)]
    return command


def run_inspect(ctx: Context) -> dict:
    log_dir = ctx.work / "inspect_logs"
    env = base_env(ctx)
    limit = ctx.n if ctx.bench.name == "care" and ctx.n < CARE_ZH else None
    command = _inspect_command(ctx, ctx.judge_url, log_dir, limit)
    if ctx.args.storm:
        return run_storm(ctx, command, env, "inspect_storm", lambda: inspect_rows(log_dir))
    kill_after = ctx.kill_after(0)
    print(f"Inspect: kill after {kill_after} of ~{ctx.judgments} judgments")
    killed_at = run_until_killed(command, env, ctx, kill_after, ctx.log("inspect_1"))
    [crashed] = sorted(log_dir.glob("*.eval"))
    resumed_at = time.time()
    code = run_to_end(
        [str(BIN / "inspect"), "eval-retry", str(crashed), "--log-dir", str(log_dir),
         "--max-connections", str(ctx.args.concurrency), "--display", "none"],
        env, ctx.log("inspect_2"),
    )  # fmt: skip
    print(f"Inspect: resumed, exit code {code}")
    # Inspect's judge cache writes its replies in batches (docs/judge-reference.md, "What is stored"):
    # a reply answered up to one batch interval before the kill may be asked again
    unwritten = inspect.signature(JudgeCache).parameters["flush_seconds"].default + 0.5
    return {
        "rows": inspect_rows(log_dir),
        "killed_at": killed_at,
        "resumed_at": resumed_at,
        "unwritten": unwritten,
    }


def inspect_rows(log_dir: Path) -> list[dict[str, Any]]:
    """The samples of the newest successful log, as the package wrote them: id, score value,
    the values the score's metadata holds, the reason and the answer's token."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    logs = [read_eval_log(info) for info in list_eval_logs(str(log_dir))]
    finished = [log for log in logs if log.status == "success"]
    if not finished:
        print(f"  no successful Inspect log in {log_dir}: {[g.status for g in logs]}")
        return []
    log = max(finished, key=lambda g: g.eval.created)
    rows = []
    for sample in log.samples or []:
        score = next(iter((sample.scores or {}).values()), None)
        value = None if score is None else score.value
        if isinstance(value, float) and value != value:  # NaN: unscored
            value = None
        metadata = (score.metadata or {}) if score is not None else {}
        parts = [metadata.get("rating")] if "rating" in metadata else []
        parts += list(metadata.get("game_outcomes") or []) + list(
            metadata.get("value_scores") or []
        )
        reason = getattr(score, "reason", None) if score is not None else None
        rows.append(
            {
                "id": str(sample.id),
                "epoch": sample.epoch,
                "value": value,
                "parts": parts,
                "reason": None if reason is None else str(reason),
                "token": _token(sample.output.completion if sample.output else ""),
            }
        )
    return rows


def _token(text: str | None) -> str | None:
    found = ANSWER_TOKEN.findall(text or "")
    return found[-1] if found else None


def check_inspect_credentials(args: argparse.Namespace, secrets: Secrets) -> list[str]:
    """A grader URL with credentials must be refused before any log is written."""
    print("\nInspect, grader URL with credentials:")
    failures = []
    with (
        tempfile.TemporaryDirectory(prefix="judge_chaos_url_") as tmp,
        StubOpenAIServer(responder=generation_responder) as gen,
        StubOpenAIServer(responder=judge_verdict) as judge_server,
    ):
        work = Path(tmp)
        bench = SPECS["care"]
        judge = ChaosJudge(args.seed, 1e9, 0, 1)
        ctx = Context(args, bench, judge, secrets, work, secrets.url(judge_server.base_url),
                      gen.base_url, 2, 2, None)  # fmt: skip
        log_dir = work / "logs"
        command = _inspect_command(ctx, ctx.judge_url, log_dir, 2)
        env = {**base_env(ctx), "CHAOS_MUTATION": ""}
        started = time.time()
        code = run_to_end(command, env, ctx.log("inspect_credentials"))
        output = ctx.logs[-1].read_text("utf-8", "replace")
        print(f"  exit code {code} in {time.time() - started:.1f} s; judge requests "
              f"{len(judge_server.requests)}; last line: {_last_line(output)[:160]}")  # fmt: skip
        if code == 0:
            failures.append("Inspect accepted a grader URL with credentials (exit code 0)")
        elif "credential" not in output.lower():
            failures.append("Inspect's refusal does not mention the credentials")
        leaks = find_secrets(work, secrets)
        if leaks:
            failures.append(f"the password is in what the run wrote: {group_leaks(leaks)}")
    for failure in failures:
        print(f"  FAIL: credentials refused: {failure}")
    if not failures:
        print("  OK")
    return failures


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


# ---------------------------------------------------------------------------------- lm-eval


def run_lm_eval(ctx: Context) -> dict:
    from inspect_culture.lm_eval_tasks import include_path

    env = base_env(ctx)
    work, bench = ctx.work, ctx.bench
    generated, judged = work / "lm_eval_generated", work / "lm_eval_judged"
    metadata: dict[str, Any] = {"judge_later": True}
    if ctx.baseline is not None:
        metadata["baseline_responses"] = str(ctx.baseline)

    def generate(task: str, meta: dict[str, Any], output: Path, name: str) -> None:
        command = [
            str(BIN / "lm_eval"), "--model", "local-chat-completions", "--model_args",
            f"model=model,base_url={ctx.gen_url}/chat/completions,num_concurrent=8,max_retries=1",
            "--tasks", task, "--include_path", str(include_path()), "--apply_chat_template",
            "--log_samples", "--output_path", str(output),
        ]  # fmt: skip
        if meta:
            command += ["--metadata", json.dumps(meta)]
        if bench.name == "care" and ctx.n < CARE_ZH:
            command += ["--limit", str(ctx.n)]
        code = run_to_end(command, env, ctx.log(name))
        if code != 0:
            raise SystemExit(f"lm-eval generation failed ({code}): see {ctx.logs[-1]}")

    if bench.name == "cqbench_ve":
        summaries = work / "lm_eval_ve_summaries"
        generate("cqbench_ve_summary_ethical", {}, summaries, "lm_eval_summaries")
        metadata["ve_summaries"] = str(summaries)
    generate(bench.lm_task, metadata, generated, "lm_eval_generate")
    command = [
        str(BIN / "culture-evals"), "judge", str(generated), "--judge-model", "judge",
        "--judge-base-url", ctx.judge_url, "-o", str(judged),
        "--metadata", json.dumps({"judge_timeout": ctx.args.judge_timeout,
                                  "judge_concurrency": ctx.args.concurrency,
                                  "judge_preflight": False,
                                  **({"judge_retry_budget": ctx.args.storm_budget}
                                     if ctx.args.storm else {})}),
    ]  # fmt: skip
    if ctx.args.storm:
        return run_storm(ctx, command, env, "lm_eval_storm", lambda: lm_eval_rows(judged, bench))
    kill_after = ctx.kill_after(1)
    print(f"lm-eval: kill `culture-evals judge` after {kill_after} of ~{ctx.judgments} judgments")
    killed_at = run_until_killed(command, env, ctx, kill_after, ctx.log("lm_eval_judge_1"))
    resumed_at = time.time()
    code = run_to_end(command, env, ctx.log("lm_eval_judge_2"))
    print(f"lm-eval: resumed, exit code {code}")
    # `culture-evals judge` writes each reply to the cache at once
    return {
        "rows": lm_eval_rows(judged, bench),
        "killed_at": killed_at,
        "resumed_at": resumed_at,
        "unwritten": 0.05,
    }


def lm_eval_rows(judged: Path, bench: Benchmark) -> list[dict[str, Any]]:
    """Each sample as `judged_filter` recorded it in `filtered_resps[0]`: its outcome and the
    reason it wrote."""
    rows = []
    for path in sorted(judged.rglob(f"samples_{bench.lm_task}_*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            sample = json.loads(line)
            record = json.loads(sample["filtered_resps"][0])
            outcome = record.get("outcome") or {}
            if bench.name == "care":
                parts = [outcome.get("rating")]
                value = outcome.get("rating")
            elif bench.name == "culturesynth":
                parts = [outcome.get("outcome")]
                value = outcome.get("outcome")
            else:
                parts = list(outcome.get("value_scores") or [])
                scored = [v for v in parts if v is not None]
                value = sum(scored) / len(scored) if scored else None
            rows.append(
                {
                    "id": str(sample["doc"]["id"]),
                    "epoch": 1,
                    "value": value,
                    "parts": parts,
                    "reason": record.get("reason"),
                    "token": _token(str(sample.get("resps"))),
                }
            )
    return rows


def run_storm(
    ctx: Context, command: list[str], env: dict[str, str], name: str, rows: Callable[[], list]
) -> dict:
    """A storm run: the judging command once to its end (no kill, no resume), timed from the
    first judge request to its exit (the harness's start-up is not the judging's)."""
    started = time.time()
    code = run_to_end(command, env, ctx.log(name))
    took = time.time() - (ctx.judge.first_at or started)
    print(f"{name}: exit code {code}, {took:.1f} s from the first judge request to its end")
    return {"rows": rows(), "took": took, "code": code, "output": ctx.logs[-1]}


# ---------------------------------------------------------------------------------- checks


def storm_bound(ctx: Context, harness: str) -> float:
    """How long a storm that never clears may hold the judging: one budget for our lm-eval
    judge (a queued judgment is charged the holds it waits through); Inspect runs samples in
    waves of `--max-connections`, each judgment bounded by `judge_timeout`."""
    if harness == "lm-eval":
        return ctx.args.storm_budget + STORM_MARGIN
    waves = -(-ctx.n // ctx.args.concurrency)  # a second a wave: Inspect's own scheduling
    return waves * (ctx.args.storm_budget + 1) + STORM_MARGIN


def check_storm(ctx: Context, name: str, harness: str, result: dict) -> list[str]:
    rows, storm = result["rows"], ctx.args.storm
    ids = collections.Counter((r["id"], r["epoch"]) for r in rows)
    scored = [r for r in rows if r["value"] is not None]
    kinds = collections.Counter(r.kind for r in ctx.judge.requests)
    output = result["output"].read_text("utf-8", "replace")
    print(f"\n{name}: storm {storm}: {len(rows)} samples, {len(scored)} scored, judge requests "
          f"{dict(kinds)}, {result['took']:.1f} s")  # fmt: skip
    failures: list[tuple[str, str]] = []
    if len(ids) != ctx.n or any(count > 1 for count in ids.values()):
        failures.append(
            (CHECKS[0], f"{len(ids)} distinct samples of {len(rows)}, expected {ctx.n}")
        )
    if storm == "forever":
        if scored:
            failures.append((STORM_CHECKS[0], f"{len(scored)} scored: {scored[0]['value']}"))
        off = [r for r in rows if r["value"] is None and "429" not in (r["reason"] or "")]
        if off:
            failures.append((STORM_CHECKS[1], f"{len(off)}, e.g. {off[0]['reason']!r}"))
        if "NO SAMPLE WAS SCORED" not in output:
            failures.append((STORM_CHECKS[2], f"no all-unscored banner in {result['output']}"))
        if result["took"] > (bound := storm_bound(ctx, harness)):
            failures.append((STORM_CHECKS[3], f"{result['took']:.1f} s, bound {bound:.1f} s"))
    else:
        unscored = [r for r in rows if r["value"] is None]
        if unscored or not kinds["429"]:
            shown = unscored[0]["reason"] if unscored else "no 429 was sent"
            failures.append((STORM_CHECKS[4], f"{len(unscored)} unscored: {shown!r}"))
    if leaks := find_secrets(ctx.work, ctx.secrets):
        failures.append((CHECKS[6], f"{len(leaks)} found: {group_leaks(leaks)}"))
    for check_name, detail in failures:
        print(f"  FAIL: {check_name}: {detail}")
    if not failures:
        print("  OK")
    return [f"{name}: {c}" for c, _ in failures]


def find_secrets(folder: Path, secrets: Secrets) -> list[str]:
    """`file: what` for every secret form in any file under `folder` (.eval members opened; a
    member that cannot be read is reported too, so nothing is skipped unseen)."""
    try:  # Inspect writes .eval members zstd-compressed: its import teaches zipfile zstd
        import inspect_ai._util.zipfile  # noqa: F401
    except ImportError:  # pragma: no cover - an Inspect that moved it
        import zipfile_zstd  # type: ignore[import-not-found]  # noqa: F401
    forms = secrets.forms()
    pattern = re.compile("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)))
    found = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        name = str(path.relative_to(folder))
        blobs = [(name, path.read_bytes())]
        if path.suffix == ".eval":
            try:
                with zipfile.ZipFile(path) as archive:
                    blobs += [(f"{name}:{m}", archive.read(m)) for m in archive.namelist()]
            except (zipfile.BadZipFile, NotImplementedError, OSError) as exc:
                found.append(f"{name}: unreadable ({type(exc).__name__}), so not checked")
        for where, data in blobs:
            for match in {m.group(0) for m in pattern.finditer(data.decode("latin-1"))}:
                how = "as is" if match in secrets.all() else "encoded"
                found.append(f"{where}: {forms[match]} ({how})")
    return found


def group_leaks(leaks: list[str]) -> str:
    """`where: what` lines grouped by file kind (numbers, timestamps and ids as #)."""
    groups = collections.Counter(
        re.sub(r"[#T:.-]*#[#T:-]*", "#", re.sub(r"\d+|(?<=_)[A-Za-z0-9]{22}(?=\.eval)", "#", leak))
        for leak in leaks
    )
    return "; ".join(f"{count} x {group}" for group, count in groups.most_common(8))


def _in_range(value: Any, bench: Benchmark) -> bool:
    return isinstance(value, int | float) and bench.low <= value <= bench.high


def _part_ok(part: Any, bench: Benchmark) -> bool:
    if part is None:
        return True
    if bench.name == "care":
        return _in_range(part, bench)
    legal = (-1, 0, 1) if bench.name == "culturesynth" else (0, 0.5, 1)
    return isinstance(part, int | float) and part in legal


def check(ctx: Context, name: str, result: dict) -> list[str]:
    bench, judge, n = ctx.bench, ctx.judge, ctx.n
    rows = result["rows"]
    ids = collections.Counter((r["id"], r["epoch"]) for r in rows)
    unscored = [r for r in rows if r["value"] is None]
    paid = judge.report(result["killed_at"], result["resumed_at"], result["unwritten"])
    reasons = collections.Counter(
        re.sub(r"\d+(\.\d+)?", "#", r["reason"] or "(none)") for r in unscored
    )
    forced = judge.forced_tokens()
    due = [r for r in rows if r["token"] in forced]
    print(
        f"\n{name}: {len(rows)} samples, {len(ids)} distinct, {len(unscored)} unscored, "
        f"{len(due)} with an always-garbage judgment"
    )
    for reason, count in reasons.most_common(6):
        print(f"  {count:4d} x {reason[:140]}")
    print("  judge: " + ", ".join(f"{k} {v}" for k, v in paid.items()))
    print("  Authorization headers received: " + ", ".join(
        f"{kind} {count}" for kind, count in sorted(judge.authorizations.items())))  # fmt: skip
    failures: list[tuple[str, str]] = []
    if len(ids) != n:
        failures.append((CHECKS[0], f"{len(ids)} distinct samples, expected {n}"))
    if any(count > 1 for count in ids.values()):
        failures.append((CHECKS[0], "a sample counted twice"))
    out = [
        r
        for r in rows
        if (r["value"] is not None and not _in_range(r["value"], bench))
        or not all(_part_ok(p, bench) for p in r["parts"])
    ]
    if out:
        shown = [(r["id"], r["value"], r["parts"]) for r in out[:3]]
        failures.append((CHECKS[1], f"{len(out)} samples outside {bench.low:g}..{bench.high:g} "
                                    f"or its legal values: {shown}"))  # fmt: skip
    scored_due = [r for r in due if r["value"] is not None]
    if scored_due or len(unscored) < len(due):
        shown = [(r["id"], r["value"]) for r in scored_due[:3]]
        failures.append((CHECKS[2], f"{len(scored_due)} of {len(due)} samples whose judgment is "
                         f"always garbage were scored ({len(unscored)} unscored): {shown}"))  # fmt: skip
    if not forced:
        failures.append((CHECKS[2], "no always-garbage judgment was drawn: nothing checked"))
    unreadable = [r for r in unscored if not r["reason"] or UNREADABLE.search(r["reason"])]
    if unreadable:
        shown = [(r["id"], r["reason"]) for r in unreadable[:2]]
        failures.append((CHECKS[3], f"{len(unreadable)} unscored without a readable reason "
                                    f"written by the harness: {shown}"))  # fmt: skip
    if not paid["paid_before_kill"] or not paid["paid_after_kill"]:
        failures.append((CHECKS[4], f"{paid['paid_before_kill']} judgments paid before the kill,"
                                    f" {paid['paid_after_kill']} after it (both must be > 0)"))  # fmt: skip
    if paid["paid_twice_otherwise"]:
        failures.append((CHECKS[5], f"{paid['paid_twice_otherwise']} judgments paid twice, not in "
                                    "flight at the kill (kind, received and answered, seconds "
                                    f"from the kill): {judge.twice_detail[:3]}"))  # fmt: skip
    leaks = find_secrets(ctx.work, ctx.secrets)
    if leaks:
        failures.append((CHECKS[6], f"{len(leaks)} found: {group_leaks(leaks)}"))
    for check_name, detail in failures:
        print(f"  FAIL: {check_name}: {detail}")
    if not failures:
        print("  OK")
    result["summary"] = {
        "samples": len(rows),
        "distinct": len(ids),
        "unscored": len(unscored),
        "always_garbage": len(due),
        "reasons": reasons.most_common(3),
        **paid,
    }
    return [f"{name}: {c}" for c, _ in failures]


# ---------------------------------------------------------------------------------- main


def run_one(args: argparse.Namespace, bench: Benchmark, harness: str, seed: int) -> dict:
    judge = ChaosJudge(seed, args.window_start, args.window, args.retry_after, args.storm,
                       args.storm_requests)  # fmt: skip
    secrets = Secrets.draw(seed)
    with (
        tempfile.TemporaryDirectory(prefix="judge_chaos_") as tmp,
        StubOpenAIServer(responder=generation_responder) as gen,
        StubOpenAIServer(
            responder=judge.respond, latency=args.latency, fault=judge.fault
        ) as judge_server,
    ):
        work = Path(tmp)
        n, judgments, baseline = prepare_data(bench, args.size, work)
        # Inspect: the key only (a URL with credentials is refused); lm-eval: URL credentials
        url = secrets.url(judge_server.base_url) if harness == "lm-eval" else judge_server.base_url
        ctx = Context(args, bench, judge, secrets, work, url, gen.base_url, n, judgments, baseline)
        started = time.time()
        print(f"\n=== {bench.label}, {harness}: {n} samples, seed {seed}")
        result = (run_inspect if harness == "inspect" else run_lm_eval)(ctx)
        result["wall"] = time.time() - started
        print(f"{harness}: {result['wall']:.1f} s in all")
        label = f"{bench.label}, {harness}"
        checker = check_storm if args.storm else lambda c, n, _, r: check(c, n, r)
        result["failures"] = checker(ctx, label, harness, result)
        if args.keep:
            import shutil

            kept = Path(args.keep) / f"{bench.name}_{harness}"
            shutil.rmtree(kept, ignore_errors=True)
            shutil.copytree(work, kept)
        return result


def print_table(results: dict[tuple[str, str], dict]) -> None:
    columns = list(results)
    print("\n| | " + " | ".join(f"{SPECS[b].label}, {h}" for b, h in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    rows: list[tuple[str, Callable[[dict], Any]]] = [
        ("samples (distinct)", lambda s: f"{s['samples']} ({s['distinct']})"),
        ("unscored / always-garbage samples", lambda s: f"{s['unscored']} / {s['always_garbage']}"),
        ("judge requests", lambda s: s["requests"]),
        ("500 / hang / 429 / garbage / always garbage / verdict", lambda s: " / ".join(
            str(s.get(f"requests_{k}", 0)) for k in ("500", "hang", "429", "garbage", "forced",
                                                       "verdict"))),  # fmt: skip
        ("judgments paid (before / after the kill)",
         lambda s: f"{s['judgments_paid']} ({s['paid_before_kill']} / {s['paid_after_kill']})"),
        ("paid twice / in flight at the kill",
         lambda s: f"{s['paid_twice']} / {s['paid_twice_in_flight_at_kill']}"),
    ]  # fmt: skip
    for label, cell in rows:
        values = [str(cell(results[c]["summary"])) for c in columns if "summary" in results[c]]
        print(f"| {label} | " + " | ".join(values) + " |")
    print("| wall time, run + resume | " + " | ".join(
        f"{results[c]['wall']:.1f} s" for c in columns) + " |")  # fmt: skip
    print("| checks | " + " | ".join(
        "OK" if not results[c]["failures"] else "FAIL" for c in columns) + " |")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--benchmark", choices=(*BENCHMARKS, "all"), default="all")
    parser.add_argument("--harness", choices=("inspect", "lm-eval", "both"), default="both")
    parser.add_argument(
        "--size", type=int, default=None, help="samples per benchmark at most (default: all)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--mutation", choices=MUTATIONS, default=None, help="break one property (tests)"
    )
    parser.add_argument(
        "--credentials-check",
        choices=("on", "off", "only"),
        default="on",
        help="Inspect: a grader URL with credentials is refused (on: with an Inspect run)",
    )
    parser.add_argument("--latency", type=float, default=0.05, help="judge latency (s)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument(
        "--judge-timeout", type=float, default=5.0, help="one attempt (both harnesses)"
    )
    parser.add_argument(
        "--inspect-judge-timeout",
        type=float,
        default=60.0,
        help="Inspect: one judgment, retries included",
    )
    parser.add_argument("--window-start", type=float, default=5.0)
    parser.add_argument("--window", type=float, default=15.0, help="rate-limit window (s)")
    parser.add_argument("--retry-after", type=int, default=3)
    parser.add_argument(
        "--storm",
        choices=("forever", "burst"),
        help="instead of the chaos: every judge request answered 429 with Retry-After "
        "(forever), or the first --storm-requests of them (burst), then clean verdicts",
    )
    parser.add_argument(
        "--storm-budget", type=float, default=8.0,
        help="judge_retry_budget (lm-eval) and judge_timeout (Inspect) in a storm (s)",
    )  # fmt: skip
    parser.add_argument("--storm-requests", type=int, default=20, help="429s in a burst")
    parser.add_argument("--keep", metavar="DIR", help="copy each run's files here")
    args = parser.parse_args(argv)
    benches = BENCHMARKS if args.benchmark == "all" else (args.benchmark,)
    harnesses = ("inspect", "lm-eval") if args.harness == "both" else (args.harness,)
    failures: list[str] = []
    if args.credentials_check != "off" and "inspect" in harnesses:
        failures += check_inspect_credentials(args, Secrets.draw(args.seed))
    results: dict[tuple[str, str], dict] = {}
    if args.credentials_check != "only":
        for b, bench_name in enumerate(benches):
            for h, harness in enumerate(harnesses):
                result = run_one(args, SPECS[bench_name], harness, args.seed + 10 * b + h)
                results[bench_name, harness] = result
                failures += result["failures"]
        if not args.storm:
            print_table(results)
    print(f"\n{len(failures)} failed checks" + "".join(f"\n  FAIL {f}" for f in failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""Chaos test of the judge layer: CARE in both harnesses against a judge that fails a lot, killed
at a random point and resumed.

    python benchmarks/judge_chaos.py --seed 7

The judge (a stub server in this process, so it outlives the killed run and counts every
request) answers each judge request with, by a seeded draw: HTTP 500 (30%), a hang that never
answers (10%), a reply with no verdict (10%), or a verdict; and every judge request in a
rate-limit window (`--window` seconds, from `--window-start` seconds after the first judge
request) gets HTTP 429 with `Retry-After`. The evaluated model is a second, well-behaved stub
whose answers are deterministic, so a re-generated sample asks the judge the same question.

- Inspect: `inspect eval inspect_culture/care.py`, killed (SIGKILL) after a random number of
  paid judgments, then `inspect eval-retry` on the crashed log.
- lm-eval: generation only (`judge_later`, `--log_samples`), then `culture-evals judge` on the
  saved generations, killed the same way, then the same command again.

Checked at the end, for each harness: every sample is scored, or unscored with a readable
reason; no sample is lost or counted twice; and no judgment is paid twice (answered with a
verdict or a reply twice for the same request), apart from those in flight at the kill. The
script prints these counts and exits non-zero when a check fails.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.openai_stub import StubOpenAIServer, care_responder  # noqa: E402

BIN = Path(sys.executable).parent
HANG = 3600.0  # seconds: a hung request is never answered while the benchmark runs
# What a readable reason must not look like: a key, a bearer token, an object repr.
UNREADABLE = re.compile(r"sk-[A-Za-z0-9]|Bearer |<Future|object at 0x|RetryError\[")


@dataclass
class Request:
    key: str
    kind: str  # "500", "429", "hang", "garbage", "verdict"
    received: float
    answered: float | None = None


@dataclass
class ChaosJudge:
    """Decides each judge request's fate and records it. Thread-safe: the stub serves requests
    on its own event loop thread while the benchmark reads the counts."""

    seed: int
    window_start: float
    window: float
    retry_after: int
    requests: list[Request] = field(default_factory=list)
    first_at: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def fault(self, _: int, body: dict[str, Any]) -> Any:
        now = time.time()
        key = hashlib.sha256(
            json.dumps(body.get("messages"), sort_keys=True).encode("utf-8")
        ).hexdigest()
        with self.lock:
            self.first_at = self.first_at or now
            since = now - self.first_at
            draw = self.rng.random()
            if self.window_start <= since < self.window_start + self.window:
                kind = "429"
            elif draw < 0.3:
                kind = "500"
            elif draw < 0.4:
                kind = "hang"
            elif draw < 0.5:
                kind = "garbage"
            else:
                kind = "verdict"
            self.requests.append(Request(key, kind, now))
            body["_chaos"] = len(self.requests) - 1  # the responder marks it answered
        if kind == "429":
            return {"status": 429, "headers": {"Retry-After": str(self.retry_after)}}
        if kind == "500":
            return 500
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
        if request.kind == "garbage":
            return "I would rather not say."
        return care_responder(prompt, body)

    def paid(self) -> int:
        with self.lock:
            return sum(1 for r in self.requests if r.answered is not None)

    def report(self, killed_at: float) -> dict[str, int]:
        """Judgments paid more than once, and how many of those were in flight at the kill."""
        with self.lock:
            requests = list(self.requests)
        paid = collections.Counter(r.key for r in requests if r.answered is not None)
        in_flight = {
            r.key
            for r in requests
            if r.kind in ("verdict", "garbage")
            and r.received < killed_at
            and (r.answered is None or r.answered >= killed_at - 0.05)
        }
        twice = {key for key, n in paid.items() if n > 1}
        kinds = collections.Counter(r.kind for r in requests)
        return {
            "requests": len(requests),
            **{f"requests_{kind}": n for kind, n in sorted(kinds.items())},
            "judgments_paid": sum(paid.values()),
            "paid_twice": len(twice),
            "paid_twice_in_flight_at_kill": len(twice & in_flight),
            "paid_twice_otherwise": len(twice - in_flight),
        }


def generation_responder(prompt: str, _: dict[str, Any]) -> str:
    """The evaluated model: a deterministic answer per question."""
    digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:8]
    return f"An answer about this question ({digest})."


def run_until_killed(
    command: list[str], env: dict[str, str], judge: ChaosJudge, kill_after: int, log: Path
) -> float:
    """Start `command`; SIGKILL its process group once `kill_after` more judgments are paid.
    Returns the kill time (or the end time, if it finished first)."""
    start_paid = judge.paid()
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            command, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        while process.poll() is None:
            if judge.paid() - start_paid >= kill_after:
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


def base_env(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "INSPECT_CULTURE_CACHE_DIR": str(work / "cache"),
            "INSPECT_CULTURE_JUDGE_CACHE": str(work / "judge_cache.sqlite"),
            "INSPECT_CACHE_DIR": str(work / "inspect_cache"),
            "HF_DATASETS_CACHE": str(work / "hf_cache"),
            "INSPECT_CULTURE_HF_ENDPOINT": "http://127.0.0.1:9",  # never reached: CARE is bundled
            "STUB_API_KEY": "not-a-key",
            "GEN_API_KEY": "not-a-key",  # openai-api/gen/... (Inspect reads <SERVICE>_API_KEY)
            "CHAOS_API_KEY": "not-a-key",
            "OPENAI_API_KEY": "not-a-key",
            "INSPECT_CULTURE_JUDGE_API_KEY": "not-a-key",
            "INSPECT_LOG_DIR": str(work / "logs"),
        }
    )
    return env


# ---------------------------------------------------------------------------------- Inspect


def inspect_samples(log_dir: Path) -> list[dict[str, Any]]:
    """The samples of the newest successful log: id, score value and reason."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    logs = [read_eval_log(info) for info in list_eval_logs(str(log_dir))]
    finished = [log for log in logs if log.status == "success"]
    if not finished:
        raise SystemExit(f"no successful Inspect log in {log_dir}: {[g.status for g in logs]}")
    log = max(finished, key=lambda g: g.eval.created)
    rows = []
    for sample in log.samples or []:
        score = next(iter((sample.scores or {}).values()), None)
        value = None if score is None else score.value
        if isinstance(value, float) and value != value:  # NaN: unscored
            value = None
        rows.append(
            {
                "id": str(sample.id),
                "epoch": sample.epoch,
                "value": value,
                "reason": None if value is not None else _unscored_reason(score),
            }
        )
    return rows


def _unscored_reason(score: Any) -> str:
    if score is None:
        return ""
    return str(score.reason or (score.metadata or {}).get("reason") or "")


def run_inspect(args: argparse.Namespace, judge_url: str, gen_url: str, work: Path) -> dict:
    judge = args.judge
    log_dir = work / "inspect_logs"
    env = base_env(work)
    grader = json.dumps(
        {
            "model": "openai-api/chaos/judge",
            "model_args": {"base_url": judge_url},
            "attempt_timeout": round(args.judge_timeout),  # a hung attempt is retried
        }
    )
    command = [
        str(BIN / "inspect"), "eval", "inspect_culture/care.py", "-T", "language=zh",
        "-T", f"judge_timeout={args.inspect_judge_timeout}",
        "-T", "judge_preflight=false",
        "--model", "openai-api/gen/model", "--model-base-url", gen_url,
        "--model-role", f"grader={grader}", "--log-dir", str(log_dir),
        "--max-connections", str(args.concurrency), "--display", "none",
    ]  # fmt: skip
    kill_after = random.Random(args.seed).randint(args.n // 4, 3 * args.n // 4)
    print(f"Inspect: kill after {kill_after} paid judgments")
    killed_at = run_until_killed(command, env, judge, kill_after, work / "inspect_1.log")
    [crashed] = sorted(log_dir.glob("*.eval"))
    code = run_to_end(
        [str(BIN / "inspect"), "eval-retry", str(crashed), "--log-dir", str(log_dir),
         "--max-connections", str(args.concurrency), "--display", "none"],
        env, work / "inspect_2.log",
    )  # fmt: skip
    print(f"Inspect: resumed, exit code {code}")
    rows = inspect_samples(log_dir)
    return {"rows": rows, "killed_at": killed_at, "log": _read_all(log_dir)}


def _read_all(folder: Path) -> str:
    """Every byte the harness left in `folder` (zip members included), as text to grep."""
    texts = []
    for path in folder.rglob("*"):
        if path.suffix == ".eval":
            with zipfile.ZipFile(path) as archive:
                texts += [archive.read(n).decode("utf-8", "replace") for n in archive.namelist()]
        elif path.is_file():
            texts.append(path.read_text("utf-8", "replace"))
    return "\n".join(texts)


# ---------------------------------------------------------------------------------- lm-eval


def run_lm_eval(args: argparse.Namespace, judge_url: str, gen_url: str, work: Path) -> dict:
    judge = args.judge
    env = base_env(work)
    generated, judged = work / "lm_eval_generated", work / "lm_eval_judged"
    from inspect_culture.lm_eval_tasks import include_path

    code = run_to_end(
        [str(BIN / "lm_eval"), "--model", "local-chat-completions", "--model_args",
         f"model=model,base_url={gen_url}/chat/completions,num_concurrent=8,max_retries=1",
         "--tasks", "care_zh", "--include_path", str(include_path()), "--apply_chat_template",
         "--metadata", json.dumps({"judge_later": True}), "--log_samples",
         "--output_path", str(generated)],
        env, work / "lm_eval_generate.log",
    )  # fmt: skip
    if code != 0:
        raise SystemExit(f"lm-eval generation failed ({code}): see {work / 'lm_eval_generate.log'}")
    command = [
        str(BIN / "culture-evals"), "judge", str(generated), "--judge-model", "judge",
        "--judge-base-url", judge_url, "-o", str(judged),
        "--metadata", json.dumps({"judge_timeout": args.judge_timeout,
                                  "judge_concurrency": args.concurrency,
                                  "judge_preflight": False}),
    ]  # fmt: skip
    kill_after = random.Random(args.seed + 1).randint(args.n // 4, 3 * args.n // 4)
    print(f"lm-eval: kill `culture-evals judge` after {kill_after} paid judgments")
    killed_at = run_until_killed(command, env, judge, kill_after, work / "lm_eval_judge_1.log")
    code = run_to_end(command, env, work / "lm_eval_judge_2.log")
    print(f"lm-eval: resumed, exit code {code}")
    rows = []
    for path in sorted(judged.rglob("samples_care_zh_*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            sample = json.loads(line)
            record = json.loads(sample["filtered_resps"][0])
            outcome = sample["rating"]  # the outcome record every CARE metric carries
            rows.append(
                {
                    "id": str(sample["doc"]["id"]),
                    "epoch": 1,
                    "value": outcome.get("rating"),
                    "reason": None
                    if outcome.get("rating") is not None
                    else record["error"] or "no rating in the judge's reply",
                }
            )
    return {"rows": rows, "killed_at": killed_at, "log": _read_all(judged)}


# ---------------------------------------------------------------------------------- checks


def check(name: str, result: dict, judge: ChaosJudge, n: int) -> bool:
    rows = result["rows"]
    ids = collections.Counter((r["id"], r["epoch"]) for r in rows)
    unscored = [r for r in rows if r["value"] is None]
    unreadable = [r for r in unscored if not r["reason"] or UNREADABLE.search(r["reason"])]
    paid = judge.report(result["killed_at"])
    reasons = collections.Counter(re.sub(r"\d+(\.\d+)?", "#", r["reason"]) for r in unscored)
    print(f"\n{name}: {len(rows)} samples, {len(ids)} distinct, {len(unscored)} unscored")
    for reason, count in reasons.most_common(6):
        print(f"  {count:4d} x {reason[:140]}")
    print("  judge: " + ", ".join(f"{k} {v}" for k, v in paid.items()))
    failures = []
    if len(ids) != n:
        failures.append(f"{len(ids)} distinct samples, expected {n} (lost samples)")
    if any(count > 1 for count in ids.values()):
        failures.append("a sample counted twice")
    if unreadable:
        failures.append(f"{len(unreadable)} unscored without a readable reason: {unreadable[:2]}")
    if paid["paid_twice_otherwise"]:
        failures.append(f"{paid['paid_twice_otherwise']} judgments paid twice")
    if UNREADABLE.search(result["log"]):
        failures.append("an unreadable reason or a key in the run's files")
    for failure in failures:
        print(f"  FAIL: {failure}")
    if not failures:
        print("  OK")
    return not failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--harness", choices=("inspect", "lm-eval", "both"), default="both")
    parser.add_argument("--latency", type=float, default=0.05, help="judge latency (s)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument(
        "--judge-timeout",
        type=float,
        default=5.0,
        help="lm-eval: one attempt, and Inspect --timeout",
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
    args = parser.parse_args()
    args.n = 150  # CARE zh
    ok = True
    harnesses = ("inspect", "lm-eval") if args.harness == "both" else (args.harness,)
    for offset, harness in enumerate(harnesses):
        judge = ChaosJudge(args.seed + offset, args.window_start, args.window, args.retry_after)
        args.judge = judge
        with (
            tempfile.TemporaryDirectory(prefix="judge_chaos_") as tmp,
            StubOpenAIServer(responder=generation_responder) as gen,
            StubOpenAIServer(
                responder=judge.respond, latency=args.latency, fault=judge.fault
            ) as judge_server,
        ):
            work = Path(tmp)
            started = time.time()
            run = run_inspect if harness == "inspect" else run_lm_eval
            result = run(args, judge_server.base_url, gen.base_url, work)
            print(f"{harness}: {time.time() - started:.1f} s in all")
            ok &= check(harness, result, judge, args.n)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Judge throughput of both harness paths against the local stub server.

    python benchmarks/judge_throughput.py --n 1000 --latency 0.1 --concurrency 32
    python benchmarks/judge_throughput.py --paths compare --n 500 --reps 3
    python benchmarks/judge_throughput.py --paths lm-eval-compare --n 500 --reps 3

`--paths compare` (the baselines, in one invocation, repetitions interleaved, ratios within
the run, medians reported):

- inspect-vs-mgqa: the same full CARE eval (same samples, solvers, generation stub, judge
  server) once scored by our `care_judge` and once by Inspect's built-in `model_graded_qa`
  bound to the same grader role; the ratio of whole-eval wall times. `model_graded_qa` is
  given the CARE judge prompt as its template (`--mgqa-template care`, the default), so both
  send prompts of the same size; `--mgqa-template default` uses its own short template.
- lm-eval floor: the same requests from a bare aiohttp client (nothing but send and read),
  the best any client can do against this server on this machine.
`--paths lm-eval-compare`: the lm-eval pair alone (filter / `LocalChatCompletion`, the wall
goal: at most 1.02x), then the filter's CPU a judgment with its breakdown (fencing, cache key,
cache lookup and write, redaction, request body, the rest), each part's share of a `cProfile`
run times the unprofiled CPU; `benchmarks/full_scale.py --judge` runs it.

- lm-eval-vs-client: our lm-eval judge filter over N responses vs lm-eval's own API client
  (`LocalChatCompletion.generate_until`) sending N chat requests of the same judge prompts at
  the same concurrency to the same judge server; the ratio of wall times.

Each judge call takes `--latency` seconds at the server. The ideal wall time is
N x latency / concurrency; one call at a time would take N x latency. Reported figures are
ratios within one run, so a noisy machine moves both sides alike.

- lm-eval path: the CARE task's judge filter (`lm_eval_tasks.care.utils.judge_filter`) over N
  synthetic responses, exactly as lm-eval calls it after generation.
- inspect-api: the judge calls exactly as the CARE scorer makes them (Inspect's model API, the
  judge's GenerateConfig and cache policy), N at once with max_connections = concurrency,
  outside an eval: the judge layer's own cost in Inspect.
- inspect-score: judging an existing log, as `inspect score` does: a CARE eval of N samples run
  without scoring (generation from a second stub server with no latency), its samples loaded,
  then `score_async` with the CARE scorer and the stub judge as grader role. Only the scoring
  pass is timed.
- inspect: a full CARE eval of N samples whose grader role is the stub server; generation goes
  to a second stub server with no latency. Its judging time is the span from the first judge
  request to the last judge response, read from the judge server; the whole eval's wall time,
  the same eval with an instant judge, and with `log_realtime=False`, are printed too.

`cpu ms` is the client process's CPU time per judgment (the stub judge runs in another
process). A client on one event loop cannot finish faster than N x that, so the 1.25x target
needs it well under 1.25 x latency / concurrency (3.9 ms at 100 ms and 32).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.openai_stub import StubOpenAIServer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# Characters of each evaluated answer the judge reads (`--answer-chars`): judge prompts are built,
# fenced and sent with answers of a real model's length, not a few words.
ANSWER_CHARS = 600


def answer(i: int, nonce: int, record: dict | None = None) -> str:
    """A distinct answer of ANSWER_CHARS characters (distinct: no judge-cache hits)."""
    tag = f" ({i} {nonce})"
    text = (record or {}).get("answer") or "一个关于文化的回答。"
    return (text * (ANSWER_CHARS // max(1, len(text)) + 1))[: max(0, ANSWER_CHARS - len(tag))] + tag


@contextlib.contextmanager
def judge_server(latency: float, reply: str = "Rating: [[7]]", extra: tuple[str, ...] = ()):
    """The judge endpoint in its own process, as a remote server would be (`extra`: more
    arguments of `tests.support.openai_stub`, e.g. its rate limits)."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.support.openai_stub",
            "--latency",
            str(latency),
            "--reply",
            reply,
            *extra,
        ],  # fmt: skip
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        yield process.stdout.readline().strip()  # the base URL
    finally:
        process.terminate()
        process.wait()


class Timer:
    """Wall and process CPU time of a block."""

    def __enter__(self) -> Timer:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *_: object) -> None:
        self.wall = time.perf_counter() - self._wall
        self.cpu = time.process_time() - self._cpu


def lm_eval_path(
    n: int, latency: float, concurrency: int, judge_url: str | None = None, **options: object
) -> Timer:
    from inspect_culture.benchmarks.care.data import load_care
    from inspect_culture.judging.options import metadata_options
    from inspect_culture.lm_eval_tasks.care.utils import judge_filter
    from inspect_culture.lm_eval_tasks.judge.batch import use_task_options

    records = load_care("zh").records
    server = contextlib.nullcontext(judge_url) if judge_url else judge_server(latency)
    with server as base_url:
        judge = {
            "judge_model": "bench",
            "judge_base_url": base_url,
            "judge_concurrency": concurrency,
            **options,
        }
        checked = metadata_options({**judge, "judge_preflight": False})
        docs = [
            {**records[i % len(records)], "judge_mapping": "paper", "lm_eval_task": "care_zh"}
            for i in range(n)
        ]
        nonce = time.time_ns()
        responses = [answer(i, nonce, docs[i]) for i in range(n)]
        with use_task_options("care_zh", checked), Timer() as timer:
            replies = judge_filter(responses, docs)
        timer.failed = sum('"error": null' not in r for r in replies)
        assert options or not timer.failed, "every judgment must succeed"
        timer.served = stub_stats(base_url)["served_seconds"]
    return timer


def stub_stats(base_url: str) -> dict:
    with urllib.request.urlopen(f"{base_url}/stats") as response:
        return json.load(response)


def _care_task(n: int):
    from inspect_culture.care import care

    task = care(language="zh")
    task.dataset = _repeat(task.dataset, n)
    return task


def _timed_eval(task, model_url: str, judge_url: str, concurrency: int, **options):
    """(log, timer) of one Inspect eval of `task` with the stub judge as grader role."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    os.environ["STUB_API_KEY"] = "bench"
    grader = get_model("openai-api/stub/judge", base_url=judge_url)
    with Timer() as timer:
        [log] = inspect_eval(
            task,
            model="openai-api/stub/model",
            model_base_url=model_url,
            model_roles={"grader": grader},
            max_connections=concurrency,
            max_samples=concurrency * 2,
            display="none",
            log_dir=tempfile.mkdtemp(),
            cache=False,
            **options,
        )
    assert log.status == "success", log.error
    return log, timer


def _inspect_run(n: int, latency: float, concurrency: int, **options) -> tuple[float, Timer]:
    """(judging span in seconds, whole eval's timer) of a full CARE eval."""

    nonce = time.time_ns()  # fresh answers, so Inspect's judge cache cannot serve this run
    with (
        StubOpenAIServer(responder=lambda p, b: answer(len(p), nonce)) as model,
        judge_server(latency) as judge_url,
    ):
        log, timer = _timed_eval(_care_task(n), model.base_url, judge_url, concurrency, **options)
        stats = stub_stats(judge_url)
        # every judgment, and the one check before generation
        assert stats["requests"] == n + 1, f"every judgment must reach the judge server: {stats}"
    return stats["last_response_at"] - stats["first_request_at"], timer


def _repeat(dataset, n: int):
    from inspect_ai.dataset import MemoryDataset

    samples = []
    for i in range(n):
        sample = dataset[i % len(dataset)].model_copy(deep=True)
        sample.id = f"s{i}"
        sample.metadata["question"] += f" #{i}"  # distinct judge prompts: no judge-cache hits
        samples.append(sample)
    return MemoryDataset(samples)


def inspect_api_path(n: int, latency: float, concurrency: int) -> Timer:
    import asyncio

    from inspect_ai.model import GenerateConfig, get_model

    from inspect_culture.benchmarks.care.data import load_care
    from inspect_culture.benchmarks.care.prompts import judge_prompt
    from inspect_culture.inspect_adapter.judge import JUDGE_CONFIG

    records = load_care("zh").records
    nonce = time.time_ns()
    prompts = [
        judge_prompt(r["category"], r["question"], r["answer"], answer(i, nonce, r))
        for i, r in ((i, records[i % len(records)]) for i in range(n))
    ]
    with judge_server(latency) as judge_url:
        os.environ["STUB_API_KEY"] = "bench"
        grader = get_model(
            "openai-api/stub/judge", base_url=judge_url,
            config=GenerateConfig(max_connections=concurrency),
        )  # fmt: skip

        async def judge_all() -> list:
            return await asyncio.gather(*(grader.generate(p, config=JUDGE_CONFIG) for p in prompts))

        with Timer() as timer:
            outputs = asyncio.run(judge_all())
        assert all("Rating" in o.completion for o in outputs), "every judgment must succeed"
    return timer


def inspect_score_path(n: int, latency: float, concurrency: int) -> Timer:
    import asyncio

    from inspect_ai import eval as inspect_eval
    from inspect_ai import score_async
    from inspect_ai.model import GenerateConfig, get_model

    from inspect_culture.care import care_judge

    nonce = time.time_ns()  # fresh answers: no judge-cache hits
    with StubOpenAIServer(responder=lambda p, b: answer(len(p), nonce)) as model:
        os.environ["STUB_API_KEY"] = "bench"
        [log] = inspect_eval(
            _care_task(n),
            model="openai-api/stub/model",
            model_base_url=model.base_url,
            # bound because the task requires a grader; never called, since nothing is scored
            model_roles={"grader": get_model("openai-api/stub/judge", base_url=model.base_url)},
            score=False,
            max_connections=concurrency,
            max_samples=concurrency * 2,
            display="none",
            log_dir=tempfile.mkdtemp(),
            cache=False,
        )
    assert log.status == "success" and len(log.samples) == n  # loads the samples
    with judge_server(latency) as judge_url:
        grader = get_model(
            "openai-api/stub/judge", base_url=judge_url,
            config=GenerateConfig(max_connections=concurrency),
        )  # fmt: skip
        with Timer() as timer:  # what `inspect score` runs once the log is read
            scored = asyncio.run(
                score_async(
                    log, [care_judge()], model_roles={"grader": grader},
                    action="overwrite", display="none", copy=False,
                )
            )  # fmt: skip
        assert stub_stats(judge_url)["requests"] == n, "every judgment must reach the judge server"
    assert all(s.scores["care_judge"].value == 7 for s in scored.samples), "every judgment"
    return timer


def inspect_path(n: int, latency: float, concurrency: int) -> Timer:
    _inspect_run(min(n, 20), 0.0, concurrency)  # warm-up: imports, provider start-up
    _, instant = _inspect_run(n, 0.0, concurrency)
    _, quiet = _inspect_run(n, latency, concurrency, log_realtime=False)
    span, whole = _inspect_run(n, latency, concurrency)
    print(
        f"  inspect whole eval: {whole.wall:.2f} s ({whole.cpu / n * 1000:.1f} ms CPU a sample) "
        f"with this judge; {instant.wall:.2f} s with an instant judge; {quiet.wall:.2f} s "
        f"({quiet.cpu / n * 1000:.1f} ms CPU a sample) with log_realtime=False"
    )
    span_timer = Timer()
    span_timer.wall, span_timer.cpu = span, whole.cpu  # CPU: the whole eval's, per sample
    return span_timer


def _care_eval_wall(n: int, concurrency: int, judge_url: str, scorer: object | None) -> Timer:
    """Wall time of a full CARE eval of n fresh samples, scored by `scorer` (None: ours)."""

    nonce = time.time_ns()  # fresh answers: no judge-cache hits
    with StubOpenAIServer(responder=lambda p, b: answer(len(p), nonce)) as model:
        task = _care_task(n)
        if scorer is not None:
            task.scorer = [scorer]
        log, timer = _timed_eval(task, model.base_url, judge_url, concurrency)
    assert log.results.scores[0].scored_samples == n, "every judgment must succeed"
    return timer


def _judge_messages(n: int) -> list[list[dict[str, str]]]:
    from inspect_culture.benchmarks.care.data import load_care
    from inspect_culture.benchmarks.care.prompts import judge_prompt

    records = load_care("zh").records
    nonce = time.time_ns()
    return [
        [{"role": "user", "content": judge_prompt(
            r["category"], r["question"], r["answer"], answer(i, nonce, r))}]
        for i, r in ((i, records[i % len(records)]) for i in range(n))
    ]  # fmt: skip


def lm_eval_client(judge_url: str, n: int, **options: object) -> tuple[object, list]:
    """lm-eval's own API client (its defaults where `options` leave them) and N chat requests
    of the judge prompts."""
    from lm_eval.api.instance import Instance
    from lm_eval.models.api_models import JsonChatStr
    from lm_eval.models.openai_completions import LocalChatCompletion

    client = LocalChatCompletion(
        model="bench", base_url=f"{judge_url}/chat/completions", tokenizer_backend=None,
        tokenized_requests=False, **options,
    )  # fmt: skip
    gen = {"until": [], "max_gen_toks": 1024, "temperature": 0, "do_sample": False}
    requests = [
        Instance("generate_until", {}, (JsonChatStr(json.dumps(m, ensure_ascii=False)), gen), i)
        for i, m in enumerate(_judge_messages(n))
    ]
    return client, requests


def _lm_eval_client_timed(n: int, concurrency: int, judge_url: str) -> Timer:
    """lm-eval's own API client: N chat requests at the same concurrency."""
    client, requests = lm_eval_client(judge_url, n, num_concurrent=concurrency, max_retries=1)
    with Timer() as timer:
        replies = client.generate_until(requests, disable_tqdm=True)
    assert len(replies) == n and all("Rating" in r for r in replies), "every request"
    return timer


def _bare_client_timed(n: int, concurrency: int, judge_url: str) -> Timer:
    """The floor on this machine: the same N request bodies from a bare aiohttp client at the
    same concurrency, replies read and thrown away (no prompts, parsing, cache or retries)."""
    import asyncio

    import aiohttp

    bodies = [
        {"model": "bench", "messages": m, "temperature": 0.0, "max_tokens": 1024}
        for m in _judge_messages(n)
    ]

    async def send_all() -> None:
        todo = iter(bodies)
        connector = aiohttp.TCPConnector(limit=concurrency + 1)
        async with aiohttp.ClientSession(connector=connector) as session:

            async def worker() -> None:
                for body in todo:
                    async with session.post(f"{judge_url}/chat/completions", json=body) as reply:
                        await reply.read()

            await asyncio.gather(*(worker() for _ in range(concurrency)))

    with Timer() as timer:
        asyncio.run(send_all())
    return timer


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _same_prompt_model_graded_qa() -> object:
    """Inspect's `model_graded_qa` judging with a prompt of the CARE judge prompt's size: its
    template is that prompt (one category's rubric) with its question, reference and answer as
    the template's {question}, {criterion} and {answer}. Inspect copies, hashes and logs every
    judge message, at a cost that grows with its length, so a default template (a few hundred
    characters against CARE's rubric) would credit the peer with a shorter prompt, not a leaner
    scorer."""
    from inspect_ai.scorer import model_graded_qa

    from inspect_culture.benchmarks.care.data import load_care
    from inspect_culture.benchmarks.care.prompts import judge_prompt

    marks = {"question": "\x00Q\x00", "criterion": "\x00C\x00", "answer": "\x00A\x00"}
    category = load_care("zh").records[0]["category"]
    text = judge_prompt(category, marks["question"], marks["criterion"], marks["answer"])
    text = text.replace("{", "{{").replace("}", "}}")
    for name, mark in marks.items():
        assert text.count(mark) == 1, f"{name} must appear once in the CARE judge prompt"
        text = text.replace(mark, "{" + name + "}")
    return model_graded_qa(template=text + "\n\n{instructions}")


def compare(n: int, latency: float, concurrency: int, reps: int, mgqa_template: str) -> None:
    """Both comparisons, repetitions interleaved, in this one invocation."""
    from inspect_ai.scorer import model_graded_qa as default_model_graded_qa

    model_graded_qa = (
        _same_prompt_model_graded_qa if mgqa_template == "care" else default_model_graded_qa
    )

    os.environ["INSPECT_CULTURE_JUDGE_CACHE"] = os.environ.get("BENCH_JUDGE_CACHE", "")
    inspect_ratios: list[float] = []
    cpu_ratios: list[float] = []
    lm_ratios: list[float] = []
    floor_ratios: list[float] = []
    lm_cpu_ratios: list[float] = []
    with judge_server(latency, reply="Rating: [[7]]\nGRADE: C") as judge_url:
        _care_eval_wall(min(n, 20), concurrency, judge_url, None)  # warm-up
        _care_eval_wall(min(n, 20), concurrency, judge_url, model_graded_qa())
        for rep in range(reps):
            order = ["ours", "mgqa"] if rep % 2 == 0 else ["mgqa", "ours"]
            runs = {
                which: _care_eval_wall(
                    n, concurrency, judge_url, None if which == "ours" else model_graded_qa()
                )
                for which in order
            }
            ratio = runs["ours"].wall / runs["mgqa"].wall
            cpu_ratio = runs["ours"].cpu / runs["mgqa"].cpu
            inspect_ratios.append(ratio)
            cpu_ratios.append(cpu_ratio)
            print(f"  rep {rep + 1}: inspect care_judge {runs['ours'].wall:.2f} s "
                  f"({runs['ours'].cpu:.2f} s CPU), model_graded_qa {runs['mgqa'].wall:.2f} s "
                  f"({runs['mgqa'].cpu:.2f} s CPU), wall ratio {ratio:.3f}, "
                  f"CPU ratio {cpu_ratio:.3f}", flush=True)  # fmt: skip
            lm_runs: dict[str, Timer] = {}
            for which in ["filter", "client", "bare"][:: 1 if rep % 2 == 0 else -1]:
                if which == "client":
                    lm_runs[which] = _lm_eval_client_timed(n, concurrency, judge_url)
                elif which == "bare":
                    lm_runs[which] = _bare_client_timed(n, concurrency, judge_url)
                else:
                    lm_runs[which] = lm_eval_path(n, latency, concurrency, judge_url)
            lm_walls = {which: run.wall for which, run in lm_runs.items()}
            cpu_ms = {which: run.cpu / n * 1000 for which, run in lm_runs.items()}
            lm_ratio = lm_walls["filter"] / lm_walls["client"]
            lm_ratios.append(lm_ratio)
            floor_ratios.append(lm_walls["filter"] / lm_walls["bare"])
            lm_cpu_ratios.append(lm_runs["filter"].cpu / lm_runs["client"].cpu)
            ideal = n * latency / concurrency
            print(f"  rep {rep + 1}: lm-eval judge filter {lm_walls['filter']:.2f} s "
                  f"({lm_walls['filter'] / ideal:.3f}x ideal, {cpu_ms['filter']:.2f} ms CPU a "
                  f"judgment), LocalChatCompletion {lm_walls['client']:.2f} s "
                  f"({lm_walls['client'] / ideal:.3f}x, {cpu_ms['client']:.2f} ms), bare aiohttp "
                  f"{lm_walls['bare']:.2f} s ({lm_walls['bare'] / ideal:.3f}x, "
                  f"{cpu_ms['bare']:.2f} ms); filter / LocalChatCompletion {lm_ratio:.3f}, "
                  f"filter / bare {floor_ratios[-1]:.3f}", flush=True)  # fmt: skip
    print(f"median ratio, Inspect care_judge / model_graded_qa (whole eval): wall "
          f"{_median(inspect_ratios):.3f}, CPU {_median(cpu_ratios):.3f} over {reps} reps")  # fmt: skip
    print(f"median ratio, lm-eval judge filter / LocalChatCompletion: "
          f"{_median(lm_ratios):.3f} (CPU {_median(lm_cpu_ratios):.3f}), / bare aiohttp client: "
          f"{_median(floor_ratios):.3f} over {reps} reps")  # fmt: skip


# Where the lm-eval judge filter's CPU goes, by where the code lives: (label, path fragment);
# the first label whose fragment is in a function's file takes its own time.
BREAKDOWN = (
    ("fencing the answer in the judge prompt (judging/fences.py)", "judging/fences.py"),
    ("redaction of secrets (judging/redaction.py)", "judging/redaction.py"),
    (
        "cache lookup and write, a commit a verdict (judging/cache.py, its writer thread)",
        "judging/cache.py",
    ),
    ("judge client: body, cache key, retries, pacing (judging/*)", "inspect_culture/judging/"),
    ("lm-eval filter and outcome record (lm_eval_tasks, benchmarks)", "inspect_culture/"),
    ("HTTP (aiohttp, yarl, multidict)", "aiohttp"),
    ("event loop (asyncio)", "asyncio"),
)
_REST = "the rest (json, hashlib, threading, ...)"


def _group(filename: str) -> str:
    for label, fragment in BREAKDOWN:
        if fragment in filename:
            return label
    return (
        "HTTP (aiohttp, yarl, multidict)"
        if "yarl" in filename or "multidict" in filename
        else _REST
    )


class WriterCPU:
    """CPU seconds of the judge cache's writer thread (its commits), which a `cProfile` of the
    main thread does not see: each flush it runs is timed by its thread's CPU clock."""

    def __init__(self) -> None:
        from inspect_culture.judging.cache import JudgeCache

        self.seconds = 0.0
        flush = JudgeCache.flush

        def timed(cache: JudgeCache) -> None:
            if threading.current_thread().name != "judge-cache-writer":
                return flush(cache)
            began = time.thread_time()
            try:
                return flush(cache)
            finally:
                self.seconds += time.thread_time() - began

        JudgeCache.flush = timed  # type: ignore[method-assign]


def cpu_breakdown(
    n: int, concurrency: int, judge_url: str, per_judgment: float, writer: float
) -> list[tuple[str, float]]:
    """The lm-eval judge filter's CPU a judgment (ms), split by where the code lives, from a
    `cProfile` of one more run, timed by the main thread's CPU: each function's own time goes
    to its file's group, a builtin's (`~`: sqlite, hashing, JSON in C) to its callers' groups
    in proportion. Each group's share is applied to `per_judgment` less `writer` (ms, medians
    of the unprofiled runs: the whole process, and the cache's writer thread, whose commits go
    to the cache's part), so the parts add up to `per_judgment`."""
    import cProfile
    import pstats

    profile = cProfile.Profile(time.thread_time)  # CPU, not the waits on the judge
    profile.enable()
    lm_eval_path(n, 0.0, concurrency, judge_url)
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    seconds: dict[str, float] = {}
    for (filename, _, _), (_, _, own, _, callers) in stats.items():
        if filename != "~" or not callers:
            seconds[_group(filename)] = seconds.get(_group(filename), 0.0) + own
            continue
        edges = sum(edge[2] for edge in callers.values()) or 1.0
        for (caller_file, _, _), edge in callers.items():
            group = _group(caller_file)
            seconds[group] = seconds.get(group, 0.0) + own * edge[2] / edges
    profiled = sum(seconds.values()) or 1.0
    labels = [label for label, _ in BREAKDOWN] + [_REST]
    main = max(0.0, per_judgment - writer)
    parts = {label: main * seconds.get(label, 0.0) / profiled for label in labels}
    parts[BREAKDOWN[2][0]] += per_judgment - main  # the writer thread's commits
    return [("total", per_judgment), *parts.items()]


def lm_eval_compare(n: int, latency: float, concurrency: int, reps: int) -> None:
    """The lm-eval judge against `LocalChatCompletion` only (what `full_scale.py --judge`
    runs), then the filter's CPU a judgment with its breakdown; a last line for scripts."""
    os.environ["INSPECT_CULTURE_JUDGE_CACHE"] = os.environ.get("BENCH_JUDGE_CACHE", "")
    walls: list[float] = []
    cpus: list[float] = []
    writers: list[float] = []
    writer = WriterCPU()
    with judge_server(latency, reply="Rating: [[7]]\nGRADE: C") as judge_url:
        lm_eval_path(min(n, 20), latency, concurrency, judge_url)  # warm-up
        for rep in range(reps):
            runs: dict[str, Timer] = {}
            for which in ["filter", "client"][:: 1 if rep % 2 == 0 else -1]:
                writer.seconds = 0.0
                runs[which] = (
                    lm_eval_path(n, latency, concurrency, judge_url)
                    if which == "filter"
                    else _lm_eval_client_timed(n, concurrency, judge_url)
                )
                if which == "filter":
                    writers.append(writer.seconds / n * 1000)
            walls.append(runs["filter"].wall / runs["client"].wall)
            cpus.append(runs["filter"].cpu / n * 1000)
            print(f"  rep {rep + 1}: filter {runs['filter'].wall:.2f} s "
                  f"({cpus[-1]:.2f} ms CPU a judgment), LocalChatCompletion "
                  f"{runs['client'].wall:.2f} s ({runs['client'].cpu / n * 1000:.2f} ms); "
                  f"wall ratio {walls[-1]:.3f}", flush=True)  # fmt: skip
        parts = cpu_breakdown(n, concurrency, judge_url, _median(cpus), _median(writers))
    print(f"median wall ratio, lm-eval judge filter / LocalChatCompletion: {_median(walls):.3f} "
          f"over {reps} reps (spread {min(walls):.3f}-{max(walls):.3f}); CPU a judgment "
          f"{_median(cpus):.2f} ms")  # fmt: skip
    print("CPU a judgment, lm-eval judge filter (instant judge; shares from a cProfile run):")
    for label, ms in parts:
        print(f"  {label:<58} {ms:6.3f} ms")
    print("JUDGE_GOAL " + json.dumps({"wall_ratio": _median(walls), "cpu_ms": _median(cpus),
                                      "breakdown": dict(parts)}))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--paths", default="lm-eval,inspect-api,inspect-score,inspect")
    parser.add_argument("--reps", type=int, default=3, help="repetitions of --paths compare")
    parser.add_argument(
        "--mgqa-template",
        choices=["care", "default"],
        default="care",
        help="model_graded_qa's prompt: the CARE judge prompt's (same size as ours) or its own",
    )
    parser.add_argument(
        "--answer-chars", type=int, default=ANSWER_CHARS, help="length of each judged answer"
    )
    args = parser.parse_args()
    globals()["ANSWER_CHARS"] = args.answer_chars
    if args.paths == "lm-eval-compare":
        os.environ.setdefault("INSPECT_CULTURE_CACHE_DIR", tempfile.mkdtemp())
        lm_eval_compare(args.n, args.latency, args.concurrency, args.reps)
        return
    if args.paths == "compare":
        os.environ.setdefault("INSPECT_CACHE_DIR", tempfile.mkdtemp())
        os.environ.setdefault("INSPECT_CULTURE_CACHE_DIR", tempfile.mkdtemp())
        print(f"{args.n} judgments, {args.latency * 1000:.0f} ms latency, "
              f"concurrency {args.concurrency}, {args.reps} interleaved repetitions")  # fmt: skip
        compare(args.n, args.latency, args.concurrency, args.reps, args.mgqa_template)
        return
    os.environ["INSPECT_CULTURE_JUDGE_CACHE"] = "off"
    os.environ.setdefault("INSPECT_CACHE_DIR", tempfile.mkdtemp())
    ideal = args.n * args.latency / args.concurrency
    sequential = args.n * args.latency
    print(
        f"{args.n} judgments, {args.latency * 1000:.0f} ms latency, concurrency {args.concurrency}"
    )
    print(f"ideal {ideal:.2f} s; one call at a time {sequential:.1f} s")
    print(f"{'path':<14} {'wall s':>8} {'x ideal':>8} {'x one-at-a-time':>16} {'cpu ms':>7}")
    runners = {
        "lm-eval": lm_eval_path,
        "inspect-api": inspect_api_path,
        "inspect-score": inspect_score_path,
        "inspect": inspect_path,
    }
    for name in args.paths.split(","):
        t = runners[name](args.n, args.latency, args.concurrency)
        print(
            f"{name:<14} {t.wall:>8.2f} {t.wall / ideal:>8.3f} {t.wall / sequential:>16.3f} "
            f"{t.cpu / args.n * 1000:>7.2f}",
            flush=True,
        )
        if served := getattr(t, "served", None):
            print(
                f"{'':<14} the server took {served / args.n * 1000:.1f} ms a call on average "
                f"(its timer wakes late): {t.wall / (served / args.concurrency):.3f}x the ideal "
                "for that latency",
                flush=True,
            )


if __name__ == "__main__":
    main()

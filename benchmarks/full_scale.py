"""Every benchmark at its real size, in both harnesses, beside each harness's own floor.

    python benchmarks/full_scale.py                    # real sizes: long (see docs/performance.md)
    python benchmarks/full_scale.py --scale 0.1        # a tenth of every dataset
    python benchmarks/full_scale.py --scale 0.01 --benchmarks normad --harnesses lm-eval
    python benchmarks/full_scale.py --scale 0.25 --benchmarks normad --reps 3   # medians of 3
    python benchmarks/full_scale.py --work DIR --report-only --reps 5  # the report, timed again

Synthetic data at each benchmark's size, in its upstream schema, is made on the fly from the
test suite's small files (`tests/data`, `tests/support`): NormAd-ETI 2,633 stories (in its four
contexts), CARE's shipped 450 questions (in its three promptings), CQ-Bench 1,000 AD stories,
500 VS stories and 100 VE stories (the upstream scripts score 100), CultureSynth-7 19,360
questions, each judged in both orders. An instant stub model and a separate instant stub judge
answer on 127.0.0.1.

Each run is its own process, as a user's `inspect eval` or `lm_eval` is: Inspect through its
Python API (one `eval()` of the benchmark's tasks), lm-eval through its `lm_eval` command. Beside
it, the harness's floor, against the same stub and sending the very prompts our run sent (so a
ratio measures what our tasks add, not how long the benchmark's prompts are):

- Inspect: the same tasks as ours, generate-only: one floor `Task` per task of our run, with the
  same name and the same samples (each sample's prompt read back from our log), solved by
  `generate()` and scored by `match()`. Nine CARE tasks meet nine floor tasks, each with its
  own log writer, sample buffer and live metrics.
- lm-eval: one `generate_until` YAML task scored by `exact_match`, its `doc_to_text` and
  `doc_to_target` column names (lm-eval reads a column as is; a Jinja template it compiles
  again for every doc), as ours are.

The goals (issue 42), printed at the end with "met" or "missed" beside each figure:

- Inspect CARE and CultureSynth-7 with the judge taken out (`--inspect-judge-later`): wall and
  CPU within 1.10x of that floor, log bytes within 1.5x (the score metadata is part of the
  product);
- `lm_eval --tasks normad`: first request within the floor's + 0.5 s;
- Inspect CARE's nine tasks: first request within the same-shaped floor's + 0.5 s;
- the lm-eval judge (`--judge`: `benchmarks/judge_throughput.py --paths lm-eval-compare`): wall
  at most 1.02x lm-eval's own `LocalChatCompletion` on the same judge prompts; its CPU a
  judgment is reported with its breakdown (fencing, redaction, cache, client, HTTP), not a goal.

Issue 42's measurement, in one command (see docs/performance.md for how long it takes):

    python benchmarks/full_scale.py --goals --reps 5

(`--goals`: only the pairs a goal names, Inspect CARE and CultureSynth-7 and lm-eval NormAd,
with `--inspect-judge-later --no-inspect-score --judge`; `--scale` as usual.)

Reported, as ratios to the floor within this one invocation:

- wall and CPU per sample; for lm-eval, whose judge runs after generation, the judge span (the
  stub judge's first judgment request to its last reply; the one-token check at load is not
  a judgment) is taken out of the wall time; for Inspect,
  whose judge calls interleave with generation, the judge calls are in the figure and their
  count and span are printed beside it; with `--inspect-judge-later` the judged tasks generate
  only (`-T judge_later=true`) and `inspect score` judges their logs in a process of its own,
  timed apart, so the Inspect figure holds no judge call either;
- peak RSS (the process's maximum resident set, from `wait4`);
- bytes written per sample (Inspect's `.eval` log; lm-eval's samples and results files), and
  for lm-eval the mean samples line;
- time to the first model request (process start to the stub's first request).

Then `culture-evals report` over every run of both harnesses, timed.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.openai_stub import (  # noqa: E402
    PREFLIGHT_PROMPT,
    StubOpenAIServer,
    last_user_text,
)

BENCHMARKS = ("normad", "care", "cqbench", "culturesynth")
HARNESSES = ("inspect", "lm-eval")
# Real sizes (upstream.md, the papers): what --scale 1 makes.
NORMAD_STORIES = 2633
CQ_AD_STORIES, CQ_VS_STORIES, CQ_VE_STORIES = 1000, 500, 100
CULTURESYNTH_QUESTIONS = 19360
CARE_PROMPTINGS = ("zero_shot", "cot", "role_play")
CARE_LANGUAGES = ("zh", "ar", "ja")


def scaled(n: int, scale: float) -> int:
    return max(1, round(n * scale))


def care_per_task(scale: float) -> int:
    """CARE's questions a task runs: its 150 shipped ones, or `--limit` of them when scaled."""
    return 150 if scale >= 1 else scaled(150, scale)


# ---------------------------------------------------------------- synthetic data at full size


def _normad_csv(path: Path, n: int) -> None:
    source = ROOT / "tests" / "data" / "normad_sample.csv"
    with source.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = reader.fieldnames, list(reader)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for i in range(n):
            row = dict(rows[i % len(rows)])
            row["ID"] = str(i)
            row["Story"] = f"{row['Story']} (story {i})"
            writer.writerow(row)


def _repeat_stories(items: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        item = json.loads(json.dumps(items[i % len(items)]))
        item["story"] = f"{item.get('story', '')} (story {i})"
        out.append(item)
    return out


def make_mirror(root: Path, scale: float) -> tuple[Path, Path, dict[str, int]]:
    """The data mirror, the CultureSynth baseline answers file, and each run's sample count."""
    from inspect_culture.benchmarks.culturesynth.baseline_responses import (
        BaselineResponses,
        write_baseline_responses,
    )
    from tests.support import cqbench_data as cq
    from tests.support.culturesynth_data import SAMPLE_ROWS
    from tests.support.report_runs import install_mirror

    normad = scaled(NORMAD_STORIES, scale)
    ad = _repeat_stories(cq.ad_items(), scaled(CQ_AD_STORIES, scale))
    vs = _repeat_stories(cq.vs_items(), scaled(CQ_VS_STORIES, scale))
    originals = cq.original_items()
    ve = [originals[i % len(originals)] for i in range(scaled(CQ_VE_STORIES, scale))]
    questions = scaled(CULTURESYNTH_QUESTIONS, scale)
    rows = []
    for i in range(questions):
        row = dict(SAMPLE_ROWS[i % len(SAMPLE_ROWS)])
        row["id"] = f"{row['language']}-{i:05d}"
        row["question"] = f"{row['question']} ({i})"
        rows.append(row)
    install_mirror(
        root,
        normad=lambda path: _normad_csv(path, normad),
        cqbench={
            "dataset_setting1_social.json": ad,
            "dataset_setting2_ethical.json": vs,
            "dataset_ethical_original.json": ve,
        },
        culturesynth=rows,
    )
    baseline = write_baseline_responses(
        BaselineResponses(
            model="stub/baseline",
            responses={r["id"]: f"BASELINE answer to {r['id']}" for r in rows},
            generation_settings={"temperature": 0.0},
        ),
        root / "baseline.json",
    )
    counts = {
        "normad": 4 * normad,
        "care": len(CARE_PROMPTINGS) * len(CARE_LANGUAGES) * care_per_task(scale),
        "cqbench": sum(len(item["questions"]) for item in ad) + len(vs) + 2 * len(ve),
        "culturesynth": questions,
    }
    return root, baseline, counts


# ---------------------------------------------------------------- the runs, one process each

INSPECT_CHILD = """
import json, os, sys, time
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model
spec = json.loads(sys.argv[1])
tasks = []
if spec["benchmark"] == "floor":  # one generate-only task per task of ours: same name, prompts
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser}
    shapes = json.loads(open(spec["prompts"], encoding="utf-8").read())
    for shape in shapes:
        samples = [Sample(id=i, input=[kinds[role](content=text) for role, text in messages],
                          target="yes") for i, messages in enumerate(shape["prompts"])]
        tasks.append(Task(dataset=MemoryDataset(samples), solver=generate(), scorer=match(),
                          name=shape["name"]))
else:
    from tests.support.report_runs import inspect_tasks
    care = [(lang, p) for p in spec["promptings"] for lang in spec["languages"]]
    tasks = inspect_tasks(spec["benchmark"], spec["baseline"], care_settings=care,
                          judge_later=spec["judge_later"])
grader = get_model("openai-api/stub/judge", base_url=spec["judge_url"])
logs = inspect_eval(tasks, model="openai-api/stub/model", model_base_url=spec["model_url"],
                    # judge_later with a grader bound would judge in the eval (as `inspect
                    # score` needs it to), so the generate-only step binds none
                    model_roles={} if spec["judge_later"] else {"grader": grader},
                    log_dir=spec["out"], display="none",
                    limit=spec.get("limit"), max_connections=32, max_tasks=len(tasks))
bad = [log.eval.task for log in logs if log.status != "success"]
sys.exit(f"failed: {bad}" if bad else 0)
"""

# `--inspect-judge-later`'s second step: `inspect score` of each judged log, as docs/judge.md
# shows it (the scorer the log names, the stub judge as grader), written back in place
SCORE_CHILD = """
import glob, json, sys
from inspect_ai import score
from inspect_ai._util.registry import registry_lookup
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import get_model
from inspect_culture.benchmark_registry import benchmarks
spec = json.loads(sys.argv[1])
judges = {name for b in benchmarks() for name in b.judge_scorers}
grader = get_model("openai-api/stub/judge", base_url=spec["judge_url"])
for path in sorted(glob.glob(spec["out"] + "/*.eval")):
    log = read_eval_log(path)
    named = [s for s in log.eval.scorers or [] if s.name.split("/")[-1] in judges]
    if named:  # the scorer the log names, with the options it records, as `inspect score` does
        scorer = registry_lookup("scorer", named[0].name)(**(named[0].options or {}))
        scored = score(log, scorer, model_roles={"grader": grader}, action="overwrite",
                       display="none")
        write_eval_log(scored, path)
"""

FLOOR_YAML = """task: floor_gen
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: prompt
doc_to_target: label
generation_kwargs:
  until: []
  max_gen_toks: 64
  do_sample: false
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1
"""

# our run's shape when it ran several tasks (`_floor_task`): lm-eval's group over them
FLOOR_GROUP_YAML = """group: floor_gen
task:{tasks}
aggregate_metric_list:
- metric: exact_match
  weight_by_size: false
  aggregation: mean
metadata:
  version: 1
"""


@dataclass
class Run:
    harness: str
    benchmark: str
    samples: int
    wall: float = 0.0
    cpu: float = 0.0
    rss_mb: float = 0.0
    bytes_written: int = 0
    first_request: float | None = None  # seconds from process start
    judge_calls: int = 0
    judge_span: float = 0.0
    score_wall: float = 0.0  # --inspect-judge-later: the `inspect score` process, apart
    scored_bytes: int = 0  # --inspect-judge-later: the logs once judged
    samples_line: float | None = None  # lm-eval: mean bytes of a samples line
    out: Path = field(default_factory=Path)
    prompts: list[str] = field(default_factory=list, repr=False)  # what the model was sent
    # Inspect: each task's name and sample prompts, from its log (`inspect_shapes`)
    shapes: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def wall_less_judge(self) -> float:
        return self.wall - (self.judge_span if self.harness == "lm-eval" else 0.0)


def _measure(command: list[str], env: dict[str, str], run: Run, model: Any) -> None:
    """Run one process to its end; its own wall, CPU and peak RSS (from wait4)."""
    started, clock = time.time(), time.perf_counter()
    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(  # its own process group: stopped with this script
            command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr,
            start_new_session=True,
        )  # fmt: skip
        try:
            _, status, usage = os.wait4(process.pid, 0)
        except BaseException:  # Ctrl-C, SIGTERM (main's handler): no child left retrying
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise
        process.returncode = os.waitstatus_to_exitcode(status)
        run.wall += time.perf_counter() - clock
        stderr.seek(0)
        tail = stderr.read()[-3000:].decode("utf-8", "replace")
    run.cpu += usage.ru_utime + usage.ru_stime
    run.rss_mb = max(run.rss_mb, usage.ru_maxrss / 1024)
    if process.returncode != 0:
        raise SystemExit(f"{run.harness} {run.benchmark} failed:\n{tail}")
    if run.first_request is None and model.first_request_at is not None:
        run.first_request = model.first_request_at - started


def _env(mirror: Path, work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        INSPECT_CULTURE_DATA_DIR=str(mirror),
        INSPECT_CULTURE_JUDGE_CACHE="off",
        INSPECT_CULTURE_CACHE_DIR=str(work / "cache"),
        INSPECT_CACHE_DIR=str(work / "inspect_cache"),
        HF_DATASETS_CACHE=str(work / "hf_cache"),
        HF_DATASETS_OFFLINE="1",
        STUB_API_KEY="bench",
        TQDM_DISABLE="1",
        PYTHONPATH=str(ROOT),
    )
    return env


def responder(prompt: str, body: dict[str, Any]) -> str:
    """The test suite's stub for all four benchmarks; a CultureSynth question it has no ruling
    for is judged a tie (the stub must answer instantly, never fail)."""
    from tests.support.report_runs import responder as suite_responder

    try:
        return suite_responder(prompt, body)
    except KeyError:
        return "Both answers are alike. [[C]]"


def inspect_run(benchmark: str, n: int, ctx: dict[str, Any]) -> Run:
    run = Run("inspect", benchmark, n, out=ctx["work"] / "inspect" / benchmark)
    with (
        StubOpenAIServer(responder=responder) as model,
        StubOpenAIServer(responder=responder) as judge,
    ):
        spec = {
            "benchmark": benchmark, "n": n, "out": str(run.out), "baseline": str(ctx["baseline"]),
            "model_url": model.base_url, "judge_url": judge.base_url,
            "promptings": CARE_PROMPTINGS, "languages": CARE_LANGUAGES,
            "limit": ctx["care_limit"] if benchmark == "care" else None,
            "judge_later": ctx["judge_later"],
        }  # fmt: skip
        if benchmark == "floor":
            spec["prompts"] = str(_shapes_file(run.out.parent / "shapes.json", ctx["shapes"]))
        command = [sys.executable, "-c", INSPECT_CHILD, json.dumps(spec)]
        _measure(command, ctx["env"], run, model)
        run.bytes_written = _bytes(run.out)  # the eval's own log, before any `inspect score`
        # the floor's tasks: read once from our first repetition's log (the same each time)
        run.shapes = ctx.get("shapes") or inspect_shapes(run.out)
        if ctx["judge_later"] and ctx["inspect_score"] and benchmark != "floor":
            scoring = Run("inspect", f"{benchmark} score", n)
            _measure([sys.executable, "-c", SCORE_CHILD, json.dumps(spec)], ctx["env"], scoring,
                     model)  # fmt: skip
            run.score_wall, run.scored_bytes = scoring.wall, _bytes(run.out)
        _judge_stats(run, judge)
        run.prompts = model_prompts(model)
    return run


def _judge_stats(run: Run, judge: StubOpenAIServer) -> None:
    run.judge_calls = len(judge.requests)
    if judge.first_judgment_at and judge.last_response_at:  # the check before generation apart
        run.judge_span = judge.last_response_at - judge.first_judgment_at


def _bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.exists() else 0


def _lm_eval_command(model_url: str, tasks: str, out: Path, extra: list[str]) -> list[str]:
    lm_eval = shutil.which("lm_eval", path=str(Path(sys.executable).parent)) or "lm_eval"
    return [
        lm_eval, "--model", "local-chat-completions", "--apply_chat_template",
        "--model_args", f"model=stub,base_url={model_url}/chat/completions,num_concurrent=32,"
        "max_retries=1,tokenized_requests=False",
        "--tasks", tasks, "--log_samples", "--output_path", str(out), *extra,
    ]  # fmt: skip


def lm_eval_run(benchmark: str, n: int, ctx: dict[str, Any]) -> Run:
    from inspect_culture.lm_eval_tasks import include_path

    run = Run("lm-eval", benchmark, n, out=ctx["work"] / "lm_eval" / benchmark)
    include = ["--include_path", str(include_path())]
    with (
        StubOpenAIServer(responder=responder) as model,
        StubOpenAIServer(responder=responder) as judge,
    ):
        judge_meta = {"judge_model": "judge", "judge_base_url": judge.base_url}
        steps: list[tuple[str, dict[str, Any], Path]] = []
        if benchmark == "floor":
            include = ["--include_path", str(ctx["floor_dir"])]
            steps = [("floor_gen", {}, run.out)]
        elif benchmark == "normad":
            steps = [("normad", {}, run.out)]
        elif benchmark == "care":
            names = [f"care_{lang}" + ("" if p == "zero_shot" else f"_{p}")
                     for p in CARE_PROMPTINGS for lang in CARE_LANGUAGES]  # fmt: skip
            steps = [(",".join(names), judge_meta, run.out)]
        elif benchmark == "cqbench":
            summaries = run.out.parent / "cqbench_ve_summaries"
            steps = [
                ("cqbench_ad_social,cqbench_vs_ethical", {}, run.out),
                ("cqbench_ve_summary_ethical", {}, summaries),
                ("cqbench_ve_ethical", {**judge_meta, "ve_summaries": str(summaries)}, run.out),
            ]
        elif benchmark == "culturesynth":
            meta = {**judge_meta, "baseline_responses": str(ctx["baseline"])}
            steps = [("culturesynth_all", meta, run.out)]
        for tasks, metadata, out in steps:
            extra = [*include, "--metadata", json.dumps(metadata)] if metadata else include
            if benchmark == "care" and ctx["care_limit"]:
                extra += ["--limit", str(ctx["care_limit"])]
            _measure(_lm_eval_command(model.base_url, tasks, out, extra), ctx["env"], run, model)
        _judge_stats(run, judge)
        run.prompts = model_prompts(model)
    run.bytes_written = _bytes(run.out)
    lines = [
        len(line.encode("utf-8"))
        for path in run.out.rglob("samples_*.jsonl")
        for line in path.read_text("utf-8").splitlines()
    ]
    run.samples_line = sum(lines) / len(lines) if lines else None
    return run


def model_prompts(model: StubOpenAIServer) -> list[str]:
    """Every prompt the model was sent, its messages joined: the floor sends the same text, so
    the ratios measure what our tasks add, not the length of the benchmark's prompts."""
    return [
        "\n\n".join(str(m.get("content", "")) for m in body["messages"])
        if "messages" in body
        else str(body.get("prompt", ""))
        for body in model.requests
        if last_user_text(body) != PREFLIGHT_PROMPT  # the endpoint check before generation
    ]


# what `inspect_shapes` needs of a sample is its messages
SHAPES_SKIP = {"events", "attachments", "scores", "store", "metadata", "output"}


def inspect_shapes(folder: Path) -> list[dict[str, Any]]:
    """Each task of an Inspect run, from its log: its name and the prompt of each sample (the
    messages the model was sent, each a [role, text] pair: a system message stays one, as the
    model received it). The floor runs one generate-only task per entry, so it has our run's
    shape: as many tasks, each with the same name and samples, every one with its own log
    writer, sample buffer and live metrics."""
    from inspect_ai.log import read_eval_log

    shapes = []
    for path in sorted(folder.glob("*.eval")):
        # the whole log in one read: sample by sample, each read walked the zip's directory
        # again (CultureSynth-7 at full size, 19,360 samples: over 17 min; this: about 40 s)
        log = read_eval_log(path, exclude_fields=SHAPES_SKIP)
        prompts = []
        for sample in log.samples or []:
            messages = list(sample.messages)
            while messages and messages[-1].role == "assistant":
                messages.pop()  # the model's reply, not what it was sent
            sent = [[m.role, m.text] for m in messages if m.role in ("system", "user")]
            prompts.append(sent or [["user", "Is this acceptable?"]])
        shapes.append({"name": log.eval.task, "prompts": prompts})
    return shapes


def _shapes_file(path: Path, shapes: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(shapes), encoding="utf-8")
    return path


def _floor_task(folder: Path, n: int, prompts: list[str], tasks: int = 1) -> Path:
    """The lm-eval floor's YAML and data, sending `prompts` in order. With `tasks` > 1 it has our
    run's shape: a group `floor_gen` of that many tasks, the samples split evenly among them, as
    `--tasks normad` is a group of four, each of which lm-eval builds (config, dataset, filters,
    metrics) before the first request."""
    folder.mkdir(parents=True, exist_ok=True)
    prompts = prompts or ["Is this story acceptable?"]
    names = ["floor_gen"] if tasks <= 1 else [f"floor_gen_{k}" for k in range(tasks)]
    bounds = [n * k // len(names) for k in range(len(names) + 1)]
    for k, name in enumerate(names):
        data = folder / f"{name}.jsonl"
        with data.open("w", encoding="utf-8") as handle:
            for i in range(bounds[k], bounds[k + 1]):
                row = {"prompt": prompts[i % len(prompts)], "label": "yes"}
                handle.write(json.dumps(row) + "\n")
        text = FLOOR_YAML.format(data=data).replace("task: floor_gen", f"task: {name}", 1)
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    if len(names) > 1:
        group = FLOOR_GROUP_YAML.format(tasks="".join(f"\n- {name}" for name in names))
        (folder / "floor_group.yaml").write_text(group, encoding="utf-8")
    return folder


def _report(work: Path) -> float:
    """Seconds `culture-evals report` takes over every run of both harnesses."""
    runs = [p for p in (work / "inspect").glob("*") if p.name != "floor"]
    runs += [p for p in (work / "lm_eval").glob("*") if p.name not in ("floor",)]
    command = [sys.executable, "-m", "inspect_culture.cli", "report", *map(str, runs),
               "-o", str(work / "report")]  # fmt: skip
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=_env(work, work))
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"culture-evals report failed:\n{result.stderr[-2000:]}")
    return seconds


def _time_report(work: Path, reps: int) -> None:
    """`--report-only`: the report over the runs an earlier invocation left in `work`."""
    if not (work / "inspect").is_dir() and not (work / "lm_eval").is_dir():
        raise SystemExit(f"--report-only: {work} holds no runs; give the --work of an earlier run")
    times = [_report(work) for _ in range(reps)]
    print(
        f"culture-evals report over every run in {work}: median {statistics.median(times):.1f} s "
        f"({', '.join(f'{t:.1f}' for t in times)})",
        flush=True,
    )


def _median_run(runs: list[Run]) -> Run:
    """Each figure's median over the repetitions (the first run's files and counts)."""
    if len(runs) == 1:
        return runs[0]
    numbers = ("wall", "cpu", "rss_mb", "bytes_written", "first_request", "judge_span",
               "score_wall", "scored_bytes")  # fmt: skip
    return replace(
        runs[0],
        **{name: statistics.median(getattr(r, name) or 0 for r in runs) for name in numbers},
    )


# Issue 42's goals: (harness, benchmark, figure, limit); a ratio figure is ours / the floor's,
# `first request` is seconds after the floor's first request. Inspect's wall, CPU and bytes
# goals hold with the judge taken out (`--inspect-judge-later`).
GOALS = (
    ("inspect", "care", "wall", 1.10),
    ("inspect", "care", "CPU", 1.10),
    ("inspect", "care", "log bytes", 1.5),
    ("inspect", "culturesynth", "wall", 1.10),
    ("inspect", "culturesynth", "CPU", 1.10),
    ("inspect", "culturesynth", "log bytes", 1.5),
    ("lm-eval", "normad", "first request", 0.5),
    ("inspect", "care", "first request", 0.5),
)
JUDGE_WALL_GOAL = 1.02  # the lm-eval judge filter / lm-eval's LocalChatCompletion


def _figure(ours: Run, floor: Run, figure: str) -> float:
    if figure == "first request":
        return (ours.first_request or 0) - (floor.first_request or 0)
    if figure == "wall":
        return ours.wall_less_judge() / floor.wall_less_judge()
    if figure == "CPU":
        return ours.cpu / floor.cpu
    return ours.bytes_written / floor.bytes_written


def goal_lines(rows: list[tuple[Run, Run]], judge_later: bool) -> list[str]:
    """One line a goal this invocation measured: the figure, the limit, met or missed."""
    lines = []
    for harness, benchmark, figure, limit in GOALS:
        pair = next(
            ((o, f) for o, f in rows if (o.harness, o.benchmark) == (harness, benchmark)), None
        )
        if pair is None:
            continue
        name = f"{harness} {benchmark} {figure}"
        if harness == "inspect" and figure != "first request" and not judge_later:
            lines.append(f"  {name:<34} not measured: needs --inspect-judge-later")
            continue
        value = _figure(*pair, figure)
        shown, bound = (
            (f"{value:+.2f} s", f"floor + {limit} s")
            if figure == "first request"
            else (f"{value:.2f}x", f"{limit:.2f}x")
        )
        verdict = "met" if value <= limit else "missed"
        lines.append(f"  {name:<34} {shown:>9}  (goal: at most {bound})  {verdict}")
    return lines


def judge_goal(n: int, reps: int) -> list[str]:
    """`--judge`: the lm-eval judge's wall against `LocalChatCompletion` and its CPU a judgment
    with the breakdown, from `judge_throughput.py --paths lm-eval-compare` (its own process)."""
    command = [sys.executable, str(ROOT / "benchmarks" / "judge_throughput.py"), "--paths",
               "lm-eval-compare", "--n", str(n), "--reps", str(reps)]  # fmt: skip
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    found = [line for line in result.stdout.splitlines() if line.startswith("JUDGE_GOAL ")]
    if result.returncode != 0 or not found:
        raise SystemExit(f"judge_throughput.py failed:\n{(result.stdout + result.stderr)[-2000:]}")
    figures = json.loads(found[0].removeprefix("JUDGE_GOAL "))
    ratio = figures["wall_ratio"]
    verdict = "met" if ratio <= JUDGE_WALL_GOAL else "missed"
    lines = [
        f"  {'lm-eval judge wall / LocalChatCompletion':<34} {ratio:>8.3f}x  (goal: at most "
        f"{JUDGE_WALL_GOAL:.2f}x; {n} judgments, median of {reps})  {verdict}",
        f"  {'lm-eval judge CPU a judgment':<34} {figures['cpu_ms']:>6.2f} ms  (reported, not a "
        "goal); its breakdown:",
    ]
    lines += [f"    {label:<62} {ms:6.3f} ms" for label, ms in figures["breakdown"].items()]
    return lines


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "-"


def _arguments() -> argparse.Namespace:
    """The command line, `--goals` expanded, checked."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="share of each real size")
    parser.add_argument("--benchmarks", default=",".join(BENCHMARKS))
    parser.add_argument("--harnesses", default=",".join(HARNESSES))
    parser.add_argument("--work", help="folder for data, logs and outputs (default: a temp one)")
    parser.add_argument(
        "--reps", type=int, default=1, help="runs of each, ours and the floor in turn; medians"
    )
    parser.add_argument(
        "--inspect-judge-later", action="store_true",
        help="Inspect's judged tasks generate only (-T judge_later=true); `inspect score` then "
        "judges their logs in a process of its own, timed apart",
    )  # fmt: skip
    parser.add_argument(
        "--no-inspect-score", action="store_true",
        help="with --inspect-judge-later, skip the `inspect score` step (the goals time the "
        "generate-only eval; scoring CultureSynth-7's 19,360 samples in one `score()` takes "
        "longer than the rest of the run)",
    )  # fmt: skip
    parser.add_argument(
        "--goals", action="store_true",
        help="issue 42's measurement: only the pairs a goal names (Inspect CARE and "
        "CultureSynth-7, lm-eval NormAd), with --inspect-judge-later --no-inspect-score --judge",
    )  # fmt: skip
    parser.add_argument(
        "--judge", action="store_true",
        help="also the lm-eval judge's goal: benchmarks/judge_throughput.py --paths "
        "lm-eval-compare (wall against LocalChatCompletion, CPU a judgment and its breakdown)",
    )  # fmt: skip
    parser.add_argument(
        "--judge-n", type=int, default=500, help="judgments a run for --judge (default 500)"
    )
    parser.add_argument(
        "--report-only", action="store_true",
        help="only time `culture-evals report` (--reps times) over the runs in --work",
    )  # fmt: skip
    args = parser.parse_args()
    if args.report_only and not args.work:
        raise SystemExit("--report-only needs --work: the folder of an earlier run")
    if args.goals:  # issue 42's measurement: the goals' pairs, the judge out of Inspect's eval
        args.inspect_judge_later = args.no_inspect_score = args.judge = True
        if args.benchmarks == ",".join(BENCHMARKS):
            args.benchmarks = ",".join(sorted({g[1] for g in GOALS}, key=BENCHMARKS.index))
    wrong = [b for b in args.benchmarks.split(",") if b not in BENCHMARKS] + [
        h for h in args.harnesses.split(",") if h not in HARNESSES
    ]
    if wrong or not 0 < args.scale <= 1 or args.reps < 1:
        raise SystemExit(
            f"unknown {wrong}, --scale {args.scale} outside (0, 1] or --reps {args.reps} below 1; "
            f"benchmarks {BENCHMARKS}, harnesses {HARNESSES}"
        )
    return args


def _pair(harness: str, benchmark: str, n: int, reps: int, ctx: dict[str, Any]) -> tuple[Run, Run]:
    """Ours and the floor in turn `reps` times (both see the same noise); each one's medians."""
    work, pairs = ctx["work"], []
    for rep in range(reps):
        base = work if rep == 0 else work / "reps" / str(rep)
        rep_ctx = {**ctx, "work": base, "shapes": pairs[0][0].shapes if pairs else None}
        floor_ctx = {**ctx, "work": base / f"floor_{benchmark}"}
        if harness == "inspect":
            ours = inspect_run(benchmark, n, rep_ctx)
            floor = inspect_run("floor", n, {**floor_ctx, "shapes": ours.shapes})
        else:
            ours = lm_eval_run(benchmark, n, rep_ctx)
            shape = len(list(ours.out.rglob("samples_*.jsonl")))  # one a task of ours
            floor_dir = _floor_task(base / f"floor_task_{benchmark}", n, ours.prompts, shape)
            floor = lm_eval_run("floor", n, {**floor_ctx, "floor_dir": floor_dir})
        pairs.append((ours, floor))
    ours, floor = (_median_run([pair[i] for pair in pairs]) for i in (0, 1))
    return ours, floor


def _print_pair(ours: Run, floor: Run) -> None:
    for run in (ours, floor):
        line = run.samples_line
        print(
            f"{run.harness:<8} {run.benchmark:<13} {run.samples:>7} {run.wall:>7.1f} "
            f"{run.cpu:>7.1f} {_ratio(run.wall_less_judge(), floor.wall_less_judge()):>7} "
            f"{_ratio(run.cpu, floor.cpu):>7} {_ratio(run.rss_mb, floor.rss_mb):>6} "
            f"{_ratio(run.bytes_written, floor.bytes_written):>8} "
            f"{(run.first_request or 0) - (floor.first_request or 0):>+7.2f}s "
            f"{run.judge_calls:>11}" + (f"  (samples line {line / 1000:.1f} kB)" if line else ""),
            flush=True,
        )


def _print_summary(rows: list[tuple[Run, Run]]) -> None:
    """Each pair's absolute figures, below the ratios."""
    for ours, floor in rows:
        print(
            f"{ours.harness} {ours.benchmark}: wall {ours.wall:.1f} s (floor {floor.wall:.1f}), "
            f"judge span {ours.judge_span:.1f} s over {ours.judge_calls} calls"
            + (
                f" (`inspect score` step {ours.score_wall:.1f} s, its logs then "
                f"{ours.scored_bytes / ours.samples:,.0f} B a sample)"
                if ours.score_wall
                else ""
            )
            + ", peak RSS "
            f"{ours.rss_mb:.0f} MB (floor {floor.rss_mb:.0f}), "
            f"{ours.bytes_written / ours.samples:,.0f} B a sample written "
            f"(floor {floor.bytes_written / floor.samples:,.0f}), first request at "
            f"{ours.first_request or 0:.2f} s (floor {floor.first_request or 0:.2f})"
        )


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # `kill`: children stopped too
    args = _arguments()
    if args.report_only:
        return _time_report(Path(args.work), max(1, args.reps))
    work = Path(args.work or tempfile.mkdtemp(prefix="full_scale_"))
    mirror, baseline, counts = make_mirror(work / "mirror", args.scale)
    ctx = {
        "work": work, "baseline": baseline, "env": _env(mirror, work),
        "care_limit": None if args.scale >= 1 else care_per_task(args.scale),
        "judge_later": args.inspect_judge_later, "inspect_score": not args.no_inspect_score,
    }  # fmt: skip
    print(f"scale {args.scale:g}: samples {counts}; work folder {work}", flush=True)
    print(
        f"{'harness':<8} {'benchmark':<13} {'samples':>7} {'wall s':>7} {'CPU s':>7} "
        f"{'wall/s':>7} {'CPU/s':>7} {'RSS':>6} {'bytes/s':>8} {'1st req':>8} {'judge calls':>11}"
    )
    rows: list[tuple[Run, Run]] = []
    for harness in args.harnesses.split(","):
        for benchmark in args.benchmarks.split(","):
            if args.goals and not any(g[:2] == (harness, benchmark) for g in GOALS):
                continue  # --goals: only the pairs a goal names
            rows.append(_pair(harness, benchmark, counts[benchmark], args.reps, ctx))
            _print_pair(*rows[-1])
    print("\nratios: ours / the harness's floor, same samples, same stub; 1st req: seconds "
          "later than the floor's first model request; lm-eval wall without its judge span")  # fmt: skip
    _print_summary(rows)
    print(f"culture-evals report over every run: {_report(work):.1f} s", flush=True)
    goals = goal_lines(rows, args.inspect_judge_later)
    if args.judge:
        goals += judge_goal(args.judge_n, args.reps)
    if goals:
        print("\ngoals (issue 42; ratios and seconds as above, medians of --reps):")
        print("\n".join(goals), flush=True)


if __name__ == "__main__":
    main()

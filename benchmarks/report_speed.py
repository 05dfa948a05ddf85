"""Speed of `culture-evals report` reading runs, against the host harnesses' own loaders.

    python benchmarks/report_speed.py                    # 2,633 NormAd rows, 40 runs
    python benchmarks/report_speed.py --rows 200         # a quick check
    python benchmarks/report_speed.py --work /tmp/rs     # keep (and reuse) the built inputs

The requirement: the report reads only what a table needs, so a 2,633-sample Inspect log and a
40-run folder stay quick. Inputs are real runs against the local stub server (127.0.0.1, no
network): a NormAd-ETI mirror of `--rows` rows (the 16 synthetic rows of
`tests/data/normad_sample.csv`, cycled with unique IDs), NormAd in Inspect for its 4 contexts
and lm-eval's `normad` group with `--log_samples`. Building them is timed and printed, but is
not the measurement.

Each figure is the median of `--repeat` repetitions; the ratio `host / ours` compares two
loaders within one run, so a noisy machine moves both sides alike (above 1: ours is faster).

- one Inspect log: the report's reading of one `--rows`-sample log (`read_inspect_log`, header
  only, then `records.outcome_records`, which reads the sample summaries; the records cache
  cleared before each repetition) versus Inspect's full load `read_eval_log(path)` (what
  `inspect view` or a notebook does) and versus `read_eval_log(path, header_only=True)`, the
  floor: nothing can read a table's header for less.
- 40-run folder: `build_report([folder])`, every table (cache cleared), versus loading every
  run with the host machinery a notebook would use to get per-sample data: `read_eval_log` of
  every Inspect log, `json.load` of every lm-eval results file and `json.loads` of every line
  of its samples files. The folder holds `--runs` runs: copies of the 4 Inspect logs and of the
  lm-eval run (its results file and 4 samples files, renamed with distinct timestamps). Copies
  of the same model merge into the same table rows; that changes nothing for timing. The
  `of which` rows split it by harness: ours, the time inside the report's two sample readers
  (`records._inspect_records`, `records._lm_eval_records`); the host, its loop over that
  harness's files; the rest of ours is reading headers and results files and computing the
  tables (bootstrap intervals included).
- writing: `write_report` for ("csv", "tex") and for ("html", "md", "figures"), the latter
  also in its two steps, timed apart: drawing the figures (`draw_figures`, PNG and PDF), which
  dominates, then the pages that embed them. No host equivalent. Figure drawing varies by
  several tenths of a second from call to call on a busy machine: read those rows loosely.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import logging
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_CSV = ROOT / "tests" / "data" / "normad_sample.csv"
BUILT = "built.json"  # marker in the work folder: what was built there
# the report's per-sample readers (inspect_culture.report.records), timed by harness
READERS = {"_inspect_records": "inspect", "_lm_eval_records": "lm-eval"}


def write_normad_mirror(data_dir: Path, rows: int) -> Path:
    """`rows` rows cycling through the 16 synthetic ones, each with its own ID."""
    from inspect_culture.benchmarks.normad.source import NORMAD

    with SAMPLE_CSV.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        fields, template = reader.fieldnames, list(reader)
    path = data_dir / "normad" / NORMAD.filename
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for i in range(rows):
            writer.writerow({**template[i % len(template)], "ID": str(i)})
    return path


@contextlib.contextmanager
def build_environment(work: Path) -> Iterator[None]:
    """Data mirror and every cache under `work`; the HF endpoint a discard port."""
    saved = dict(os.environ)
    os.environ.update(
        {
            "INSPECT_CULTURE_DATA_DIR": str(work / "mirror"),
            "INSPECT_CULTURE_CACHE_DIR": str(work / "cache"),
            "HF_DATASETS_CACHE": str(work / "hf_cache"),
            "INSPECT_CACHE_DIR": str(work / "inspect_cache"),
            "INSPECT_CULTURE_HF_ENDPOINT": "http://127.0.0.1:9",  # discard: never reached
            "INSPECT_CULTURE_JUDGE_CACHE": "off",
            "STUB_API_KEY": "test-key",
            "TQDM_DISABLE": "1",  # lm-eval's progress bars
        }
    )
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_harnesses(work: Path, rows: int, concurrency: int) -> tuple[list[Path], Path]:
    """(the 4 Inspect logs, the lm-eval results file) of NormAd against the stub server."""
    from inspect_culture.benchmarks.normad.spec import CONTEXTS
    from inspect_culture.normad import normad
    from tests.support.harness_runs import inspect_eval_on_stub, run_lm_eval
    from tests.support.openai_stub import StubOpenAIServer

    write_normad_mirror(work / "mirror", rows)
    logs = []
    with build_environment(work), StubOpenAIServer() as server:
        for context in CONTEXTS:
            log = inspect_eval_on_stub(
                normad(context=context), server, work / "runs" / "inspect",
                max_connections=concurrency,
            )  # fmt: skip
            assert log.status == "success", log.error
            logs.append(Path(log.location))
        run_lm_eval(
            server, ["normad"], output_path=work / "runs" / "lm_eval", num_concurrent=concurrency
        )
    [results] = sorted((work / "runs" / "lm_eval").rglob("results_*.json"))
    return logs, results


def fill_folder(folder: Path, logs: list[Path], results: Path, runs: int) -> tuple[int, int]:
    """`runs` runs in `folder`: half Inspect log copies (round robin over `logs`), half copies
    of the lm-eval run with distinct timestamps. Returns (Inspect, lm-eval) counts."""
    n_inspect = runs // 2
    n_lm_eval = runs - n_inspect
    (folder / "inspect").mkdir(parents=True)
    for i in range(n_inspect):
        log = logs[i % len(logs)]
        shutil.copy(log, folder / "inspect" / f"copy{i:03d}_{log.name}")
    stamp = results.stem.removeprefix("results_")
    samples = sorted(results.parent.glob(f"samples_*_{stamp}.jsonl"))
    (folder / "lm_eval").mkdir(parents=True)
    for i in range(n_lm_eval):
        new = f"2030-01-01T00-00-{i:02d}.{i:06d}"
        shutil.copy(results, folder / "lm_eval" / f"results_{new}.json")
        for sample in samples:
            name = sample.name.removesuffix(f"_{stamp}.jsonl")
            shutil.copy(sample, folder / "lm_eval" / f"{name}_{new}.jsonl")
    return n_inspect, n_lm_eval


def build_inputs(work: Path, rows: int, runs: int, concurrency: int) -> dict[str, Any]:
    """Build (or reuse, when `work` already holds the same) the runs and the folder."""
    marker = work / BUILT
    if marker.is_file():
        built = json.loads(marker.read_text())
        if built["rows"] == rows and built["runs"] == runs:
            print(f"inputs: reusing {work}")
            return built
    for name in ("mirror", "runs", "folder", "cache", "hf_cache", "inspect_cache", BUILT):
        shutil.rmtree(work / name, ignore_errors=True)
    start = time.perf_counter()
    logs, results = run_harnesses(work, rows, concurrency)
    ran = time.perf_counter() - start
    n_inspect, n_lm_eval = fill_folder(work / "folder", logs, results, runs)
    built = {
        "rows": rows,
        "runs": runs,
        "logs": [str(p) for p in logs],
        "results": str(results),
        "folder": str(work / "folder"),
        "inspect_runs": n_inspect,
        "lm_eval_runs": n_lm_eval,
    }
    marker.write_text(json.dumps(built, indent=1))
    print(
        f"inputs: built in {time.perf_counter() - start:.1f} s ({ran:.1f} s running both "
        f"harnesses on {4 * rows} Inspect + {4 * rows} lm-eval samples; not measured)"
    )
    return built


# --- the measured work -------------------------------------------------------------------


def cold() -> None:
    """What one `culture-evals report` process starts without: records read, a kept draw."""
    from inspect_culture.report import records
    from inspect_culture.stats.bootstrap import forget_kept_draw

    records.clear_cache()
    forget_kept_draw()


def ours_one_log(path: Path) -> int:
    from inspect_culture.report import records
    from inspect_culture.report.inspect_logs import read_inspect_log

    cold()
    run = read_inspect_log(path)
    return len(records.outcome_records(run))


def host_full_load(path: Path) -> int:
    from inspect_ai.log import read_eval_log

    return len(read_eval_log(str(path)).samples)


def host_header(path: Path) -> int:
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(path), header_only=True).results.total_samples


@contextlib.contextmanager
def timed_readers(parts: dict[str, float]) -> Iterator[None]:
    """Add the time spent in the report's two sample readers to `parts` (looked up as module
    globals at each call, so wrapping them times every call; nothing else changes)."""
    from inspect_culture.report import records

    saved = {name: getattr(records, name) for name in READERS}

    def timed(name: str, reader: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            start = time.perf_counter()
            try:
                return reader(*args)
            finally:
                parts[READERS[name]] += time.perf_counter() - start

        return call

    for name, reader in saved.items():
        setattr(records, name, timed(name, reader))
    try:
        yield
    finally:
        for name, reader in saved.items():
            setattr(records, name, reader)


def ours_folder(folder: Path) -> tuple[Any, dict[str, float]]:
    """The report and the seconds its sample readers took, by harness."""
    from inspect_culture.report.build import build_report

    cold()
    parts = dict.fromkeys(READERS.values(), 0.0)
    with timed_readers(parts):
        return build_report([folder]), parts


def host_folder(folder: Path) -> tuple[int, dict[str, float]]:
    """Every run loaded as a notebook would to reach per-sample data: samples read, and the
    seconds by harness."""
    from inspect_ai.log import read_eval_log

    n = 0
    start = time.perf_counter()
    for path in sorted((folder / "inspect").glob("*.eval")):
        n += len(read_eval_log(str(path)).samples)
    middle = time.perf_counter()
    for path in sorted((folder / "lm_eval").glob("results_*.json")):
        with path.open(encoding="utf-8") as handle:
            json.load(handle)
        stamp = path.stem.removeprefix("results_")
        for samples in sorted(path.parent.glob(f"samples_*_{stamp}.jsonl")):
            with samples.open(encoding="utf-8") as handle:
                n += sum(1 for line in handle if line.strip() and json.loads(line))
    return n, {"inspect": middle - start, "lm-eval": time.perf_counter() - middle}


def write_outputs(report: Any, out: Path, formats: tuple[str, ...]) -> None:
    from inspect_culture.report.build import write_report

    shutil.rmtree(out, ignore_errors=True)
    write_report(report, out, formats)


def figures_only(report: Any, out: Path) -> None:
    """What `write_report` does first for html, md and figures (the cycle collector paused)."""
    from inspect_culture.report.build import cycle_collector_paused
    from inspect_culture.report.figures import draw_figures

    shutil.rmtree(out, ignore_errors=True)
    with cycle_collector_paused():
        report.figures = draw_figures(report.tables, out / "figures")


def pages_only(report: Any, out: Path) -> None:
    """What `write_report` does next: the pages, embedding the figures already drawn."""
    from inspect_culture.report.build import cycle_collector_paused
    from inspect_culture.report.render import write_outputs as render

    with cycle_collector_paused():
        render(report, out, ("html", "md"))


def median_time(repeat: int, work: Callable[[], Any]) -> tuple[float, list[Any]]:
    """Median wall time of `repeat` calls, and every call's result."""
    times, results = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        results.append(work())
        times.append(time.perf_counter() - start)
    return statistics.median(times), results


def median_parts(results: list[tuple[Any, dict[str, float]]], part: str) -> float:
    return statistics.median(parts[part] for _, parts in results)


def profile(work: Callable[[], Any], top: int) -> None:
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.runcall(work)
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2633, help="NormAd rows (samples a log)")
    parser.add_argument("--runs", type=int, default=40, help="runs in the folder")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=64, help="while building inputs")
    parser.add_argument("--work", type=Path, help="keep the inputs here (reused if same size)")
    parser.add_argument(
        "--profile", type=int, metavar="N", default=0,
        help="also print the top N functions (cumulative, then own time) of the report's reading",
    )  # fmt: skip
    args = parser.parse_args()
    logging.getLogger("lm-eval").setLevel(logging.ERROR)
    logging.getLogger("lm_eval").setLevel(logging.ERROR)

    import inspect_ai
    import lm_eval

    print(
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}; inspect_ai {inspect_ai.__version__}, "
        f"lm-eval {lm_eval.__version__}"
    )
    with contextlib.ExitStack() as stack:
        if args.work is None:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="report_speed_")))
        else:
            work = args.work.resolve()
            work.mkdir(parents=True, exist_ok=True)
        built = build_inputs(work, args.rows, args.runs, args.concurrency)
        measure(built, work, args.repeat, args.profile)


def measure(built: dict[str, Any], work: Path, repeat: int, top: int) -> None:
    log = Path(built["logs"][0])
    folder = Path(built["folder"])
    out = work / "out"
    # warm-up: imports and the OS file cache, for both sides alike
    ours_one_log(log), host_header(log), ours_folder(folder)

    rows: list[tuple[str, float, float | None]] = []
    ours, [n_records, *_] = median_time(repeat, lambda: ours_one_log(log))
    full, [n_samples, *_] = median_time(repeat, lambda: host_full_load(log))
    header, _ = median_time(repeat, lambda: host_header(log))
    rows.append(("one log: vs read_eval_log (full)", ours, full))
    rows.append(("one log: vs header_only (floor)", ours, header))
    ours, ours_runs = median_time(repeat, lambda: ours_folder(folder))
    host, host_runs = median_time(repeat, lambda: host_folder(folder))
    report, folder_samples = ours_runs[0][0], host_runs[0][0]
    rows.append((f"{built['runs']}-run folder: tables", ours, host))
    readers = 0.0
    for part, label in (("inspect", "Inspect logs"), ("lm-eval", "lm-eval files")):
        ours_part = median_parts(ours_runs, part)
        readers += ours_part
        rows.append((f"  of which samples of {label}", ours_part, median_parts(host_runs, part)))
    rows.append(("  of which headers + tables (ours)", ours - readers, None))
    failures = []
    for what, work_ in (
        ("write csv, tex", lambda: write_outputs(report, out, ("csv", "tex"))),
        ("write html, md, figures", lambda: write_outputs(report, out, ("html", "md", "figures"))),
        ("  of which drawing figures", lambda: figures_only(report, out)),
        ("  of which html, md pages", lambda: pages_only(report, out)),
    ):
        try:
            rows.append((what, median_time(repeat, work_)[0], None))
        except Exception as exc:  # noqa: BLE001 (a writer broken elsewhere: say so, go on)
            failures.append(f"{what.strip()}: failed, {type(exc).__name__}: {exc}")

    print(
        f"one log: {log.name}, {log.stat().st_size / 1e6:.1f} MB, {n_samples} samples, "
        f"{n_records} outcome records read by the report"
    )
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    print(
        f"folder: {built['runs']} runs ({built['inspect_runs']} Inspect logs, "
        f"{built['lm_eval_runs']} lm-eval results files with 4 samples files each), "
        f"{size / 1e6:.1f} MB, {folder_samples} samples; the report found {len(report.runs)} "
        f"task runs (lm-eval: 4 tasks + the group a file), {len(report.tables)} tables, "
        f"{len(report.skipped)} skipped"
    )
    print(f"median of {repeat}")
    print(f"{'what':<36} {'ours (s)':>9} {'host (s)':>9} {'host/ours':>10}")
    for what, ours_s, host_s in rows:
        host_text = f"{host_s:>9.3f}" if host_s is not None else f"{'-':>9}"
        ratio = f"{host_s / ours_s:>10.2f}" if host_s is not None else f"{'-':>10}"
        print(f"{what:<36} {ours_s:>9.3f} {host_text} {ratio}")
    for failure in failures:
        print(failure)
    if top:
        print(f"\nprofile: the report reading one log ({log.name})")
        profile(lambda: ours_one_log(log), top)
        print(f"profile: build_report of the {built['runs']}-run folder")
        profile(lambda: ours_folder(folder), top)


if __name__ == "__main__":
    main()

"""`culture-evals`: one `_cmd_<name>` per subcommand; `build_parser` says what each does."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_culture import __version__
from inspect_culture.datasets_hub.errors import DataValidationError
from inspect_culture.lm_eval_tasks import include_path
from inspect_culture.run_files import RunsError
from inspect_culture.run_files import report_to_stderr as _warn
from inspect_culture.run_files.judge_comparison import agreement_modules
from inspect_culture.task_catalogue import all_tasks


@contextmanager
def _exits(command: str, *errors: type[Exception], prefix: str = "") -> Iterator[None]:
    """`errors` raised in the block, which the user can fix: one line on stderr and exit code 1
    (as SystemExit says a message), never a traceback."""
    try:
        yield
    except errors as exc:
        raise SystemExit(f"culture-evals {command}: {prefix}{exc}") from None


def _cmd_list(_: argparse.Namespace) -> int:
    tasks = all_tasks()
    width = max(len(entry.name) for entry in tasks)
    for harness in ("inspect", "lm-eval"):
        print(f"{harness}:")
        for entry in (e for e in tasks if e.harness == harness):
            label = f"{entry.name} (group)" if entry.kind == "group" else entry.name
            print(f"  {label:<{width + 8}} {entry.description}")
    return 0


def _cmd_lm_eval_path(_: argparse.Namespace) -> int:
    print(include_path())
    return 0


def _cmd_data(args: argparse.Namespace) -> int:
    from inspect_culture.data_status import data_info, verify

    if args.action == "info":
        print(data_info(args.datasets))
        return 0
    report, ok = verify(args.datasets)
    print(report)
    return 0 if ok else 1


def _cmd_main_job(args: argparse.Namespace) -> int:
    from inspect_culture.benchmarks.care.spec import CARE_LANGUAGES as LANGUAGES
    from inspect_culture.local_model.main_job import main_job, parity_differences
    from inspect_culture.local_model.server import LocalModelError

    languages = [lang.strip() for lang in args.languages.split(",") if lang.strip()]
    if unknown := [lang for lang in languages if lang not in LANGUAGES]:
        raise SystemExit(
            f"--languages: unknown {', '.join(unknown)}; allowed: {', '.join(LANGUAGES)}"
        )
    with _exits("main-job", LocalModelError):
        runs = main_job(
            languages,
            args.per_category,
            args.max_tokens,
            args.judge_constraint,
            args.output,
            args.threads,
        )
    return 1 if parity_differences(runs) else 0


def _cmd_local_server(args: argparse.Namespace) -> int:
    import signal
    import threading

    from inspect_culture.local_model.server import LlamaServer, LocalModelError, how_to_use

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # `kill` stops it as Ctrl-C does
    try:
        with LlamaServer(port=args.port, threads=args.threads) as server:
            print(
                f"llama.cpp server with {server.model.name} on {server.base_url} "
                f"(Ctrl-C stops it)\n\n{how_to_use(server.base_url)}",
                flush=True,
            )
            threading.Event().wait()
    except LocalModelError as exc:
        raise SystemExit(f"culture-evals local-server: {exc}") from None
    except KeyboardInterrupt:
        print("server stopped")
    return 0


def _cmd_baseline_export(args: argparse.Namespace) -> int:
    from inspect_culture.benchmarks.culturesynth.baseline_responses import write_baseline_responses
    from inspect_culture.run_files.culturesynth_baseline_export import export_baseline

    with _exits("baseline export", RunsError, DataValidationError):
        baseline = export_baseline(args.inputs, role=args.role, model=args.model)
    with _exits("baseline export", OSError, prefix=f"cannot write {args.output}: "):
        path = write_baseline_responses(baseline, args.output)
    print(
        f"{path}: {len(baseline.responses)} answers of {baseline.model} from "
        f"{len(baseline.sources)} run file(s)"
    )
    return 0


def _cmd_agreement(args: argparse.Namespace) -> int:
    from inspect_culture.run_files.judge_comparison import compare_runs

    with _exits("agreement", RunsError, DataValidationError):
        table, warnings = compare_runs(args.benchmark, args.a, args.b)
    print(table)
    for warning in warnings:
        _warn(warning)
    return 0


def _cmd_judge(args: argparse.Namespace) -> int:
    import json

    from lm_eval.utils import make_table

    from inspect_culture.judge_command.run import BATCH_STATE_DIR, judge_outputs
    from inspect_culture.judging.openai_batch import BatchOptions, JudgeLaterError
    from inspect_culture.judging.options import FLAG, declared
    from inspect_culture.run_files.lm_eval_outputs import results_json

    if args.poll_interval <= 0 or args.max_rounds < 1:
        raise SystemExit("culture-evals judge: --poll-interval must be > 0, --max-rounds >= 1")
    output = Path(args.output)
    batch = BatchOptions(output / BATCH_STATE_DIR, args.poll_interval, args.max_rounds)
    # `--metadata` JSON, then the `--judge-*` options (which win): lm-eval's judge keys
    metadata: dict[str, object] = {}
    if args.metadata:
        try:
            metadata = json.loads(args.metadata)
        except json.JSONDecodeError as exc:
            raise SystemExit(f"culture-evals judge: --metadata is not JSON ({exc.msg})") from None
        if not isinstance(metadata, dict):
            raise SystemExit("culture-evals judge: --metadata must be a JSON object")
    options = {option.name: getattr(args, option.name) for option in declared(FLAG)}
    metadata |= {key: value for key, value in options.items() if value is not None}
    with _exits("judge", JudgeLaterError, OSError):
        summary = judge_outputs(
            Path(args.source),
            output,
            metadata,
            batch=batch if args.batch else None,
            say=_warn,
            dry_run=args.dry_run,
        )
    for skipped in summary.skipped:
        _warn(f"skipped {skipped}")
    if args.dry_run:
        print("\n".join(summary.calls))
        return 0
    for task in summary.tasks:
        print(f"{task.task}: {task.n_scored} scored, {task.n_unscored} unscored")
    for path in summary.written:  # the table lm-eval prints: headline metrics, intervals, counts
        print(f"written: {path}\n{make_table(results_json(path))}")
    if not any(task.n_scored for task in summary.tasks):
        _warn(
            f"every judged sample ({sum(t.n_unscored for t in summary.tasks)}) is unscored: the reasons are in the "
            "samples files' filtered_resps; these numbers are not results"
        )
        return EXIT_NOTHING
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from inspect_culture.judging.cache import JudgeConfigError
    from inspect_culture.judging.usage import parse_price
    from inspect_culture.report.build import check_dependencies
    from inspect_culture.report.model import ReportDependencyError
    from inspect_culture.report.render import parse_formats

    with _exits("report", ValueError, ReportDependencyError, JudgeConfigError):
        formats = parse_formats(args.format)
        check_dependencies(formats)
        price = None if args.judge_price is None else parse_price(args.judge_price)
    return _report(args, formats, price)


def _report(args: argparse.Namespace, formats: Sequence[str], price: Any = None) -> int:
    from inspect_culture.report.build import build_report, write_report

    report = build_report(args.runs, price)
    for skipped in report.skipped:
        _warn(f"{'not in the report' if skipped.by_design else 'skipped'} {skipped}")
    if not report.tables:
        _warn("nothing to report: no finished run of an inspect-culture benchmark among the inputs")
        return EXIT_NOTHING
    for warning in report.warnings:
        _warn(f"warning: {warning}")
    with _exits("report", OSError, prefix=f"cannot write {args.output}: "):
        written = write_report(report, Path(args.output), formats)
    runs = len(report.runs)
    print(f"{runs} run(s), {len(report.tables)} table(s), {len(report.warnings)} warning(s)")
    for name, path in written.items():
        print(f"{name}: {path}")
    return EXIT_SKIPPED if any(not s.by_design for s in report.skipped) else 0


THREADS_HELP = (
    "llama.cpp's CPU threads (default: every CPU, llama.cpp's own; beside other work fewer are "
    "faster, e.g. 1 on 2 cores)"
)
# `culture-evals report` exit codes beyond 0 (everything used) and 2 (usage)
EXIT_NOTHING = 1  # no input was a finished run of ours: nothing written
EXIT_SKIPPED = 3  # the report was written, but some inputs were skipped (listed on stderr)


# The command line as a table: per subcommand, its parser's words and its arguments' rows (the
# flags, then add_argument's keywords); `culture-evals judge`'s judge options come from their
# declaration (`judging/options.py`).
Row = tuple[tuple[str, ...], dict[str, Any]]


def _arg(*flags: str, **keywords: Any) -> Row:
    """One argument's row, written as its `add_argument` call."""
    return flags, keywords


@dataclass(frozen=True)
class Command:
    name: str
    words: dict[str, str]  # add_parser's help and description
    rows: tuple[Row | Callable[[], list[Row]], ...] = ()  # a callable: rows made when parsing
    run: Callable[[argparse.Namespace], int] | None = None
    actions: tuple[Command, ...] = ()  # subcommands of the subcommand, under args.action


def _judge_option_rows() -> list[Row]:
    from inspect_culture.judging.options import FLAG, declared

    return [
        _arg(f"--{o.name.replace('_', '-')}", type=o.flag_type, help=o.help) for o in declared(FLAG)
    ]


def _agreement_rows() -> list[Row]:
    return [
        _arg(
            "--benchmark",
            choices=("auto", *agreement_modules()),
            default="auto",
            help="auto (default): CARE when A holds CARE samples files, else CultureSynth-7",
        )
    ]


_OUTPUT_DIR: Row = _arg("-o", "--output", required=True, metavar="OUTDIR", help="folder to write")
COMMANDS: tuple[Command, ...] = (
    Command("list", {"help": "every task in both harnesses"}, run=_cmd_list),
    Command(
        "lm-eval-path",
        {"help": "the directory to pass to lm_eval --include_path"},
        run=_cmd_lm_eval_path,
    ),
    Command(
        "data",
        {"help": "dataset sources, availability and validation"},
        (
            _arg(
                "action",
                choices=("info", "verify"),
                help="info: sources and where the files are; verify: load and validate every record",
            ),
            _arg("datasets", nargs="*", help="dataset names (default: all)"),
        ),
        _cmd_data,
    ),
    Command(
        "main-job",
        {"help": "CARE in both harnesses on a local SmolLM2-135M (llama.cpp): a pipeline check"},
        (
            _arg("--languages", default="zh,ar,ja", help="comma-separated (default zh,ar,ja)"),
            _arg("--per-category", type=int, default=1, help="questions per category (1)"),
            _arg("--max-tokens", type=int, default=128, help="new tokens per answer (128)"),
            _arg(
                "--judge-constraint",
                choices=("grammar", "none"),
                default="grammar",
                help="grammar (default): the judge's replies always end in 'Rating: [[n]]'; "
                "none: the paper's protocol, where a 135M judge leaves most samples unscored",
            ),
            _arg(
                "-o",
                "--output",
                metavar="DIR",
                default="runs/main-job",
                help="keep the runs (inspect/, lm_eval/: a rerun replaces them) and the report "
                "(report/) here (default: runs/main-job)",
            ),
            _arg("--threads", type=int, default=None, help=THREADS_HELP),
        ),
        _cmd_main_job,
    ),
    Command(
        "local-server",
        {
            "help": "start the main job's local model (SmolLM2-135M, llama.cpp) on 127.0.0.1 and print "
            "the --model, --model-role and --metadata arguments to use it in each harness"
        },
        (
            _arg("--port", type=int, default=None, help="(default: a free port)"),
            _arg("--threads", type=int, default=None, help=THREADS_HELP),
        ),
        _cmd_local_server,
    ),
    Command(
        "baseline",
        {"help": "CultureSynth-7 baseline answers files"},
        actions=(
            Command(
                "export",
                {
                    "help": "write the baseline answers file from Inspect logs or lm-eval samples of the "
                    "baseline model"
                },
                (
                    _arg(
                        "inputs",
                        nargs="+",
                        metavar="INPUT",
                        help="Inspect log (.eval/.json), lm-eval samples or results file, or a folder of them",
                    ),
                    _arg("-o", "--output", required=True, metavar="FILE", help="file to write"),
                    _arg(
                        "--role",
                        choices=("baseline",),
                        help="export the baseline role's answers recorded in Inspect culturesynth logs",
                    ),
                    _arg("--model", metavar="NAME", help="the model's name (overrides the runs')"),
                ),
                _cmd_baseline_export,
            ),
        ),
    ),
    Command(
        "agreement",
        {
            "help": "agreement of two judges on the same answers: CultureSynth-7 strict agreement "
            "(Table 7), CARE rating agreement (exact, within-1, MAD, Pearson, Spearman, weighted kappa)"
        },
        (
            _arg("a", metavar="A", help="judged run(s) of judge A: a file or a folder"),
            _arg("b", metavar="B", help="judged run(s) of judge B: a file or a folder"),
            _agreement_rows,
        ),
        _cmd_agreement,
    ),
    Command(
        "judge",
        {
            "help": "judge the generations of an lm-eval run made with judge_later and --log_samples",
            "description": "Judge the CARE, CultureSynth-7 and CQ-Bench VE samples of an lm-eval "
            "output folder (run with --metadata '{\"judge_later\": true}' --log_samples) and write "
            "results_<timestamp>.json and samples files in lm-eval's layout. The API key comes only "
            "from INSPECT_CULTURE_JUDGE_API_KEY or OPENAI_API_KEY. Judgments are cached as they "
            "return, so an interrupted run resumes without repeating any. Exit code 1 when every "
            "judged sample ends unscored.",
        },
        (
            _arg("source", metavar="RUN", help="lm-eval --output_path folder (or results file)"),
            _OUTPUT_DIR,
            _judge_option_rows,
            _arg(
                "--metadata",
                metavar="JSON",
                help="judge keys as in lm_eval --metadata, and jury_rule (options win); any other key "
                "is refused",
            ),
            _arg(
                "--batch",
                action="store_true",
                help="use the OpenAI Batch API (about half price, within 24 h); rerun to resume a wait",
            ),
            _arg(
                "--dry-run",
                action="store_true",
                help="check every task and print the judge calls each judge would get; call none",
            ),
            _arg(
                "--poll-interval", type=float, default=30.0, help="seconds between batch polls (30)"
            ),
            _arg(
                "--max-rounds",
                type=int,
                default=3,
                help="batches per task: the first plus retries of what it left undone (3)",
            ),
        ),
        _cmd_judge,
    ),
    Command(
        "report",
        {
            "help": "paper-style tables, figures and published reference rows from finished runs",
            "description": "Tables in the papers' layouts (95% intervals, n), the papers' published "
            "numbers beside them, comparability warnings and figures, from Inspect logs and "
            "lm-eval output folders. Exit code 0: every input used; 1: nothing to report; 3: "
            "written, but some inputs were skipped (listed on stderr; runs that have no table by "
            "design, such as judge-agreement runs, are listed but do not count).",
        },
        (
            _arg(
                "runs",
                nargs="+",
                metavar="RUN",
                help="Inspect log (.eval/.json), lm-eval results_*.json, or a folder of either",
            ),
            _OUTPUT_DIR,
            _arg(
                "--format",
                default="html,md,tex,csv,figures",
                help="comma-separated: html (report.html), md (report.md), tex (tables.tex), csv "
                "(results.csv), figures (figures/*.png and .pdf); default: all",
            ),
            _arg(
                "--judge-price",
                metavar="IN,OUT",
                help="the judge's price per million prompt and completion tokens, e.g. "
                "2.5,10: the Judge cost tables' cost column (default: the price a run "
                "recorded with judge_price, if any)",
            ),
        ),
        _cmd_report,
    ),
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="culture-evals", description="Cultural-awareness benchmarks for Inspect and lm-eval."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _add_commands(parser, "command", COMMANDS)
    return parser


def _add_commands(parser: argparse.ArgumentParser, dest: str, commands: Sequence[Command]) -> None:
    """Each command of the table as a subparser of `parser`, chosen under `dest`."""
    chooser = parser.add_subparsers(dest=dest, required=True)
    for command in commands:
        sub = chooser.add_parser(command.name, **command.words)
        for row in command.rows:
            for flags, keywords in row() if callable(row) else [row]:
                sub.add_argument(*flags, **keywords)
        if command.actions:
            _add_commands(sub, "action", command.actions)
        if command.run is not None:
            sub.set_defaults(run=command.run)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


# Commands that leave nothing for the interpreter's teardown to do: `report` spends 0.6-0.9 s
# after its work freeing what it read (Inspect's models, the records) one object at a time.
_QUICK_EXIT = frozenset({"report"})


def run() -> None:
    """The `culture-evals` console script."""
    code = main()
    if sys.argv[1:2] and sys.argv[1] in _QUICK_EXIT:
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    run()

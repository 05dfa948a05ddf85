"""The report writers (HTML, Markdown, LaTeX, CSV) on a hand-built `Report`: two models, one run
in both harnesses, published rows, a warning, a skipped input, a figure, and a model name full of
HTML and LaTeX specials. The HTML page is also opened in a real, offline Chromium."""

from __future__ import annotations

import base64
import csv
import re
import shutil
import struct
import subprocess
import urllib.parse
import zlib
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from inspect_culture import __version__
from inspect_culture.report.model import (
    Cell,
    Column,
    Figure,
    Report,
    Row,
    RunInfo,
    Skipped,
    Table,
)
from inspect_culture.report.render import (
    FORMATS,
    parse_formats,
    write_csv,
    write_html,
    write_latex,
    write_markdown,
    write_outputs,
)
from inspect_culture.report.render.common import MISSING, cell_parts
from inspect_culture.report.render.latex import MAX_ROWS, parts, render_latex
from inspect_culture.report.render.latex import escape as latex_escape
from inspect_culture.report.section import all_layouts
from tests.support.browser import open_offline

NASTY = "org/model_v1 & <b>x</b> 50%"
PLAIN = "gpt-4o-mini"
WARNING = "CARE: the judge left 3 of 40 answers unscored for org/model_v1; see the Unscored column."
SKIPPED = Path("runs/broken_run.json")
NORMAD_SOURCE = "Rao et al. (2024), NormAd, Table 3, p. 7"
CARE_SOURCE = "Guo et al. (2025), CARE, Table 2, p. 6 (Müller-reviewed)"


# ---------------------------------------------------------------- the hand-built report


def write_png(path: Path) -> Path:
    """A real, small PNG: drawn by matplotlib where it is installed, else a hand-made 1x1."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        path.write_bytes(_one_pixel_png())
        return path
    fig, ax = plt.subplots(figsize=(4, 2.5), dpi=80)
    ax.bar([PLAIN, "org/model_v1"], [72.4, 61.0], color=["#4c72b0", "#dd8452"])
    ax.set_ylabel("accuracy (%)")
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)
    return path


def _one_pixel_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00\x33\x66\x99")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def _columns(key: str) -> tuple[Column, ...]:
    return all_layouts()[key].columns


def _cells(
    columns: tuple[Column, ...],
    base: float,
    n: int | None = 120,
    width: float | None = 4.2,
    step: float = 1.7,
) -> dict[str, Cell]:
    """Made-up but plausible numbers; `width=None` gives no interval (as papers often do)."""
    cells = {}
    for i, col in enumerate(columns):
        if col.count:
            cells[col.key] = Cell(3.0)
        elif width is None:
            cells[col.key] = Cell(base + step * i, n=n)
        else:
            value = base + step * i
            cells[col.key] = Cell(value, value - width, value + width, n)
    return cells


def build_report(figure_dir: Path) -> Report:
    normad_runs = ("runs/normad_inspect.eval", "runs/normad_lmeval.json")
    context = _columns("normad_context")
    context_rows = (
        Row(
            PLAIN,
            {**_cells(context, 72.4), "none": Cell(None)},
            harness="inspect",
            setting="zero-shot, parser v2",
            runs=normad_runs[:1],
        ),
        Row(
            PLAIN,
            _cells(context, 71.95),
            harness="lm-eval",
            setting="zero-shot, parser v2",
            runs=normad_runs[1:],
        ),
        Row(
            NASTY,
            _cells(context, 61.0, n=118),
            harness="inspect",
            setting="zero-shot, limit=120",
            runs=("runs/nasty.eval",),
        ),
        Row(
            "GPT-4",
            {"rot": Cell(87.0), "country": Cell(79.4)},
            kind="published",
            source=NORMAD_SOURCE,
        ),
    )
    iw = _columns("normad_iw")
    iw_rows = tuple(
        Row(model, _cells(iw, base), harness="inspect", group=group)
        for group in ("rot", "country")  # layout keys, printed as "RoT", "Country"
        for model, base in ((PLAIN, 70.0), (NASTY, 58.25))
    )
    care = _columns("care")
    care_rows = (
        Row(
            PLAIN,
            _cells(care, 6.123, n=40, width=0.31, step=0.27),
            harness="inspect",
            group="zh",
            setting="judge gpt-4o",
        ),
        Row(
            NASTY,
            _cells(care, 5.5, n=37, width=0.4, step=0.31),
            harness="inspect",
            group="zh",
            setting="judge gpt-4o",
        ),
        Row(
            "GPT-4o",
            _cells(care, 7.1, n=None, width=None, step=0.2),
            kind="published",
            group="zh",
            source=CARE_SOURCE,
        ),
        Row(
            "Qwen2.5-72B",
            {"overall": Cell(6.9)},
            kind="published",
            group="zh",
            source=NORMAD_SOURCE,
        ),
    )
    synth = _columns("culturesynth")
    synth_rows = (
        Row(PLAIN, _cells(synth, -3.04, n=56, width=9.0), harness="inspect"),
        Row(NASTY, _cells(synth, -0.03, n=56, width=9.0), harness="lm-eval"),
    )
    secondary = _columns("culturesynth_secondary")
    secondary_rows = (Row(PLAIN, _cells(secondary, 40.0, n=56), harness="inspect"),)
    tables = [
        Table(
            "normad_context",
            "NormAd-ETI",
            "NormAd-ETI: accuracy by context",
            "accuracy (%)",
            context,
            context_rows,
            caption="Wilson 95% intervals; n = stories.",
        ),
        Table(
            "culturesynth_secondary",
            "CultureSynth-7",
            "CultureSynth-7: wins, ties, losses",
            "percent",
            secondary,
            secondary_rows,
            secondary=True,
        ),
        Table(
            "normad_iw",
            "NormAd-ETI",
            "NormAd-ETI: accuracy by Inglehart-Welzel cluster",
            "accuracy (%)",
            iw,
            iw_rows,
            group_label="Context",
        ),
        Table(
            "care",
            "CARE",
            "CARE: mean judge rating",
            "rating (1-10)",
            care,
            care_rows,
            group_label="Language",
            decimals=2,
        ),
        Table(
            "culturesynth",
            "CultureSynth-7",
            "CultureSynth-7: net win rate",
            "net win rate (%)",
            synth,
            synth_rows,
        ),
    ]
    runs = [
        RunInfo(
            Path(normad_runs[0]),
            "inspect",
            "NormAd-ETI",
            "normad",
            {"context": "rot"},
            PLAIN,
            {"accuracy": 0.724},
            120,
            dataset="akhilayerukola/NormAd@311049f",
            dataset_sha256="ab" * 32,
            dataset_rows=2633,
            versions={"task": 3, "parser": 2},
        ),
        RunInfo(
            Path(normad_runs[1]),
            "lm-eval",
            "NormAd-ETI",
            "normad_rot",
            {"context": "rot"},
            PLAIN,
            {"accuracy": 0.7195},
            120,
            dataset="akhilayerukola/NormAd@311049f",
            dataset_sha256="ab" * 32,
            dataset_rows=2633,
        ),
        RunInfo(
            Path("runs/nasty.eval"),
            "inspect",
            "NormAd-ETI",
            "normad",
            {"context": "rot"},
            NASTY,
            {},
            118,
            limit=120,
            subset="per_category=2",
            unscored=2,
        ),
        RunInfo(
            Path("runs/care_zh.eval"),
            "inspect",
            "CARE",
            "care_zh",
            {"language": "zh"},
            PLAIN,
            {},
            40,
            judge="openai/gpt-4o",
        ),
    ]
    png = write_png(figure_dir / "accuracy.png")
    figure = Figure(
        "accuracy",
        "Accuracy by model",
        png,
        png.with_suffix(".pdf"),
        caption="NormAd-ETI, RoT context; bars are means.",
    )
    return Report(
        runs,
        tables,
        warnings=[WARNING],
        skipped=[Skipped(SKIPPED, "not a results file")],
        figures=[figure],
    )


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    return tmp_path / "out"


@pytest.fixture
def report(out_dir: Path) -> Report:
    return build_report(out_dir / "figures")


def _values(report: Report) -> list[tuple[Table, Row, Column, Cell]]:
    return [
        (table, row, col, row.cells[col.key])
        for table in report.tables
        for row in table.rows
        for col in table.columns
        if col.key in row.cells and row.cells[col.key].value is not None
    ]


# ---------------------------------------------------------------- cells and formats


def test_cell_text_has_value_interval_and_n() -> None:
    metric, count = Column("acc", "Acc"), Column("unscored", "Unscored", count=True)
    assert cell_parts(Cell(72.4, 68.1, 76.5, 120), metric, 1).text == "72.4 [68.1, 76.5] (n=120)"
    assert cell_parts(Cell(0.5, n=12), metric, 3).text == "0.500 (n=12)"
    assert cell_parts(Cell(None), metric, 1).text == MISSING == "–"
    assert cell_parts(None, metric, 1).text == MISSING
    assert cell_parts(Cell(3.0, 1.0, 4.0, 9), count, 2).text == "3"
    assert cell_parts(Cell(-0.04, -1.0, 0.9), metric, 1).text == "0.0 [-1.0, 0.9]"
    parts = cell_parts(Cell(72.44, 68.06, 76.51, 120), metric, 1)
    assert (parts.value, parts.interval, parts.n) == ("72.4", "[68.1, 76.5]", "n=120")


def test_parse_formats_keeps_order_and_refuses_unknown_names() -> None:
    assert parse_formats("html, MD,tex,html") == ("html", "md", "tex")
    assert parse_formats(",".join(FORMATS)) == FORMATS
    with pytest.raises(ValueError, match="pdf.*allowed: html, md, tex, csv, figures"):
        parse_formats("html,pdf")
    with pytest.raises(ValueError, match="allowed"):
        parse_formats(" , ")


def test_write_outputs_writes_the_named_files_and_leaves_figures(
    report: Report, out_dir: Path
) -> None:
    written = write_outputs(report, out_dir, FORMATS)
    assert {name: path.name for name, path in written.items()} == {
        "html": "report.html",
        "md": "report.md",
        "tex": "tables.tex",
        "csv": "results.csv",
    }
    assert all(path.parent == out_dir and path.stat().st_size > 0 for path in written.values())
    assert write_outputs(report, out_dir / "only_csv", ["csv"]).keys() == {"csv"}
    with pytest.raises(ValueError, match="allowed"):
        write_outputs(report, out_dir, ["docx"])


def test_an_empty_report_and_a_missing_figure_still_render(out_dir: Path) -> None:
    """Every input skipped: the writers still say so instead of failing; a figure whose file
    is gone is named in the page, never shown as a broken image."""
    gone = Figure(
        "gone", "Gone", out_dir / "figures" / "gone.png", out_dir / "figures" / "gone.pdf"
    )
    empty = Report([], [], skipped=[Skipped(SKIPPED, "not a results file")], figures=[gone])
    written = write_outputs(empty, out_dir, FORMATS)
    html = written["html"].read_text(encoding="utf-8")
    assert "No tables" in html and "<img" not in html and "figure file unreadable" in html
    assert "No tables" in written["tex"].read_text(encoding="utf-8")
    assert "No runs." in written["md"].read_text(encoding="utf-8")
    assert written["csv"].read_text(encoding="utf-8").splitlines()[1:] == []
    assert write_outputs(empty, out_dir, ["figures"]) == {}


# ---------------------------------------------------------------- HTML


class _Page(HTMLParser):
    """Every start tag with its attributes, and the text, in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_is_self_contained_and_escaped(report: Report, out_dir: Path) -> None:
    html = write_html(report, out_dir / "report.html").read_text(encoding="utf-8")
    page = _Page()
    page.feed(html)
    links = [
        (tag, attrs.get(name, ""))
        for tag, attrs in page.tags
        for name in ("src", "href")
        if name in attrs
    ]
    for tag, link in links:
        assert not link.startswith(("http://", "https://", "//")), (tag, link)
    assert "http://" not in html and "https://" not in html and "url(" not in html
    assert not [tag for tag, _ in page.tags if tag in ("script", "link", "iframe", "object")]

    images = [attrs for tag, attrs in page.tags if tag == "img"]
    assert len(images) == len(report.figures) == 1
    assert images[0]["src"].startswith("data:image/png;base64,")
    assert base64.b64decode(images[0]["src"].split(",", 1)[1]) == report.figures[0].png.read_bytes()
    assert images[0]["alt"] == "Accuracy by model"

    text = "".join(page.text)
    assert NASTY in text  # shown as written ...
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html  # ... but as text
    assert "b" not in {tag for tag, _ in page.tags}
    assert f"inspect-culture {__version__}" in text
    assert 'group">Chinese<' in html and 'group">RoT<' in html  # group labels, not keys
    assert 'group">zh<' not in html and 'group">rot<' not in html
    assert str(SKIPPED) in text and NORMAD_SOURCE in text and CARE_SOURCE in text
    # warnings come first, before any table; published rows are marked as such
    assert html.index(WARNING) < html.index("<table")
    published = [
        attrs
        for tag, attrs in page.tags
        if tag == "tr" and "published" in attrs.get("class", "").split()
    ]
    assert len(published) == sum(
        row.kind == "published" for table in report.tables for row in table.rows
    )
    # main tables before secondary ones within a benchmark; sections in first-seen order
    assert html.index("net win rate") < html.index("wins, ties, losses")
    assert html.index('id="normad-eti"') < html.index('id="culturesynth-7"')


@pytest.mark.slow
def test_html_opens_offline_in_a_real_browser(
    report: Report, out_dir: Path, tmp_path: Path
) -> None:
    path = write_html(report, out_dir / "report.html")
    check = open_offline(path, tmp_path / "report.png")
    assert (check.blocked, check.errors, check.failed) == ([], [], [])
    assert len(check.images) == len(report.figures)
    assert all(image["complete"] and image["w"] > 0 for image in check.images), check.images
    # readable: each figure spans the content's width (a 1,360-px window), and a click opens
    # its PNG at full size
    assert all(image["shown"] >= 900 for image in check.images), check.images
    for image in check.images:
        assert image["link"].startswith("file://") and image["link"].endswith(".png")
        assert Path(urllib.parse.unquote(image["link"].removeprefix("file://"))).is_file()
    assert check.title == "Cultural-awareness evaluation report"
    assert (tmp_path / "report.png").stat().st_size > 10_000


# ---------------------------------------------------------------- LaTeX


def _unescaped(text: str, chars: str) -> list[str]:
    """The characters of `chars` in `text` that are not escaped by a backslash."""
    found, i = [], 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] in chars:
            found.append(text[i])
        i += 1
    return found


def _strip_comments(text: str) -> str:
    return "\n".join(re.sub(r"(?<!\\)%.*", "", line) for line in text.splitlines())


def _tabular_columns(spec: str) -> int:
    spec = re.sub(r"[@!>]\{[^}]*\}|[pmb]\{[^}]*\}", "c", spec)
    return len(re.findall(r"[lrc]", spec))


def latex_structure_problems(text: str) -> list[str]:
    """What a LaTeX engine would choke on, checked without one: unbalanced braces, a table
    without its booktabs rules or end, a row whose `&` count does not fit its tabular, or a
    special character (`_ # $`) left unescaped. Comments are ignored."""
    problems: list[str] = []
    body = _strip_comments(text)
    depth = 0
    for ch in _unescaped(body, "{}"):
        depth += 1 if ch == "{" else -1
        if depth < 0:
            problems.append("a '}' closes more braces than were opened")
            depth = 0
    if depth:
        problems.append(f"{depth} brace(s) left open")
    stray = _unescaped(re.sub(r"\\label\{[^}]*\}", "", body), "_#$")  # labels may hold "_"
    if stray:
        problems.append(f"unescaped special characters: {''.join(stray)}")
    blocks = re.findall(r"\\begin\{table\}(.*?)(?=\\begin\{table\}|\Z)", body, flags=re.S)
    if not blocks:
        problems.append("no table")
    for n, block in enumerate(blocks, 1):
        rules = [
            block.find(rule) for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\end{table}")
        ]
        if -1 in rules or rules != sorted(rules):
            problems.append(
                f"table {n}: needs \\toprule, \\midrule, \\bottomrule, \\end{{table}} in order"
            )
            continue
        spec = re.search(r"\\begin\{tabular\*?\}(?:\{[^}]*\})?\{((?:[^{}]|\{[^}]*\})*)\}", block)
        if spec is None:
            problems.append(f"table {n}: no tabular")
            continue
        columns = _tabular_columns(spec.group(1))
        inner = block[block.find(r"\toprule") : block.find(r"\bottomrule")]
        for line in inner.splitlines():
            if line.rstrip().endswith("\\\\"):
                amps = len(_unescaped(line, "&"))
                if amps != columns - 1:
                    problems.append(f"table {n}: {amps} '&' in a row of {columns} columns: {line}")
    return problems


GOOD_TEX = r"""\begin{table}
\caption{x}
\begin{tabular}{lr}
\toprule
A & B \\
\midrule
a\_b & 1 {\scriptsize[0, 2]} \\
\bottomrule
\end{tabular}
\end{table}
"""


@pytest.mark.parametrize(
    ("broken", "complaint"),
    [
        (GOOD_TEX.replace("{x}", "{x"), "left open"),
        (GOOD_TEX.replace(r"\midrule", ""), "in order"),
        (GOOD_TEX.replace(r"\end{table}", ""), "in order"),
        (GOOD_TEX.replace(r"a\_b &", "a & b &"), "'&'"),
        (GOOD_TEX.replace(r"a\_b", "a_b"), "unescaped special"),
        (GOOD_TEX.replace(r"a\_b", "50$"), "unescaped special"),
    ],
)
def test_the_latex_checker_catches_broken_input(broken: str, complaint: str) -> None:
    assert latex_structure_problems(GOOD_TEX) == []
    problems = latex_structure_problems(broken)
    assert any(complaint in problem for problem in problems), problems


def test_a_long_latex_table_continues_in_the_next_float() -> None:
    """CQ-Bench's published rows fill more than a page: the table is cut at group boundaries
    into floats of at most `MAX_ROWS` rows, each a complete booktabs table."""
    columns = _columns("cqbench")
    rows = tuple(
        Row(
            f"model-{i}", _cells(columns, 0.5, width=0.1, step=0.01), harness="inspect", group=group
        )
        for group in ("social", "political", "random")
        for i in range(20)
    )
    table = Table(
        "cqbench", "CQ-Bench", "CQ-Bench", "score (0-1)", columns, rows, "Setting", decimals=3
    )
    pieces = parts(table)
    assert [len(piece.rows) for piece in pieces] == [20, 20, 20]
    assert all(len(piece.rows) <= MAX_ROWS for piece in pieces)
    tex = render_latex(Report([], [table]))
    assert latex_structure_problems(tex) == []
    assert tex.count(r"\begin{table}") == 3
    assert re.findall(r"\\label\{[^}]*\}", tex) == [
        r"\label{tab:cqbench}",
        r"\label{tab:cqbench:2}",
        r"\label{tab:cqbench:3}",
    ]
    assert "(continued, part 3 of 3)" in tex
    assert all(tex.count(f"model-{i} &") == 3 for i in range(20))
    one_group = replace(table, rows=tuple(replace(row, group="social") for row in rows))
    assert [len(piece.rows) for piece in parts(one_group)] == [MAX_ROWS, 60 - MAX_ROWS]


def _engine() -> str | None:
    # tectonic is left out: it downloads its bundle on first use, and tests stay offline.
    return next((name for name in ("lualatex", "xelatex", "pdflatex") if shutil.which(name)), None)


def test_latex_tables(report: Report, out_dir: Path) -> None:
    path = write_latex(report, out_dir / "tables.tex")
    tex = path.read_text(encoding="utf-8")
    assert latex_structure_problems(tex) == []
    assert tex.count(r"\begin{table}") == len(report.tables)
    for table in report.tables:
        assert f"\\label{{tab:{table.key}}}" in tex
    assert "\\usepackage{booktabs}" in tex.splitlines()[2]
    escaped = latex_escape(NASTY)
    assert (
        escaped == r"org/model\_v1 \& \textless{}b\textgreater{}x\textless{}/b\textgreater{} 50\%"
    )
    assert escaped in tex and NASTY not in tex
    assert r"72.4 {\scriptsize{[}68.2, 76.6{]}}" not in tex  # brackets only escaped in text
    assert r"72.4 {\scriptsize[68.2, 76.6]}" in tex
    assert r"\textit{GPT-4}\textsuperscript{\dag}" in tex  # one source: a bare dagger
    assert r"\textit{GPT-4o}\textsuperscript{\dag1}" in tex  # two sources: numbered
    assert r"\resizebox{\textwidth}{!}{%" in tex  # the 8-cluster table is scaled
    assert "Müller" in tex  # non-ASCII kept as UTF-8
    engine = _engine()
    if engine is None:
        return
    doc = out_dir / "doc.tex"
    # A paper's usual preamble plus the packages tables.tex names in its top comment.
    fonts = "\\usepackage[T1]{fontenc}\n\\usepackage{lmodern}\n" if engine == "pdflatex" else ""
    doc.write_text(
        f"\\documentclass{{article}}\n{fonts}\\usepackage{{booktabs}}\n\\usepackage{{graphicx}}\n"
        "\\begin{document}\n\\input{tables.tex}\n\\end{document}\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", doc.name],
        cwd=out_dir,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:]


# ---------------------------------------------------------------- Markdown


def _cells_per_line(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line)) - 1


def test_markdown_tables_are_well_formed(report: Report, out_dir: Path) -> None:
    md = write_markdown(report, out_dir / "report.md").read_text(encoding="utf-8")
    lines = md.splitlines()
    tables: list[list[str]] = []
    for previous, line in zip([""] + lines, lines):
        if line.startswith("|"):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append(line)
    assert len(tables) == len(report.tables) + 1  # and the runs table
    for table in tables:
        assert len({_cells_per_line(line) for line in table}) == 1, table
        assert re.fullmatch(r"\|(:---|---:)(\|(:---|---:))*\|", table[1])
    assert md.index(WARNING.split(";")[0].replace("_", "\\_")) < md.index("\n|")
    assert md.index("## Warnings") < md.index("## NormAd-ETI")
    assert "](figures/accuracy.png)" in md
    assert "<b>" not in md and r"\<b\>x\</b\>" in md
    assert "*published* \\[1\\]" in md and NORMAD_SOURCE in md


def test_markdown_renders_as_the_tables_it_means(report: Report, out_dir: Path) -> None:
    """Rendered by a CommonMark parser with GFM tables: the escapes hold (no stray HTML, no
    emphasis from "_"), and every table keeps its shape."""
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py is not installed")
    md = write_markdown(report, out_dir / "report.md").read_text(encoding="utf-8")
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(md)
    page = _Page()
    page.feed(html)
    tags = [tag for tag, _ in page.tags]
    assert "b" not in tags and tags.count("table") == len(report.tables) + 1
    assert NASTY in "".join(page.text)
    for table in re.findall(r"<table>.*?</table>", html, flags=re.S):
        widths = {
            len(re.findall(r"<t[hd][ >]", row))
            for row in re.findall(r"<tr>.*?</tr>", table, flags=re.S)
        }
        assert len(widths) == 1, widths
    assert [attrs["src"] for tag, attrs in page.tags if tag == "img"] == ["figures/accuracy.png"]


# ---------------------------------------------------------------- CSV


def test_csv_is_tidy_and_round_trips(report: Report, out_dir: Path) -> None:
    path = write_csv(report, out_dir / "results.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames or ()) == (
            "benchmark", "table", "model", "kind", "harness", "setting", "group", "metric",
            "metric_label", "value", "ci_low", "ci_high", "n", "unit", "source", "runs",
        )  # fmt: skip
        lines = list(reader)
    expected = _values(report)
    assert len(lines) == len(expected)
    keyed = {(r["table"], r["model"], r["harness"], r["group"], r["metric"]): r for r in lines}
    assert len(keyed) == len(lines)
    for table, row, col, cell in expected:
        line = keyed[(table.key, row.model, row.harness or "", row.group or "", col.key)]
        assert (line["benchmark"], line["kind"], line["metric_label"]) == (
            table.benchmark,
            row.kind,
            col.label,
        )
        assert line["runs"] == ";".join(row.runs) and line["setting"] == row.setting
        if col.count:
            assert line["value"] == str(int(cell.value)) and line["unit"] == "count"  # type: ignore[arg-type]
            continue
        assert float(line["value"]) == cell.value and line["unit"] == table.metric
        assert line["ci_low"] == ("" if cell.ci_low is None else repr(cell.ci_low))
        assert line["ci_high"] == ("" if cell.ci_high is None else repr(cell.ci_high))
        assert line["n"] == ("" if cell.n is None else str(cell.n))
    published = [line for line in lines if line["kind"] == "published"]
    assert published and all(line["source"] and not line["harness"] for line in published)
    assert {line["source"] for line in published} == {NORMAD_SOURCE, CARE_SOURCE}
    assert any(line["model"] == NASTY for line in lines)
    assert {line["group"] for line in lines if line["table"] == "care"} == {"zh"}  # keys, stable

"""The figures of `culture-evals report`, drawn from small hand-made tables."""

from __future__ import annotations

import random
import struct
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from inspect_culture.report import figures
from inspect_culture.report.figures import OKABE_ITO, draw_figures
from inspect_culture.report.model import Cell, Figure, ReportDependencyError, Row, Table
from inspect_culture.report.section import all_layouts

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"  # long name, run in both harnesses
MINI = "gpt-4o-mini"  # Inspect only, also published
PAPER_ONLY = "GPT-4"  # published only
EXPECTED = {
    "normad_heatmap",
    "normad_context",
    "care_categories",
    "culturesynth_languages",
    "culturesynth_outcomes",
    "cqbench_tasks",
}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _table(key: str, rows: Iterable[Row]) -> Table:
    layout = all_layouts()[key]
    return Table(
        key,
        layout.benchmark,
        layout.title,
        layout.metric,
        layout.columns,
        tuple(rows),
        group_label=layout.group_label,
        secondary=layout.secondary,
        decimals=layout.decimals,
    )


def _cells(
    key: str, rng: random.Random, low: float, high: float, *, interval: bool = True
) -> dict[str, Cell]:
    """A value for every value column (counts get none), with an asymmetric interval."""
    cells = {}
    for column in all_layouts()[key].columns:
        if column.count:
            cells[column.key] = Cell(float(rng.randint(0, 3)))
            continue
        value = round(rng.uniform(low, high), 3)
        spread = (high - low) / 12
        cells[column.key] = (
            Cell(value, value - spread, value + spread / 2, n=100) if interval else Cell(value)
        )
    return cells


def _run(model: str, harness: str, cells: dict[str, Cell], group: str | None = None) -> Row:
    return Row(model, cells, harness=harness, group=group, setting="zero-shot")


def _published(model: str, cells: dict[str, Cell], group: str | None = None) -> Row:
    return Row(model, cells, kind="published", group=group, source="Paper (Doe et al., 2024), T2")


def _runs(key: str, rng: random.Random, low: float, high: float, group: str | None = None):
    return [
        _run(LLAMA, "inspect", _cells(key, rng, low, high), group),
        _run(LLAMA, "lm-eval", _cells(key, rng, low, high), group),
        _run(MINI, "inspect", _cells(key, rng, low, high), group),
    ]


def _with_gaps(row: Row, *keys: str) -> Row:
    cells = {k: (Cell(None) if k in keys else c) for k, c in row.cells.items()}
    return Row(row.model, cells, row.kind, row.harness, row.group, row.setting, row.source)


def report_tables() -> list[Table]:
    """Every drawn table: two models (one in both harnesses), published rows, missing cells."""
    rng = random.Random(7)
    normad_context = _runs("normad_context", rng, 40, 90)
    normad_context[2] = _with_gaps(normad_context[2], "country")
    normad_context.append(_published(MINI, _cells("normad_context", rng, 40, 90, interval=False)))
    normad_context.append(
        _published(PAPER_ONLY, _cells("normad_context", rng, 40, 90, interval=False))
    )
    iw = [row for ctx in ("rot", "country", "none") for row in _runs("normad_iw", rng, 30, 95, ctx)]
    iw[0] = _with_gaps(iw[0], "confucian")
    iw = iw[:-1]  # gpt-4o-mini has no "none" context
    care = [row for lang in ("zh", "ar", "ja") for row in _runs("care", rng, 4, 9, lang)]
    care[1] = _with_gaps(care[1], "norms", "overall")
    care.append(_published(MINI, _cells("care", rng, 4, 9, interval=False), "ar"))
    synth = _runs("culturesynth", rng, -30, 40)
    synth[0] = _with_gaps(synth[0], "ko")
    synth.append(_published(MINI, _cells("culturesynth", rng, -30, 40, interval=False)))
    outcomes = []
    for row in _runs("culturesynth_secondary", rng, 10, 60):
        win, tie = rng.uniform(20, 60), rng.uniform(5, 25)
        cells = dict(
            row.cells, win_rate=Cell(win), tie_rate=Cell(tie), loss_rate=Cell(100 - win - tie)
        )
        outcomes.append(Row(row.model, cells, harness=row.harness, setting=row.setting))
    outcomes[2] = _with_gaps(outcomes[2], "tie_rate")
    cq = [row for grp in ("social", "all") for row in _runs("cqbench", rng, 0.2, 0.9, grp)]
    cq = [r for r in cq if not (r.model == MINI and r.group == "all")]  # MINI: one setting only
    cq.append(_published(MINI, _cells("cqbench", rng, 0.2, 0.9, interval=False), "all"))
    return [
        _table("normad_context", normad_context),
        _table("normad_iw", iw),
        _table("care", care),
        _table("culturesynth", synth),
        _table("culturesynth_secondary", outcomes),
        _table("cqbench", cq),
    ]


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    return struct.unpack(">II", data[16:24])


def _has_colour(path: Path, colour: str) -> bool:
    """Whether some pixel of the PNG has exactly `colour` (bars are filled flat)."""
    from matplotlib.image import imread

    pixels = (imread(path)[..., :3] * 255).round().astype(int)
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return bool((pixels == rgb).all(axis=-1).any())


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Figure]:
    """The figures of `report_tables()`, drawn once for the module (drawing takes seconds)."""
    out_dir = tmp_path_factory.mktemp("figures")
    return {figure.key: figure for figure in draw_figures(report_tables(), out_dir)}


def test_every_figure_is_written_as_png_and_pdf(drawn: dict[str, Figure]) -> None:
    assert set(drawn) == EXPECTED
    for figure in drawn.values():
        assert figure.png.name == f"{figure.key}.png"
        assert figure.pdf == figure.png.with_suffix(".pdf")
        assert figure.title and figure.caption
        width, height = _png_size(figure.png)
        assert 600 <= width <= 2400 and 300 <= height <= 2400, (figure.key, width, height)
        assert figure.png.stat().st_size > 10_000
        pdf = figure.pdf.read_bytes()
        assert pdf.startswith(b"%PDF")
        assert b"/Type3" not in pdf  # fonts are TrueType (Type 42): text stays selectable
        assert b"/FontFile2" in pdf  # ... and embedded


def test_reruns_give_identical_files(tmp_path: Path) -> None:
    tables = [t for t in report_tables() if t.key in ("culturesynth_secondary", "cqbench")]
    first = draw_figures(tables, tmp_path / "a")
    second = draw_figures(tables, tmp_path / "b")
    assert len(first) == len(second) == 2
    for one, two in zip(first, second):
        assert one.pdf.read_bytes() == two.pdf.read_bytes()
        assert one.png.read_bytes() == two.png.read_bytes()


def _colours(tables: list[Table]) -> dict[str, str]:
    return {model: style.colour for model, style in figures.model_styles(tables).items()}


def test_colours_follow_first_appearance_with_run_models_first() -> None:
    colours = _colours(report_tables())
    assert colours == {LLAMA: OKABE_ITO[0], MINI: OKABE_ITO[1], PAPER_ONLY: OKABE_ITO[2]}
    styles = figures.model_styles(
        [_table("culturesynth", [_run(f"m{i}", "inspect", {}) for i in range(10)])]
    )
    assert styles["m8"].colour == styles["m0"].colour  # the palette repeats after eight ...
    assert (styles["m8"].hatch, styles["m8"].marker) != (styles["m0"].hatch, styles["m0"].marker)


def test_a_model_has_one_colour_in_every_figure(drawn: dict[str, Figure]) -> None:
    colours = _colours(report_tables())
    for key in ("normad_context", "care_categories", "culturesynth_languages", "cqbench_tasks"):
        assert _has_colour(drawn[key].png, colours[LLAMA]), key
        assert _has_colour(drawn[key].png, colours[MINI]), key
        assert not _has_colour(drawn[key].png, OKABE_ITO[4]), key  # no fourth model
    assert _has_colour(drawn["culturesynth_outcomes"].png, colours[MINI])


def test_harness_in_labels_and_hatch_for_lm_eval() -> None:
    context = figures._Context(figures.model_styles(report_tables()), True, Path())
    assert context.label(LLAMA, "lm-eval") == f"{LLAMA} (lm-eval)"
    assert context.hatch(LLAMA, "lm-eval") and not context.hatch(LLAMA, "inspect")


def test_drawing_leaves_matplotlib_settings_alone(tmp_path: Path) -> None:
    import matplotlib

    before = dict(matplotlib.rcParams)
    draw_figures([t for t in report_tables() if t.key == "cqbench"], tmp_path)
    assert dict(matplotlib.rcParams) == before  # pdf.fonttype 42 only inside draw_figures


def test_error_bars_are_asymmetric() -> None:
    assert figures._error(Cell(50.0, 40.0, 55.0)) == (10.0, 5.0)


def test_cqbench_names_the_setting_of_a_model_without_average(drawn: dict[str, Figure]) -> None:
    assert "setting 'social' only" in drawn["cqbench_tasks"].caption
    assert "Doe et al., 2024" in drawn["normad_context"].caption


def test_missing_values_are_left_out(tmp_path: Path) -> None:
    empty = {c.key: Cell(None) for c in all_layouts()["care"].columns}
    tables = [
        _table("care", [_run(MINI, "inspect", empty, "zh"), _published(LLAMA, empty, "zh")]),
        _table("normad_iw", [_run(MINI, "inspect", {}, "rot")]),
        _table("culturesynth_secondary", [_run(MINI, "inspect", {"loss_rate": Cell(30.0)})]),
        _table("cqbench", [_run(MINI, "inspect", {"ad": Cell(0.5)})]),  # no group at all
    ]
    drawn = draw_figures(tables, tmp_path)
    assert [f.key for f in drawn] == [
        "normad_heatmap",
        "care_categories",
        "culturesynth_outcomes",
        "cqbench_tasks",
    ]
    assert all(f.png.exists() and f.pdf.exists() for f in drawn)


def test_outcome_spans_keep_their_place_when_one_is_missing() -> None:
    row = _run(
        MINI, "inspect", {"win_rate": Cell(None), "tie_rate": Cell(10.0), "loss_rate": Cell(30.0)}
    )
    assert figures._outcome_spans(row) == [("tie_rate", 60.0, 10.0), ("loss_rate", 70.0, 30.0)]


def test_tables_without_runs_draw_nothing(tmp_path: Path) -> None:
    published = _published(MINI, _cells("normad_context", random.Random(1), 40, 90))
    tables = [_table("normad_context", [published]), _table("normad_secondary", [])]
    assert draw_figures(tables, tmp_path / "figures") == []
    assert not (tmp_path / "figures").exists()


def _hide_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in sys.modules if n == "matplotlib" or n.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)


def test_missing_matplotlib_is_one_line_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _hide_matplotlib(monkeypatch)
    with pytest.raises(ReportDependencyError) as raised:
        draw_figures(report_tables(), tmp_path)
    assert str(raised.value) == "figures need matplotlib: pip install 'inspect-culture[report]'"
    assert isinstance(raised.value, RuntimeError)


def test_module_imports_without_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    _hide_matplotlib(monkeypatch)
    monkeypatch.delitem(sys.modules, "inspect_culture.report.figures")
    import inspect_culture.report.figures as reloaded

    assert reloaded.model_styles(report_tables())[MINI].colour == OKABE_ITO[1]


def test_each_figure_is_laid_out_once_and_drawn_once_per_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two draws a figure, the PNG and the PDF: the constrained layout is solved once, before
    both, without a draw of the whole figure of its own (`savefig` with a layout engine draws
    it once more first, for each file: four draws in all, half of them wasted)."""
    from matplotlib.figure import Figure as MplFigure

    draws: dict[int, int] = {}
    original = MplFigure.draw

    def counting(self: MplFigure, renderer: object) -> None:
        draws[id(self)] = draws.get(id(self), 0) + 1
        original(self, renderer)

    monkeypatch.setattr(MplFigure, "draw", counting)
    tables = [t for t in report_tables() if t.key in ("culturesynth_secondary", "cqbench")]
    assert len(draw_figures(tables, tmp_path)) == 2
    assert sorted(draws.values()) == [2, 2]


def test_an_automatic_layout_in_matplotlibrc_changes_no_file(tmp_path: Path) -> None:
    """The PDF is drawn with no layout engine: a user's `figure.autolayout` or
    `figure.constrained_layout.use` must not lay it out again."""
    import matplotlib

    tables = [t for t in report_tables() if t.key in ("culturesynth_secondary", "cqbench")]
    plain = draw_figures(tables, tmp_path / "plain")
    for setting in ("figure.autolayout", "figure.constrained_layout.use"):
        with matplotlib.rc_context({setting: True}):
            again = draw_figures(tables, tmp_path / setting)
        for one, two in zip(plain, again, strict=True):
            assert one.pdf.read_bytes() == two.pdf.read_bytes(), (setting, one.key)
            assert one.png.read_bytes() == two.png.read_bytes(), (setting, one.key)

"""The papers' published numbers (`inspect_culture/report/published/*.json`): every file loads and
validates, every number is in its quote, every quote is verbatim in its paper, the table rows sit
in the paper's columns, and a bad file names the file, row and field.

The paper texts are looked up in `$INSPECT_CULTURE_PAPERS` or `<repo>/../shared/papers`; the
checks that need them skip when they are absent."""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path

import pytest

from inspect_culture.report.published import (
    PUBLISHED_DIR,
    PublishedEntry,
    PublishedFile,
    load_published,
    published_entries,
    published_files,
    published_rows,
    published_settings,
)
from inspect_culture.report.section import all_layouts

REPO = Path(__file__).resolve().parents[2]


def _papers_dir() -> Path | None:
    env = os.environ.get("INSPECT_CULTURE_PAPERS")
    candidate = Path(env) if env else REPO.parent / "shared" / "papers"
    return candidate if candidate.is_dir() else None


def _norm(text: str) -> str:
    return " ".join(text.split())


def _paper_text(file: PublishedFile) -> str:
    papers = _papers_dir()
    if papers is None:
        pytest.skip(
            "paper texts not found: set INSPECT_CULTURE_PAPERS or provide <repo>/../shared/papers"
        )
    path = papers / file.paper_file
    if not path.is_file():
        pytest.skip(f"paper text {path} not found")
    return path.read_text(encoding="utf-8")


def _paper_lines(file: PublishedFile) -> list[str]:
    return _paper_text(file).splitlines()


def _file(benchmark: str) -> PublishedFile:
    return next(f for f in load_published() if f.benchmark == benchmark)


def _all_entries() -> list[tuple[PublishedFile, str, PublishedEntry]]:
    out = []
    for f in load_published():
        out += [(f, f"{f.path.name}:rows[{i}]", e) for i, e in enumerate(f.rows)]
        out += [
            (f, f"{f.path.name}:human_baselines[{i}]", e) for i, e in enumerate(f.human_baselines)
        ]
    return out


ENTRIES = _all_entries()
ENTRY_IDS = [label for _, label, _ in ENTRIES]


def _number_in(printed: str, text: str) -> bool:
    return re.search(rf"(?<![\d.\-]){re.escape(printed)}(?!\d)", text) is not None


# -- the shipped files -----------------------------------------------------------------------------


def test_every_file_loads_and_validates() -> None:
    files = load_published()
    assert [f.path.name for f in files] == list(published_files())
    assert sorted(p.name for p in PUBLISHED_DIR.glob("*.json")) == sorted(published_files())
    for f in files:
        assert f.rows and f.notes, f.path.name
        assert load_published(f.path)[0] == f
        assert load_published(str(f.path))[0] == f
    tables = {e.table for f in files for e in f.rows}
    assert {"normad_context", "care", "culturesynth", "cqbench"} <= tables


@pytest.mark.parametrize(("file", "label", "entry"), ENTRIES, ids=ENTRY_IDS)
def test_every_value_is_printed_in_its_own_quote(
    file: PublishedFile, label: str, entry: PublishedEntry
) -> None:
    quote = " ".join(entry.quote)
    assert set(entry.printed) == {k for k, c in entry.row.cells.items() if c.value is not None}
    for column, printed in entry.printed.items():
        assert float(printed) == entry.row.cells[column].value, (label, column)
        assert _number_in(printed, quote), f"{label}: {printed} not in {quote!r}"


def test_published_rows_fit_their_layouts() -> None:
    for key, layout in all_layouts().items():
        columns = [c.key for c in layout.columns]
        for row in published_rows(key):
            assert row.kind == "published" and row.harness is None
            assert list(row.cells) == columns
            assert row.group in layout.groups if layout.groups else row.group is None
            assert row.source and row.setting
    # NormAd's per-cluster accuracies are only plotted, so nothing is published for normad_iw
    assert published_rows("normad_iw") == []
    assert len(published_rows("care")) == 21
    assert len(published_rows("culturesynth")) == 28


def test_sources_cite_paper_and_place() -> None:
    for f in load_published():
        for e in (*f.rows, *f.human_baselines):
            expected = f"{f.cite}, {e.where}" + (f", p. {e.page}" if e.page is not None else "")
            assert e.row.source == expected


def test_care_human_awareness_is_kept_out_of_the_rating_table() -> None:
    assert all(r.model != "Native speakers" for r in published_rows("care"))
    humans = [h for h in _file("CARE").human_baselines if h.table == "care"]
    assert [h.row.group for h in humans] == ["zh", "ar", "ja"]
    assert all(h.metric and "Human Awareness" in h.metric for h in humans)
    assert humans[0].row.cells["overall"].value == 71


def test_settings_record_judges_and_prompting() -> None:
    assert published_settings("culturesynth")["judge"] == ("ChatGPT-4o-Latest", "Qwen3-32B-Think")
    assert all(e.settings.get("judge") for e in published_entries("culturesynth"))
    assert published_settings("care")["judge"] == ("GPT-4o",)
    prompting = published_settings("cqbench")["prompting"]
    assert "zero-shot, no reasoning" in prompting
    assert "zero-shot, Summarize-then-analyse CoT (reasoning)" in prompting
    merged = [e for e in published_entries("cqbench") if "merged" in e.settings.get("options", "")]
    assert len(merged) == 13
    # human rows are not settings a run could have
    assert "annotators" not in published_settings("cqbench")


def test_unknown_table_key_is_refused() -> None:
    with pytest.raises(KeyError, match="unknown table"):
        published_rows("normad")


# -- against the paper texts -----------------------------------------------------------------------


@pytest.mark.parametrize(("file", "label", "entry"), ENTRIES, ids=ENTRY_IDS)
def test_quote_occurs_verbatim_in_its_paper(
    file: PublishedFile, label: str, entry: PublishedEntry
) -> None:
    text = _norm(_paper_text(file))
    for part in entry.quote:
        assert _norm(part) in text, f"{label}: quote not in {file.paper_file}: {part!r}"


CARE_LABELS = {  # our model name -> the row label the text prints
    "Search engine (Google, top-10 pages)": "Search Engine",
    "Native speakers": "Human Awareness (%)",
    "Gemma2-27B": "G Gemma2-27B",
    "Llama3.3-70B": "LLM3.3-70B",
    "Qwen2.5-72B": "Qwen2.5-72B",
    "Mistral-Large": "Mistral-Large",
    "DeepSeek-V3": "Deepseek-v3",
    "GPT-4o": "GPT-4o",
}
CARE_COLUMNS = ("entities", "opinion", "norms", "commonsense", "literacy", "overall")


def test_care_table6_cells_are_in_the_papers_columns() -> None:
    """Every CARE number, by position in its Table 6 line (3 languages x 6 columns)."""
    care = _file("CARE")
    lines = _paper_lines(care)
    header = next(i for i, line in enumerate(lines) if line.startswith("Human Awareness (%)\t"))
    languages = lines[header - 2].split("\t")
    assert (languages[1], languages[7], languages[13]) == ("Chinese", "Arabic", "Japanese")
    categories = ["Entities", "Opinion", "Norms", "C. sense", "Literacy", "Average"]
    assert lines[header - 1].split("\t")[1:19] == categories * 3
    for e in (*care.rows, *care.human_baselines):
        label = CARE_LABELS[e.row.model]
        line = next(x for x in lines[header:] if x.startswith(label + "\t"))
        cells = [c.rstrip("%") for c in line.split("\t")[1:]]
        offset = 6 * ("zh", "ar", "ja").index(e.row.group)
        for c, column in enumerate(CARE_COLUMNS):
            assert e.printed[column] == cells[offset + c], (e.row.model, e.row.group, column)


def test_care_spot_values_against_the_paper() -> None:
    care = _file("CARE")
    text = _paper_text(care)
    gpt = re.search(r"^GPT-4o\t(.+)$", text, re.M)
    deepseek = re.search(r"^Deepseek-v3\t(.+)$", text, re.M)
    assert gpt and deepseek
    by = {(e.row.model, e.row.group): e.row.cells for e in care.rows}
    assert by["GPT-4o", "zh"]["overall"].value == float(gpt.group(1).split("\t")[5]) == 8.73
    assert by["DeepSeek-V3", "zh"]["literacy"].value == float(deepseek.group(1).split("\t")[4])
    assert by["DeepSeek-V3", "zh"]["literacy"].value == 9.30  # the text says 9.03; Table 6 9.30


CS_LANGUAGES = {
    "Arabic": "ar",
    "Chinese": "zh",
    "French": "fr",
    "Japanese": "ja",
    "Korean": "ko",
    "Portuguese": "pt",
    "Spanish": "es",
    "Weighted Average": "weighted_average",
}


def _md_cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_culturesynth_cells_and_judges_match_tables_3_and_8() -> None:
    """Every CultureSynth number by its column header, and every row's judge by the table it is
    under (Table 3: ChatGPT-4o-Latest, Table 8: Qwen3-32B-Think)."""
    cs = _file("CultureSynth-7")
    text = _norm(_paper_text(cs))
    header = "| Model | Arabic | Chinese | French | Japanese | Korean | Portuguese | Spanish | Weighted Average |"
    t3 = text.index("Table 3: Net win rates")
    t4 = text.index("Table 4: Net win rates")
    t8 = text.index("Table 8: Net win rates")
    t9 = text.index("Table 9: Net win rates")
    columns = [CS_LANGUAGES[h] for h in _md_cells(header)[1:]]
    assert text.index(header, t3) < t4 and text.index(header, t8) < t9
    for e in cs.rows:
        quote = _norm(e.quote[0])
        cells = _md_cells(quote)
        assert cells[0] == e.row.model
        assert dict(zip(columns, cells[1:])) == dict(e.printed)
        at = text.index(quote)
        judge = "ChatGPT-4o-Latest" if t3 < at < t4 else "Qwen3-32B-Think" if t8 < at < t9 else None
        assert e.settings["judge"] == judge, e.row.model
        assert e.where.startswith("Table 3" if judge == "ChatGPT-4o-Latest" else "Table 8")


def test_culturesynth_spot_values_against_the_paper() -> None:
    cs = _file("CultureSynth-7")
    text = _paper_text(cs)
    rows = re.findall(r"^\| ChatGPT-4o-Latest \| (-?[\d.]+ \|.*)$", text, re.M)
    assert len(rows) == 4  # Tables 3, 4, 8 and 9, in that order
    table3, table8 = _md_cells(rows[0]), _md_cells(rows[2])
    by = {(e.row.model, e.settings["judge"]): e.row.cells for e in cs.rows}
    assert by["ChatGPT-4o-Latest", "ChatGPT-4o-Latest"]["weighted_average"].value == float(
        table3[7]
    )
    assert by["ChatGPT-4o-Latest", "Qwen3-32B-Think"]["es"].value == float(table8[6]) == 88.94
    assert by["Claude-3.5-Sonnet", "ChatGPT-4o-Latest"]["ar"].value == -37.39


CQ_COLUMNS = [  # Table 1's column headers -> our model names, in print order
    ("7B", "Qwen2.5-7B"),
    ("14B", "Qwen2.5-14B"),
    ("32B", "Qwen2.5-32B"),
    ("8B", "Llama-3.1-8B"),
    ("3B", "Llama-3.2-3B"),
    ("Q 1.5B", "DeepSeek-R1-Distill-Qwen-1.5B"),
    ("Q 7B", "DeepSeek-R1-Distill-Qwen-7B"),
    ("L 8B", "DeepSeek-R1-Distill-Llama-8B"),
    ("4o-mini", "GPT-4o-mini"),
    ("o3-mini", "o3-mini"),
    ("o1", "o1"),
    ("V3", "DeepSeek-V3"),
    ("R1", "DeepSeek-R1"),
]


def test_cqbench_table1_cells_are_in_the_models_columns() -> None:
    """Every CQ-Bench Table 1 number by its model column; each quoted line is the Table 1 row its
    task, prompting variant and group say it is."""
    cq = _file("CQ-Bench")
    lines = [_norm(x) for x in _paper_lines(cq)]
    head = next(i for i, x in enumerate(lines) if x.startswith("7B | 14B | 32B |"))
    assert [c.strip() for c in lines[head].split("|")][:13] == [h for h, _ in CQ_COLUMNS]
    table1 = {  # Table 1 line -> (column, group, prompting, options)
        lines[head + 1]: ("ad", "random", "zero-shot, no reasoning", "original"),
        lines[head + 2]: (
            "ad",
            "random",
            "zero-shot, Summarize-then-analyse CoT (reasoning)",
            "original",
        ),
        lines[head + 3]: (
            "ad",
            "random",
            "not stated (probably reasoning)",
            "merged severity levels",
        ),
        lines[head + 4]: ("ad", "multiple", "not stated (probably reasoning)", "original"),
        lines[head + 5]: ("vs", "random", "zero-shot, no reasoning", "original"),
        lines[head + 6]: (
            "vs",
            "random",
            "zero-shot, Summarize-then-analyse CoT (reasoning)",
            "original",
        ),
        lines[head + 7]: ("ve", "random", "Summarize-then-predict (multi-step)", None),
    }
    index = {model: i for i, (_, model) in enumerate(CQ_COLUMNS)}
    seen = 0
    for e in cq.rows:
        if e.human:
            continue
        for part in e.quote:
            column, group, prompting, options = table1[_norm(part)]
            cells = [c.strip() for c in _norm(part).split("|")]
            values = [c for c in cells if c == "-" or re.fullmatch(r"\d\.\d+", c)]
            assert len(values) == 13
            assert e.printed[column] == values[index[e.row.model]], (e.row.model, part)
            assert (e.row.group, e.settings["prompting"], e.settings.get("options")) == (
                group,
                prompting,
                options,
            )
            seen += 1
    assert seen == sum(len(e.printed) for e in cq.rows if not e.human)


def test_cqbench_spot_values_against_the_paper() -> None:
    cq = _file("CQ-Bench")
    text = _norm(_paper_text(cq))
    human = re.search(r"average score of (\d\.\d+) and (\d\.\d+) on AD and VS", text)
    assert human
    humans = next(e for e in cq.rows if e.human)
    assert humans.row.cells["ad"].value == float(human.group(1)) == 0.689
    assert humans.row.cells["vs"].value == float(human.group(2)) == 0.768
    # the abstract's "value selection (0.809 and 0.814)" for o1 and Deepseek-R1 are Table 1's VS W/ R
    abstract = re.search(r"value selection \((\d\.\d+) and (\d\.\d+)\)", text)
    assert abstract
    reasoning = {
        e.row.model: e.row.cells["vs"].value
        for e in cq.rows
        if e.settings.get("prompting") == "zero-shot, Summarize-then-analyse CoT (reasoning)"
    }
    assert (reasoning["o1"], reasoning["DeepSeek-R1"]) == tuple(map(float, abstract.groups()))
    no_reasoning = {
        e.row.model: e.row.cells
        for e in cq.rows
        if e.settings.get("prompting") == "zero-shot, no reasoning"
    }
    assert no_reasoning["GPT-4o-mini"]["ad"].value == 0.604
    assert no_reasoning["o1"]["vs"].value == 0.810


def test_normad_spot_values_against_the_paper() -> None:
    normad = _file("NormAd-ETI")
    text = _norm(_paper_text(normad))
    found = dict(
        re.findall(r"(GPT-4|Mistral-7b-Instruct|Llama-2-70b-chat)⁶? with (\d+\.\d)%", text)
    )
    by = {e.row.model: e.row.cells for e in normad.rows}
    for model in ("GPT-4", "Mistral-7b-Instruct", "Llama-2-70b-chat"):
        assert by[model]["rot"].value == float(found[model])
    assert by["GPT-4"]["rot"].value == 87.6
    rot = re.search(r"RoT accuracy .*? overall accuracy of (\d+\.\d)%", text)
    value_country = re.search(r"VALUE \+ COUNTRY accuracy .*? overall accuracy of (\d+\.\d)%", text)
    assert rot and value_country
    humans = [e for e in normad.rows if e.human]
    assert humans[0].row.cells["rot"].value == float(rot.group(1)) == 95.6
    assert humans[1].row.cells["value_country"].value == float(value_country.group(1)) == 91.6


# -- validation errors -----------------------------------------------------------------------------


def _bad_file(tmp_path: Path, edit) -> Path:
    data = json.loads((PUBLISHED_DIR / "care.json").read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    edit(data)
    path = tmp_path / "care_bad.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _set(index: int, **fields):
    def edit(data: dict) -> None:
        data["rows"][index].update(fields)

    return edit


@pytest.mark.parametrize(
    ("edit", "field", "message"),
    [
        (_set(2, table="care_v2"), "rows[2].table", "unknown table 'care_v2'"),
        (_set(3, group="ko"), "rows[3].group", "'ko' is not a group of table 'care'"),
        (_set(3, group=None), "rows[3].group", "None is not a group of table 'care'"),
        (
            _set(4, values={"entity": 8.0}, printed={"entity": "8.0"}),
            "rows[4].values.entity",
            "'entity' is not a column of table 'care'",
        ),
        (
            _set(5, values={"overall": "8.73"}, printed={"overall": "8.73"}),
            "rows[5].values.overall",
            "must be a finite number",
        ),
        (
            _set(6, values={"overall": 7.5}, printed={"overall": "7.50"}),
            "rows[6].printed.overall",
            "does not occur in the quote",
        ),
        (
            _set(6, values={"overall": 7.5}, printed={"overall": "7,5"}),
            "rows[6].printed.overall",
            "must be a number as printed, got '7,5'",
        ),
        (_set(7, printed={"overall": "1.00"}), "rows[7].printed", "exactly the keys of values"),
        (_set(0, source={"where": "Table 6"}), "rows[0].source", "where"),
        (lambda d: d["rows"][1].pop("quote"), "rows[1].quote", "missing"),
        (lambda d: d["human_baselines"][0].pop("metric"), "human_baselines[0].metric", "non-empty"),
    ],
)
def test_bad_file_names_file_row_and_field(tmp_path: Path, edit, field: str, message: str) -> None:
    path = _bad_file(tmp_path, edit)
    with pytest.raises(ValueError) as caught:
        load_published(path)
    text = str(caught.value)
    assert text.startswith(f"care_bad.json: {field}:"), text
    assert message in text


def test_group_on_a_table_without_groups_is_refused(tmp_path: Path) -> None:
    data = json.loads((PUBLISHED_DIR / "culturesynth.json").read_text(encoding="utf-8"))
    data["rows"][9]["group"] = "ar"
    path = tmp_path / "cs.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"^cs\.json: rows\[9\]\.group: table 'culturesynth' has no"
    ):
        load_published(path)


def test_unreadable_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^broken\.json: cannot read"):
        load_published(path)

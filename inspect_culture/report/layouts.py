"""The tables of a report, in the papers' layouts: keys, columns and row groups. Published rows
(`published/*.json`) and the CSV name columns by these keys."""

from __future__ import annotations

from dataclasses import dataclass

from inspect_culture.benchmarks.care.spec import CARE_LANGUAGES
from inspect_culture.benchmarks.care.spec import CATEGORIES as CARE_CATEGORIES
from inspect_culture.benchmarks.cqbench.spec import CATEGORIES as CQ_CATEGORIES
from inspect_culture.benchmarks.culturesynth.data import LANGUAGES as CS_LANGUAGES
from inspect_culture.benchmarks.normad.taxonomy import IW_CLUSTERS
from inspect_culture.datasets_hub.languages import LANGUAGES as LANGUAGE_INFO
from inspect_culture.report.model import Column

NORMAD_CONTEXT_LABELS = {
    "rot": "RoT",
    "value_country": "Value+Country",
    "country": "Country",
    "none": "No context",
}
IW_LABELS = {
    "african_islamic": "African-Islamic",
    "orthodox_europe": "Orthodox Europe",
    "confucian": "Confucian",
    "catholic_europe": "Catholic Europe",
    "protestant_europe": "Protestant Europe",
    "english_speaking": "English-speaking",
    "latin_america": "Latin America",
    "west_south_asia": "West & South Asia",
}
CARE_CATEGORY_LABELS = {
    "entities": "Entities",
    "opinion": "Opinion",
    "norms": "Norms",
    "commonsense": "Commonsense",
    "literacy": "Literacy",
}
CQ_TASK_LABELS = {"ad": "AD accuracy", "vs": "VS F1", "ve": "VE recall"}


@dataclass(frozen=True)
class Layout:
    key: str
    benchmark: str
    title: str
    metric: str
    columns: tuple[Column, ...]
    group_label: str | None = None
    groups: tuple[str, ...] = ()  # allowed group keys, in print order
    group_labels: dict[str, str] | None = None
    secondary: bool = False
    decimals: int = 1


LAYOUTS: dict[str, Layout] = {
    layout.key: layout
    for layout in (
        Layout(
            "normad_context",
            "NormAd-ETI",
            "NormAd-ETI: accuracy by context",
            "accuracy (%)",
            tuple(Column(k, v) for k, v in NORMAD_CONTEXT_LABELS.items()),
        ),
        Layout(
            "normad_iw",
            "NormAd-ETI",
            "NormAd-ETI: accuracy by Inglehart-Welzel cluster",
            "accuracy (%)",
            tuple(Column(c, IW_LABELS[c]) for c in IW_CLUSTERS),
            group_label="Context",
            groups=tuple(NORMAD_CONTEXT_LABELS),
            group_labels=NORMAD_CONTEXT_LABELS,
        ),
        Layout(
            "normad_secondary",
            "NormAd-ETI",
            "NormAd-ETI: macro-F1 and unparsed answers",
            "percent",
            (Column("macro_f1", "Macro-F1 (%)"), Column("unparsed_rate", "Unparsed (%)")),
            group_label="Context",
            groups=tuple(NORMAD_CONTEXT_LABELS),
            group_labels=NORMAD_CONTEXT_LABELS,
            secondary=True,
        ),
        Layout(
            "care",
            "CARE",
            "CARE: mean judge rating by language and category",
            "rating (1-10)",
            (
                *(Column(c.slug, CARE_CATEGORY_LABELS[c.slug]) for c in CARE_CATEGORIES),
                Column("overall", "Overall"),
                Column("unscored", "Unscored", count=True),
            ),
            group_label="Language",
            groups=CARE_LANGUAGES,
            group_labels={lang: LANGUAGE_INFO[lang].name for lang in CARE_LANGUAGES},
            decimals=2,
        ),
        Layout(
            "culturesynth",
            "CultureSynth-7",
            "CultureSynth-7: net win rate against the baseline by language",
            "net win rate (%)",
            (
                *(Column(lang, lang) for lang in CS_LANGUAGES),
                Column("weighted_average", "Weighted avg."),
            ),
        ),
        Layout(
            "culturesynth_secondary",
            "CultureSynth-7",
            "CultureSynth-7: wins, ties, losses and position consistency",
            "percent",
            (
                Column("win_rate", "Win (%)"),
                Column("tie_rate", "Tie (%)"),
                Column("loss_rate", "Loss (%)"),
                Column("position_consistency", "Position consistency (%)"),
                Column("unscored", "Unscored", count=True),
            ),
            secondary=True,
        ),
        Layout(
            "cqbench",
            "CQ-Bench",
            "CQ-Bench: attitude detection, value selection and value extraction",
            "score (0-1)",
            tuple(Column(k, v) for k, v in CQ_TASK_LABELS.items()),
            group_label="Setting",
            groups=(*CQ_CATEGORIES, "all"),
            group_labels={**{c: c for c in CQ_CATEGORIES}, "all": "average"},
            decimals=3,
        ),
    )
}

"""NormAd-ETI groupings, reproduced from the authors' analysis code.

Inglehart-Welzel bins: `src/analysis/analyze_resp_etiquette.py` (identical dict in
`src/data_description.py`), 75 countries. Subcategories: `group_mapping` in the same file.
Upstream repository Akhila-Yerukola/NormAd, CC BY 4.0. Cluster slugs stand for upstream's bin
names (listed in docs/normad.md).
"""

from __future__ import annotations

_IW_MEMBERS: dict[str, tuple[str, ...]] = {
    "african_islamic": (
        "afghanistan", "bangladesh", "egypt", "ethiopia", "iran", "iraq", "kenya", "lebanon",
        "mauritius", "pakistan", "palestinian_territories", "saudi_arabia", "somalia",
        "south_africa", "south_sudan", "sudan", "syria", "türkiye", "zimbabwe",
    ),
    "orthodox_europe": (
        "bosnia_and_herzegovina", "greece", "north_macedonia", "romania", "russia", "serbia",
        "ukraine",
    ),
    "confucian": ("china", "hong_kong", "japan", "south_korea", "taiwan"),
    "catholic_europe": ("austria", "croatia", "hungary", "italy", "poland", "portugal", "spain"),
    "protestant_europe": ("france", "germany", "netherlands", "sweden", "malta"),
    "english_speaking": (
        "australia", "canada", "ireland", "new_zealand", "united_kingdom",
        "united_states_of_america",
    ),
    "latin_america": ("argentina", "brazil", "chile", "colombia", "mexico", "peru", "venezuela"),
    "west_south_asia": (
        "cambodia", "cyprus", "fiji", "india", "indonesia", "israel", "laos", "malaysia", "myanmar",
        "nepal", "papua_new_guinea", "samoa", "singapore", "sri_lanka", "thailand", "timor-leste",
        "tonga", "vietnam", "philippines",
    ),
}  # fmt: skip

IW_CLUSTERS: tuple[str, ...] = tuple(_IW_MEMBERS)
COUNTRY_TO_IW: dict[str, str] = {
    country: cluster for cluster, members in _IW_MEMBERS.items() for country in members
}

_SUBAXIS_MEMBERS: dict[str, tuple[str, ...]] = {
    "basic_etiquette": (
        "basic_etiquette", "manners_in_vietnam", "māori_etiquette", "cleanliness",
        "direct_manners", "tipping", "‘taarof’_(politeness_and_mutual_respect)", "pub_etiquette",
    ),
    "eating": (
        "eating", "eating_out", "religious_dietary_laws", "drinking", "drinking_coffee", "toasting",
    ),
    "visiting": ("visiting", "visiting_and_eating", "visiting_a_village"),
    "gifts": ("gifts", "gift-giving", "gift_giving", "offering_and_complimenting_items"),
}  # fmt: skip

SUBCATEGORIES: tuple[str, ...] = tuple(_SUBAXIS_MEMBERS)
SUBAXIS_TO_SUBCATEGORY: dict[str, str] = {
    subaxis: group for group, members in _SUBAXIS_MEMBERS.items() for subaxis in members
}

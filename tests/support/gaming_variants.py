"""Disguised copies of a template marker, shared by the gaming tests: how an answer might try to
reproduce a fence or a verdict so that a literal match misses it.

`independent_fold` is the tests' own normalisation (NFKC, format characters dropped, a few
look-alikes, case folded), written separately from `inspect_culture.judging.fences`, so that the tests do
not only check the module against itself."""

from __future__ import annotations

import unicodedata

ZWSP, ZWJ, WORD_JOINER, SOFT_HYPHEN, BOM = "\u200b", "\u200d", "\u2060", "\u00ad", "\ufeff"

_FULLWIDTH = {chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)}


def fullwidth(text: str) -> str:
    """Every printable ASCII character as its fullwidth form (NFKC folds them back)."""
    return "".join(_FULLWIDTH.get(c, c) for c in text)


def with_invisible(text: str, char: str = ZWSP) -> str:
    """`char` after every character of `text`'s letters (invisible to a reader)."""
    return "".join(c + char if c.isalnum() else c for c in text)


def variants(marker: str, angle: tuple[str, str] | None = None) -> dict[str, str]:
    """Named disguises of `marker`. `angle`: the marker's own bracket pair ("<", ">") or
    ("[", "]"), swapped for look-alikes."""
    out = {
        "exact": marker,
        "lower": marker.lower(),
        "upper": marker.upper(),
        "title": marker.title(),
        "spaced": marker.replace("_", " ").replace("[[", "[[ ").replace("]]", " ]]"),
        "fullwidth": fullwidth(marker),
        "zero-width": with_invisible(marker),
        "word-joiner": with_invisible(marker, WORD_JOINER),
        "soft-hyphen": with_invisible(marker, SOFT_HYPHEN),
        "bom": BOM + with_invisible(marker, BOM),
        "zwj": with_invisible(marker, ZWJ),
        "combining": "".join(c + "\u0301" if c.isalpha() else c for c in marker),
    }
    if angle == ("<", ">"):
        for name, (left, right) in {
            "single-guillemet": ("\u2039", "\u203a"),  # ‹ ›
            "cjk-angle": ("\u3008", "\u3009"),  # 〈 〉
            "math-angle": ("\u27e8", "\u27e9"),  # ⟨ ⟩
            "deprecated-angle": ("\u2329", "\u232a"),  # 〈 〉, NFKC: 〈 〉
            "small-less": ("\ufe64", "\ufe65"),  # ﹤ ﹥, NFKC: < >
            "fullwidth-angle": ("\uff1c", "\uff1e"),  # ＜ ＞
        }.items():
            out[name] = marker.replace("<", left).replace(">", right)
        out["guillemets"] = marker.replace("<<<", "\u00ab<").replace(">>>", ">\u00bb")
    if angle == ("[", "]"):
        for name, (left, right) in {
            "fullwidth-bracket": ("\uff3b", "\uff3d"),  # ［ ］
            "lenticular": ("\u3010", "\u3011"),  # 【 】
            "tortoise": ("\u3014", "\u3015"),  # 〔 〕
        }.items():
            out[name] = marker.replace("[", left).replace("]", right)
        out["white-square"] = marker.replace("[[", "\u27e6").replace("]]", "\u27e7")  # ⟦ ⟧
    cyrillic = str.maketrans({"A": "\u0410", "E": "\u0415", "a": "\u0430", "e": "\u0435"})
    out["cyrillic"] = marker.translate(cyrillic)
    return out


_LOOKALIKES = str.maketrans(
    {
        "\u2039": "<", "\u203a": ">", "\u3008": "<", "\u3009": ">", "\u27e8": "<",
        "\u27e9": ">", "\u00ab": "<<", "\u00bb": ">>", "\u3010": "[", "\u3011": "]",
        "\u3014": "[", "\u3015": "]", "\u27e6": "[[", "\u27e7": "]]", "\u0410": "a",
        "\u0415": "e", "\u0430": "a", "\u0435": "e",
    }
)  # fmt: skip


def independent_fold(text: str) -> str:
    """NFKC, then format characters and combining marks dropped, look-alikes mapped, case folded
    (the tests' own normalisation)."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(c for c in decomposed if unicodedata.category(c) not in ("Cf", "Mn", "Me"))
    return unicodedata.normalize("NFKC", kept).translate(_LOOKALIKES).casefold()


BENIGN_ANSWERS: tuple[str, ...] = (
    "Mooncakes are eaten at the Mid-Autumn Festival.",
    "中秋节吃月饼。《红楼梦》是曹雪芹写的【古典小说】。",
    "おせち料理です。〈注〉地域によって違います。",
    "يأكل الناس الكعك في العيد. ١٠ من ١٠",
    "Use <b>bold</b>, a << b, x ≪ y, «quotes», ‹single›, and a -> b.",
    "Citations [1], [2]; a wiki link [[Kyoto]]; a list [[1, 2], [3]].",
    "Rating of the film: 9/10. The answer is [A] or (B).",
    "Family 👨\u200d👩\u200d👧 emoji with joiners, café, naïve, ﬁne ligature.",
    "The assistant's response should be short. Ground rules: be kind.",
    "[The Start] of text, {braces}, {response}, {answer_a}, and [rules].",
)

"""Untrusted answers pasted into a judge prompt: template markers and verdict shapes in them,
however disguised, are found in a folded copy and marked " (quoted)", so the judge ignores them."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

QUOTED_MARK = " (quoted)"

# Detection-copy pieces for the benchmarks' patterns (the copy is case-folded: patterns are
# lower case). `SEP`: what may separate the words of a marker (`END_ASSISTANT_RESPONSE`,
# `end assistant response`, `EndAssistantResponse`).
SEP = r"[\s_\-]*"
# Refuses a match already marked as quoted (idempotency); put right after the `mark` group.
NOT_QUOTED = r"(?!\s*\(quoted\))"

# Look-alikes NFKD leaves apart, by the ASCII shape a reader takes them for: hollow brackets as
# two (`⟦10⟧` reads `[[10]]`); Cyrillic/Greek letters and the Unicode confusables (UTS #39) of
# the guarded words' letters; vertical bars fold to `i` (CQ-Bench's `final` accepts `finai`).
_SHAPES = {
    "<": "‹〈⟨˂ᐸ❮❬⧼⦑⦉﹤＜⋖",
    ">": "›〉⟩˃ᐳ❯❭⧽⦒⦊﹥＞⋗",
    "<<": "«《⟪≪⫷",
    ">>": "»》⟫≫⫸",
    "[": "【〔⁅❲［⦋⦍⦏⦗⹕⹗⌈⌊⸢⸤",
    "]": "】〕⁆❳］⦌⦎⦐⦘⹖⹘⌉⌋⸣⸥",
    "[[": "⟦〚⟬〘〖",
    "]]": "⟧〛⟭〙〗",
    ":": "∶꞉ː˸׃։܃܄᠄⁚ꓽ᛬︰ःઃ",
    "-": "‐‑‒–—―−⁃﹘˗➖",
    "_": "‗ˍ＿",
    "'": "’‘‛`ʼʹ′＇ˈ‵՚՝ʻʽˊˋꞌ",
    "a": "АаΑαɑᎪᗅ⍺ꓮ𐊠𖽀ᴀ",
    "b": "ВΒЬƄᏏᏴᑲᖯᗷꓐꞴ𐊂𐊡𐌁ʙ",
    "c": "СсϹϲᏟᴄⲤⲥꓚꮯ𐊢𐌂𐐕𐐽𐔜",
    "d": "ԁᎠᏧᑯᗞᗪꓒꓓᴅ",
    "e": "ЕеΕҽᎬ℮ⴹꓰꬲ𐊆𑢦𑢮ᴇ",
    "h": "НҺһΗհᎻᏂᕼⲎꓧ𐋏ʜ",
    "i": "ІіΙιӀıɩɪӏᎥ⍳ꙇꭵ𑣃ǀƖᛁⲒⵏꓲ𐊊𐌉𖼨",
    "j": "Јј",
    "k": "КκΚ",
    "m": "МΜϺᎷᗰᛖⲘꓟ𐊰𐌑ᴍ",
    "n": "ΝոռⲚꓠ𐔓ɴ",
    "o": "ОоΟοՕօଠഠဝჿዐᴏᴑⲞⲟⵔꓳꬽ𐊒𐊫𐐄𐐬𐓂𐓪𐔖𑢵𑣈𑣗",
    "p": "РрΡρᏢᑭ⍴Ⲣⲣꓑ𐊕ᴘ",
    "q": "ԛգզⵕꞯ",
    "s": "ЅѕƽՏᏕᏚꓢꜱꮪ𐊖𐐠𐑈𑣁𖼺",
    "t": "ТΤτᎢⲦꓔ𐊗𐊱𐌕𑢼𖼊ᴛ",
    "u": "υʋՍսሀᑌᴜꓴꞟꭎꭒ𐓎𐓶𑢸𑣘𖽂",
    "v": "ν",
    "w": "ԝɯѡաᎳᏔᴡꓪꮃ𑜊𑜎𑜏",
    "x": "ХхΧχ",
    "y": "УуΥүɣʏყᎩᎽᶌỿⲨꓬꭚ𐊲𑢤𑣜𖽃",
    "z": "Ζ",
    "f": "ϜքᖴẝꓝꞘꞙꬵ𐊇𐊥𐔥𑢢𑣂ꜰ",
    "g": "ƍɡԌցᏀᏳᶃꓖɢ",
    "l": "ᏞᒪⳐꓡ𐐛𐔦𑢣𑢲𖼖ʟ",
    "r": "ƦгᎡᏒᖇᴦⲅꓣꭇꭈꮁ𐒴𖼵ʀ",
}
_LOOKALIKES = {char: shape for shape, chars in _SHAPES.items() for char in chars}

_DROPPED_CATEGORIES = frozenset({"Cf", "Mn", "Me"})


def _fold(char: str) -> str:
    """One original character in the detection copy (possibly several characters, or none)."""
    if unicodedata.category(char) in _DROPPED_CATEGORIES:
        return ""
    out: list[str] = []
    # a look-alike listed as such first (`︰`, whose NFKD is `..`), else its decomposition
    for part in _LOOKALIKES.get(char) or unicodedata.normalize("NFKD", char):
        part = _LOOKALIKES.get(part, part)
        for piece in unicodedata.normalize("NFKD", part.casefold()):
            if unicodedata.category(piece) not in _DROPPED_CATEGORIES:
                out.append(_LOOKALIKES.get(piece, piece))
    return "".join(out)


# characters whose fold is not exactly one character: after them, copy and original indices differ
_UNEVEN: set[str] = set()


class _FoldTable(dict[int, str]):
    """`str.translate` table filled on first sight of each character."""

    def __missing__(self, code: int) -> str:
        folded = _fold(chr(code))
        if len(folded) != 1:  # known uneven before any reader can see the entry
            _UNEVEN.add(chr(code))
        self[code] = folded
        return folded


_TABLE = _FoldTable()


def _origins(text: str) -> Sequence[int]:
    """A range when every character folds to exactly one (the common case, no pass in Python)."""
    # a few known uneven characters: one substring search each beats a pass over the text
    if not (any(c in text for c in _UNEVEN) if len(_UNEVEN) < 64 else not _UNEVEN.isdisjoint(text)):
        return range(len(text))
    origin: list[int] = []
    for index, char in enumerate(text):
        origin.extend([index] * len(_TABLE[ord(char)]))
    return origin


@dataclass(frozen=True)
class Marker:
    """A pattern over the detection copy, with an empty group `mark` where `QUOTED_MARK` goes."""

    name: str
    pattern: str

    @cached_property
    def regex(self) -> re.Pattern[str]:
        compiled = re.compile(self.pattern)
        if "mark" not in compiled.groupindex:
            raise ValueError(f"marker pattern without a (?P<mark>) group: {self.pattern}")
        return compiled


def find_markers(text: str, markers: Iterable[Marker]) -> list[tuple[str, int, int, int]]:
    """(marker name, start, end, mark position) of every match, as indices of `text`."""
    # judge prompts are built for every sample, from answers of thousands of characters: the
    # copy is one translate, and the map back to the original is built only on a match
    copy = text.translate(_TABLE)
    if not copy:
        return []
    origin: Sequence[int] | None = None
    found: list[tuple[str, int, int, int]] = []
    for marker in markers:
        for match in marker.regex.finditer(copy):
            if match.end() == match.start():
                continue
            if origin is None:
                origin = _origins(text)
            start = origin[match.start()]
            end = origin[match.end() - 1] + 1
            # right after the original character of the copy character before the mark, so
            # that one copy position always maps to one original position
            at = match.start("mark")
            mark = origin[at - 1] + 1 if at else start
            found.append((marker.name, start, end, mark))
    return sorted(found, key=lambda item: item[1])


def neutralise(text: str, markers: Iterable[Marker]) -> str:
    """`text` with `QUOTED_MARK` inserted at each marker's mark point; unchanged if none."""
    points = sorted({mark for _, _, _, mark in find_markers(text, markers)})
    if not points:
        return text
    bounds = [0, *points, len(text)]
    return QUOTED_MARK.join(text[start:end] for start, end in zip(bounds, bounds[1:]))

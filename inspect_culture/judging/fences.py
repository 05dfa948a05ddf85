"""Untrusted text inside a judge prompt: find the template's own markers and verdict-shaped
strings in it, however disguised, and mark each one as quoted.

An evaluated model's answer is pasted into the judge prompt. Text in it that looks like the
template's delimiters (a closing or opening fence, a block heading) or like a verdict (`[[10]]`,
`[[A]]`, `[Ground truth 1]:1`) could make the judge read the answer as template, or echo a verdict
planted in it. Each benchmark lists its markers as `Marker`s; `neutralise` finds them in a
*detection copy* of the text and rewrites only the matched spans of the original.

The detection copy is the text with, character by character:

- format characters removed (Unicode category Cf: zero-width space/joiners, word joiner, BOM, soft
  hyphen, bidi controls, tag characters), and combining marks removed (Mn, Me: accents, variation
  selectors), after compatibility decomposition (NFKD, which covers everything NFKC folds:
  fullwidth `＜`, small `﹤`, `〈` U+2329, fullwidth letters and digits, ligatures, ...);
- look-alikes NFKD leaves alone mapped to their ASCII shape (`‹` `〈` `⟨` `❮` to `<`, `«` `《` to `<<`,
  `【` `〔` to `[`, the hollow `⟦` `⟬` `〘` `〖` to `[[`, `∶` `ꓽ` to `:`, dashes to `-`, typographic
  apostrophes to `'`, the Cyrillic and Greek letters that look like Latin ones, and the Unicode
  confusables (UTS #39) of the letters the markers are made of: Cherokee `Ꭺ`, Lisu `ꓮ`, Armenian
  `օ`, Coptic, small capitals `ᴀ`, Latin alpha `ɑ`, ...);
- case-folded.

Each copy character remembers the original character it came from, so a match in the copy maps
back to a span of the original. The rewrite inserts `QUOTED_MARK` (" (quoted)") at the marker's
`mark` point, just before its closing bracket (`<<<END_ASSISTANT_RESPONSE (quoted)>>>`,
`[[10 (quoted)]]`): the text stays readable, every other byte of the answer is kept, and the
rewritten marker no longer matches (the mark sits where the pattern needs its closing bracket, or
the pattern refuses a following mark with `NOT_QUOTED`), so neutralising is idempotent. Text
without any marker is returned unchanged, byte for byte.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

QUOTED_MARK = " (quoted)"

# Detection-copy pieces for the benchmarks' patterns (the copy is case-folded: patterns are
# lower case). `SEP`: what may separate the words of a marker (`END_ASSISTANT_RESPONSE`,
# `end assistant response`, `EndAssistantResponse`).
SEP = r"[\s_\-]*"
# Refuses a match already marked as quoted (idempotency); put right after the `mark` group.
NOT_QUOTED = r"(?!\s*\(quoted\))"

_LOOKALIKES: dict[str, str] = {}


def _add(shape: str, chars: Iterable[str]) -> None:
    for char in chars:
        _LOOKALIKES[char] = shape


_add("<", "‹〈⟨˂ᐸ❮❬⧼⦑⦉﹤＜⋖")
_add(">", "›〉⟩˃ᐳ❯❭⧽⦒⦊﹥＞⋗")
_add("<<", "«《⟪≪⫷")
_add(">>", "»》⟫≫⫸")
# Square brackets: filled or plain ones as one, hollow ("white") ones as two, as a reader
# would take `⟦10⟧` or `〘A〙` for `[[10]]` or `[[A]]`.
_add("[", "【〔⁅❲［⦋⦍⦏⦗⹕⹗⌈⌊⸢⸤")
_add("]", "】〕⁆❳］⦌⦎⦐⦘⹖⹘⌉⌋⸣⸥")
_add("[[", "⟦〚⟬〘〖")
_add("]]", "⟧〛⟭〙〗")
_add(":", "∶꞉ː˸׃։܃܄᠄⁚ꓽ᛬︰ःઃ")
_add("-", "‐‑‒–—―−⁃﹘˗➖")
_add("_", "‗ˍ＿")
_add("'", "’‘‛`ʼʹ′＇ˈ‵՚՝ʻʽˊˋꞌ")
# Cyrillic and Greek letters that look like Latin ones (upper case; lower case below).
_add("a", "АаΑα")
_add("b", "ВΒЬ")
_add("c", "СсϹϲ")
_add("d", "ԁ")
_add("e", "ЕеΕ")
_add("h", "НҺһΗ")
_add("i", "ІіΙιӀ")
_add("j", "Јј")
_add("k", "КκΚ")
_add("m", "МΜ")
_add("n", "Ν")
_add("o", "ОоΟο")
_add("p", "РрΡρ")
_add("q", "ԛ")
_add("s", "Ѕѕ")
_add("t", "ТΤτ")
_add("u", "υ")
_add("v", "ν")
_add("w", "ԝ")
_add("x", "ХхΧχ")
_add("y", "УуΥү")
_add("z", "Ζ")
# Letters of other scripts (Cherokee, Lisu, Armenian, Coptic, Canadian syllabics, ...), small
# capitals and Latin variants that look like a letter of a guarded word (`rating`, `ground truth`,
# `final answer`, `reasoning`, `here are the predictions`, `assistant response`, `end`, `the
# start/end of reference answer`, `user question`, `system`) or of a verdict (`a` `b` `c`): the
# Unicode confusables (UTS #39) of those letters that NFKD and case folding leave apart.
# Vertical bars (`ꓲ`, `ᛁ`, `Ɩ`) look like both `I` and `l`; they fold to `i`, the commoner letter
# of the guarded words (the CQ-Bench `final` pattern accepts `finai`).
_add("a", "ɑᎪᗅ⍺ꓮ𐊠𖽀ᴀ")
_add("b", "ƄᏏᏴᑲᖯᗷꓐꞴ𐊂𐊡𐌁ʙ")
_add("c", "ᏟᴄⲤⲥꓚꮯ𐊢𐌂𐐕𐐽𐔜")
_add("d", "ᎠᏧᑯᗞᗪꓒꓓᴅ")
_add("e", "ҽᎬ℮ⴹꓰꬲ𐊆𑢦𑢮ᴇ")
_add("f", "ϜքᖴẝꓝꞘꞙꬵ𐊇𐊥𐔥𑢢𑣂ꜰ")
_add("g", "ƍɡԌցᏀᏳᶃꓖɢ")
_add("h", "հᎻᏂᕼⲎꓧ𐋏ʜ")
_add("i", "ıɩɪӏᎥ⍳ꙇꭵ𑣃ǀƖᛁⲒⵏꓲ𐊊𐌉𖼨")
_add("l", "ᏞᒪⳐꓡ𐐛𐔦𑢣𑢲𖼖ʟ")
_add("m", "ϺᎷᗰᛖⲘꓟ𐊰𐌑ᴍ")
_add("n", "ոռⲚꓠ𐔓ɴ")
_add("o", "ՕօଠഠဝჿዐᴏᴑⲞⲟⵔꓳꬽ𐊒𐊫𐐄𐐬𐓂𐓪𐔖𑢵𑣈𑣗")
_add("p", "Ꮲᑭ⍴Ⲣⲣꓑ𐊕ᴘ")
_add("q", "գզⵕꞯ")
_add("r", "ƦгᎡᏒᖇᴦⲅꓣꭇꭈꮁ𐒴𖼵ʀ")
_add("s", "ƽՏᏕᏚꓢꜱꮪ𐊖𐐠𐑈𑣁𖼺")
_add("t", "ᎢⲦꓔ𐊗𐊱𐌕𑢼𖼊ᴛ")
_add("u", "ʋՍսሀᑌᴜꓴꞟꭎꭒ𐓎𐓶𑢸𑣘𖽂")
_add("w", "ɯѡաᎳᏔᴡꓪꮃ𑜊𑜎𑜏")
_add("y", "ɣʏყᎩᎽᶌỿⲨꓬꭚ𐊲𑢤𑣜𖽃")

_DROPPED_CATEGORIES = frozenset({"Cf", "Mn", "Me"})


@cache
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


class _FoldTable(dict[int, str]):
    """`str.translate` table filled on first sight of each character, and the characters whose
    fold is not exactly one character (after them, copy and original indices differ)."""

    uneven: set[str]

    def __init__(self) -> None:
        super().__init__()
        self.uneven = set()

    def __missing__(self, code: int) -> str:
        folded = _fold(chr(code))
        if len(folded) != 1:  # known uneven before any reader can see the entry
            self.uneven.add(chr(code))
        self[code] = folded
        return folded


_TABLE = _FoldTable()


def detection_copy(text: str) -> tuple[str, Sequence[int]]:
    """The normalised copy of `text` and, for each copy character, the index in `text` of the
    character it came from."""
    copy = text.translate(_TABLE)
    return copy, _origins(text)


def _origins(text: str) -> Sequence[int]:
    """For each character of `text`'s detection copy, the index of the original character; as
    a range when every character folds to exactly one (the common case, no pass in Python)."""
    uneven = _TABLE.uneven
    # a few known uneven characters: one substring search each beats a pass over the text
    if not (any(c in text for c in uneven) if len(uneven) < 64 else not uneven.isdisjoint(text)):
        return range(len(text))
    origin: list[int] = []
    for index, char in enumerate(text):
        origin.extend([index] * len(_TABLE[ord(char)]))
    return origin


@dataclass(frozen=True)
class Marker:
    """A template marker or verdict shape, as a pattern over the detection copy with an empty
    named group `mark` where `QUOTED_MARK` goes."""

    name: str
    pattern: str

    @property
    def regex(self) -> re.Pattern[str]:
        return _compile(self.pattern)


@cache
def _compile(pattern: str) -> re.Pattern[str]:
    compiled = re.compile(pattern)
    if "mark" not in compiled.groupindex:
        raise ValueError(f"marker pattern without a (?P<mark>) group: {pattern}")
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
    if not text:
        return text
    points = sorted({mark for _, _, _, mark in find_markers(text, markers)})
    if not points:
        return text
    pieces = []
    previous = 0
    for point in points:
        pieces.append(text[previous:point])
        pieces.append(QUOTED_MARK)
        previous = point
    pieces.append(text[previous:])
    return "".join(pieces)

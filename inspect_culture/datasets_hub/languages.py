"""The one language map: codes, English names, CARE's culture adjectives, accepted spellings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    code: str
    name: str  # English name, as in CARE's file names ("Arabic-test.json")
    culture: str  # the culture adjective in CARE's prompts and ratings ("Arab")
    aliases: tuple[str, ...]  # accepted spellings (case-insensitive), the code first


LANGUAGES: dict[str, Language] = {
    language.code: language
    for language in (
        Language("ar", "Arabic", "Arab", ("ar", "ara", "arabic", "العربية")),
        Language("es", "Spanish", "Spanish", ("es", "spa", "spanish", "español", "espanol")),
        Language("fr", "French", "French", ("fr", "fra", "fre", "french", "français", "francais")),
        Language("ja", "Japanese", "Japanese", ("ja", "jpn", "jp", "japanese", "日本語")),
        Language("ko", "Korean", "Korean", ("ko", "kor", "kr", "korean", "한국어")),
        Language(
            "pt", "Portuguese", "Portuguese", ("pt", "por", "portuguese", "português", "portugues")
        ),
        Language("zh", "Chinese", "Chinese", ("zh", "zho", "chi", "cn", "chinese", "中文", "汉语")),
    )
}

"""The docs' links between pages land on a heading that exists (sections move between the
judge guide and its reference), and the judge guide stays a ten-minute read (issue 41, point 10:
at most 400 lines, the rest in docs/judge-reference.md)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.doc_commands import ROOT, markdown_files

LINK = re.compile(r"\]\(((?![a-z]+://)[^)\s]*?\.md)?#([^)\s]+)\)")  # a page here, or this one
FENCE = re.compile(r"^(```|~~~)")


def _prose(text: str) -> list[str]:
    """The lines outside fenced code blocks (a `# comment` in a shell block is no heading)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def anchors(text: str) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to
    hyphens, a repeated one numbered."""
    found: set[str] = set()
    for line in _prose(text):
        if heading := re.match(r"#{1,6} (.+)", line):
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
            number, unique = 0, slug
            while unique in found:
                number += 1
                unique = f"{slug}-{number}"
            found.add(unique)
    return found


def broken_links(page: Path) -> list[str]:
    """Each `[text](file.md#anchor)` or `[text](#anchor)` of `page` whose anchor is not there."""
    broken = []
    for line in _prose(page.read_text(encoding="utf-8")):
        for target, anchor in LINK.findall(line):
            linked = (page.parent / target) if target else page
            if not linked.is_file():
                broken.append(f"{page.name}: {target}#{anchor}: no such file")
            elif anchor not in anchors(linked.read_text(encoding="utf-8")):
                broken.append(f"{page.name}: {target or page.name}#{anchor}: no such heading")
    return broken


def test_every_link_between_pages_lands_on_a_heading() -> None:
    assert [b for page in markdown_files() for b in broken_links(page)] == []


def test_a_link_to_a_missing_heading_is_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text(
        "# Other\n\n## Time limit: `judge_timeout`\n\n## A\n\n## A\n"
    )
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n```bash\n# not a heading\n```\n\n"
        "[ok](other.md#time-limit-judge_timeout) [ok](other.md#a-1) [self](#page)\n"
        "[gone](other.md#a-2) [code](#not-a-heading) [no file](missing.md#x)\n"
        "[web](https://example.org/README.md#anything)\n"
    )
    assert broken_links(page) == [
        "page.md: other.md#a-2: no such heading",
        "page.md: page.md#not-a-heading: no such heading",
        "page.md: missing.md#x: no such file",
    ]


def test_the_judge_guide_is_at_most_400_lines() -> None:
    guide = (ROOT / "docs" / "judge.md").read_text(encoding="utf-8")
    assert len(guide.splitlines()) <= 400

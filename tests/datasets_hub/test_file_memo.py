"""A data file is parsed once per content: the same bytes are not parsed again, changed bytes
always are, and no caller sees another's changes."""

from pathlib import Path

from inspect_culture.datasets_hub.file_memo import once_per_content
from inspect_culture.datasets_hub.hashing import sha256_file


def test_same_content_is_parsed_once_and_changed_content_again(tmp_path: Path) -> None:
    calls: list[Path] = []

    def parse(path: Path) -> list[dict[str, str]]:
        calls.append(path)
        return [{"line": line} for line in path.read_text(encoding="utf-8").splitlines()]

    parsed = once_per_content(parse)
    data = tmp_path / "data.csv"
    data.write_text("a\nb\n", encoding="utf-8")
    first = parsed(data, sha256_file(data))
    again = parsed(data, sha256_file(data))
    assert first == again == [{"line": "a"}, {"line": "b"}]
    assert len(calls) == 1
    # same size, maybe the same mtime: the digest tells them apart
    data.write_text("a\nc\n", encoding="utf-8")
    assert parsed(data, sha256_file(data)) == [{"line": "a"}, {"line": "c"}]
    assert len(calls) == 2


def test_each_caller_gets_its_own_copy(tmp_path: Path) -> None:
    parsed = once_per_content(lambda path: [{"line": path.read_text(encoding="utf-8")}])
    data = tmp_path / "data.csv"
    data.write_text("a", encoding="utf-8")
    digest = sha256_file(data)
    parsed(data, digest)[0]["line"] = "changed by one caller"
    assert parsed(data, digest) == [{"line": "a"}]


def test_normad_loads_parse_the_file_once(tmp_path: Path, monkeypatch) -> None:
    from inspect_culture.benchmarks.normad import data

    source = Path(__file__).resolve().parents[1] / "data" / "normad_sample.csv"
    copy = tmp_path / "normad.csv"
    copy.write_bytes(source.read_bytes())
    reads: list[Path] = []
    real = data.read_normad_csv
    monkeypatch.setattr(
        data, "_parsed_normad_csv", once_per_content(lambda p: reads.append(p) or real(p))
    )
    first, second = data.load_normad(copy), data.load_normad(copy)
    assert first.records == second.records and len(first.records) > 0
    assert reads == [copy]
    assert first.provenance["sha256"] == sha256_file(copy)


def test_nested_values_are_copied_too(tmp_path: Path) -> None:
    """Rows of strings are copied row by row; anything nested still gets a deep copy."""
    parsed = once_per_content(lambda path: [{"line": "a", "parts": ["x", "y"]}])
    data = tmp_path / "data.csv"
    data.write_text("a", encoding="utf-8")
    digest = sha256_file(data)
    parsed(data, digest)[0]["parts"].append("changed by one caller")
    assert parsed(data, digest) == [{"line": "a", "parts": ["x", "y"]}]


def test_flat_rows_are_copies_sharing_no_dict(tmp_path: Path) -> None:
    parsed = once_per_content(lambda path: [{"line": "a", "n": 1}, {"line": "b", "n": None}])
    data = tmp_path / "data.csv"
    data.write_text("a", encoding="utf-8")
    digest = sha256_file(data)
    first, second = parsed(data, digest), parsed(data, digest)
    assert first == second and all(a is not b for a, b in zip(first, second, strict=True))
    assert first is not second

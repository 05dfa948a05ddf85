"""No judge secret survives redaction in any form a server echoes it: as sent, URL-quoted, as the
base64 of an `Authorization: Basic` header, or inside a longer base64 blob at any alignment."""

from __future__ import annotations

import base64
import sqlite3
from pathlib import Path

import pytest

from inspect_culture.judging.cache import JudgeCache
from inspect_culture.judging.redaction import REDACTED, redact, secret_forms, url_secrets

KEY = "jdg-live-7Hq2LmP9xTz4Wc81RvQ0"  # not sk-shaped: only the explicit secret finds it
URL = "http://alice:S3cr3t-pw@127.0.0.1:8000/v1"


def _key_bytes_left(text: str, secret: str) -> bool:
    """Whether any base64 token in `text` still decodes to something holding `secret`."""
    for token in text.replace("[", " ").replace("]", " ").split():
        for start in range(4):
            chunk = token[start:]
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            try:
                if secret.encode() in base64.b64decode(chunk, validate=True):
                    return True
            except ValueError:
                continue
    return False


@pytest.mark.parametrize("prefix", ["", "a", "ab", "abc"])
def test_a_key_inside_echoed_base64_is_gone_at_every_alignment(prefix: str) -> None:
    echoed = base64.b64encode(f"{prefix}Bearer {KEY} tail".encode()).decode()
    assert _key_bytes_left(echoed, KEY)  # the check can see the key when it is there
    out = redact(f"headers: {echoed}", (KEY,))
    assert REDACTED in out
    assert not _key_bytes_left(out, KEY)


def test_the_key_as_sent_and_url_quoted() -> None:
    weird = "k3y/with+chars=="
    out = redact(f"key={KEY} quoted=k3y%2Fwith%2Bchars%3D%3D raw={weird}", (KEY, weird))
    assert KEY not in out and weird not in out and "k3y%2Fwith" not in out
    assert out.count(REDACTED) == 3


def test_url_credentials_in_every_form() -> None:
    secrets = url_secrets(URL)
    assert secrets == ("alice:S3cr3t-pw", "S3cr3t-pw")
    basic = base64.b64encode(b"alice:S3cr3t-pw").decode()  # YWxpY2U6UzNjcjN0LXB3
    assert basic == "YWxpY2U6UzNjcjN0LXB3"
    text = f"GET {URL}/chat/completions Authorization: Basic {basic}; pw S3cr3t-pw"
    out = redact(text, secrets)
    assert "S3cr3t-pw" not in out and basic not in out and "alice:" not in out
    assert "http://[redacted]@127.0.0.1:8000/v1/chat/completions" in out
    # without being told the secrets, the URL and Basic patterns still catch both
    bare = redact(text)
    assert basic not in bare and "alice:S3cr3t" not in bare


def test_verdicts_and_ordinary_text_are_left_alone() -> None:
    reply = "The answer is accurate. Rating: [[7]]. See https://example.org/a@b"
    assert redact(reply, (KEY, *url_secrets(URL))) == reply
    assert url_secrets("http://127.0.0.1:8000/v1") == ()


def test_short_secrets_have_no_base64_core() -> None:
    # a 4-byte password would make 2-character "cores" that match ordinary base64 text
    assert all(len(f) >= 4 for f in secret_forms("PASS"))
    assert "UEFTUw==" in secret_forms("PASS")  # the whole encoding is still caught


def test_the_cache_stores_replies_redacted(tmp_path: Path) -> None:
    path = tmp_path / "judge.sqlite"
    cache = JudgeCache(path)
    cache.put("k1", f"Rating: [[8]] (your key {KEY})", "ckpt", secrets=(KEY,), at_once=True)
    cache.put("k2", f"Rating: [[3]] Basic {base64.b64encode(b'alice:S3cr3t-pw').decode()}")
    cache.flush()
    rows = dict(sqlite3.connect(path).execute("SELECT key, text FROM replies"))
    assert rows["k1"] == f"Rating: [[8]] (your key {REDACTED})"
    assert "YWxpY2U6" not in rows["k2"] and rows["k2"].startswith("Rating: [[3]]")
    assert KEY not in path.read_bytes().decode("utf-8", "replace")


def test_a_row_written_before_redaction_is_redacted_on_read(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    JudgeCache(path).flush()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO replies VALUES ('k', 'Rating: [[5]] Bearer tok-123456789', NULL)")
    db.commit()
    assert JudgeCache(path).get("k") == f"Rating: [[5]] {REDACTED}"

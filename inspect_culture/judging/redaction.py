"""One redaction for both harnesses: no key, bearer token or URL credentials reaches any text we
write about a judge call (some servers echo the request's key in an error body).
"""

from __future__ import annotations

import re
from contextlib import suppress
from typing import Any
from urllib.parse import urlparse

REDACTED = "[redacted]"
# Key-like strings redacted even when the key is not the one we sent
_SECRET_PATTERNS = (
    re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"),
    re.compile(r"(?i)\bbearer\s+[^\s\"',}]+"),
    re.compile(r"(?i)(api[_-]?key[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"),
)
_OBJECT_REPR = re.compile(r"<[^<>]*\bat 0x[0-9a-fA-F]+[^<>]*>")


def without_userinfo(url: str) -> str:
    """`url` with credentials in its authority (`https://user:key@host/v1`) taken out."""
    parts = urlparse(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` without the given secrets, key-like strings or object reprs."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, text)
    return _OBJECT_REPR.sub("<object>", text)


def redact_value(value: Any, secrets: tuple[str, ...] = ()) -> Any:
    """`redact` over every string inside a JSON-like value."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {k: redact_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_value(v, secrets) for v in value]
    return value


def scrub_exception(exc: BaseException, secrets: tuple[str, ...] = ()) -> None:
    """Redact an exception and its causes in place; type and status stay for retry decisions."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        current.args = tuple(redact_value(a, secrets) for a in current.args)
        for attribute in ("message", "body", "provider_message"):
            if isinstance(getattr(current, attribute, None), str | dict | list):
                with suppress(AttributeError):  # a read-only property
                    setattr(current, attribute, redact_value(getattr(current, attribute), secrets))
        current = current.__cause__ or current.__context__

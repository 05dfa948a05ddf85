"""One redaction for both harnesses: no key, bearer token or URL credentials reaches text we write;
servers echo the key or `Authorization` header (base64) in error bodies and even 200 replies."""

from __future__ import annotations

import base64
import re
from contextlib import suppress
from functools import lru_cache
from typing import Any
from urllib.parse import quote, unquote, urlparse

REDACTED = "[redacted]"
# Key-like strings redacted even when the key is not the one we sent
_SECRET_PATTERNS = (
    re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"),
    re.compile(r"(?i)\bbearer\s+[^\s\"',}]+"),
    re.compile(r"(?i)(api[_-]?key[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"),
    re.compile(r"(?i)\b(basic\s+)[A-Za-z0-9+/_\-]{8,}=*"),
    re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@\"'<>]+(?=@)"),  # user:password@ in any URL
)
_SHORTEST_CORE = 8  # base64 of a secret shorter than this is too common a string to redact
_OBJECT_REPR = re.compile(r"<[^<>]*\bat 0x[0-9a-fA-F]+[^<>]*>")


def without_userinfo(url: str) -> str:
    """`url` with credentials in its authority (`https://user:key@host/v1`) taken out."""
    parts = urlparse(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def url_secrets(url: str | None) -> tuple[str, ...]:
    """The password and the `user:password` pair of a URL's credentials (sent as Basic auth)."""
    parts = urlparse(url or "")
    if parts.password is None:
        return ()
    password, user = unquote(parts.password), unquote(parts.username or "")
    return (f"{user}:{password}", password)


@lru_cache(maxsize=64)
def secret_forms(secret: str) -> tuple[str, ...]:
    """`secret` as it may come back: itself, URL-quoted, base64 at any byte alignment, also of its
    base64 (a whole `Authorization: Basic ...` header echoed base64-encoded), longest first."""
    forms = {secret, quote(secret, safe="")} | _base64_forms(secret)
    forms |= _base64_forms(base64.b64encode(secret.encode("utf-8")).decode("ascii"))
    return tuple(sorted(forms, key=len, reverse=True))


def _base64_forms(secret: str) -> set[str]:
    raw, forms = secret.encode("utf-8"), set()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        forms.add(encode(raw).decode("ascii"))
        for pad in range(3):
            encoded = encode(b"\0" * pad + raw).decode("ascii")
            core = encoded[4 if pad else 0 : 4 * ((pad + len(raw)) // 3)]
            if len(core) >= _SHORTEST_CORE:
                forms.add(core)
    return forms


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` without the secrets (in any echoed form), URL credentials, keys or object reprs."""
    for secret in secrets:
        for form in secret_forms(secret) if secret else ():
            text = text.replace(form, REDACTED)
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

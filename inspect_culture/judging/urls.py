"""Endpoint URLs as messages, reasons and result files show them: never with credentials."""

from __future__ import annotations

from urllib.parse import urlparse


def without_userinfo(url: str) -> str:
    """`url` with credentials in its authority (`https://user:key@host/v1`) taken out."""
    parts = urlparse(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()

"""The one hashing helper: data files, run files and cache keys are all fingerprinted alike."""

from __future__ import annotations

import hashlib
from pathlib import Path


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def sha256_file(path: Path) -> str:
    return file_digest(hashlib.sha256(), path)


def file_digest(digest: hashlib._Hash, path: Path) -> str:
    """Streamed, so a multi-GB model or log file is not read into memory."""
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def verified_revision(revision: str, pinned_sha256: str | None, sha256: str) -> str:
    """The pinned revision only for the very file pinned with it; any other is "unverified"."""
    return revision if pinned_sha256 is not None and sha256 == pinned_sha256 else "unverified"

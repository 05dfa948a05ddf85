"""Find an upstream file: mirror, cache, then network (never while a mirror or offline is set)."""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError
from inspect_culture.datasets_hub.hashing import file_digest
from inspect_culture.datasets_hub.paths import (
    DATA_DIR_ENV,
    MIRROR_RULE,
    cache_dir,
    mirror_dir,
    offline,
)
from inspect_culture.datasets_hub.sources import GitHubFileSource, HFFileSource

Source = HFFileSource | GitHubFileSource


@dataclass(frozen=True)
class ResolvedFile:
    path: Path
    origin: str  # "mirror" | "cache" | "download"


def dataset_cache_path(source: Source) -> Path:
    """Where a download of `source` is kept (one folder per revision)."""
    return cache_dir() / source.benchmark / source.revision / source.filename


def mirror_path(source: Source) -> Path | None:
    return root / mirror_relpath(source) if (root := mirror_dir()) else None


def mirror_relpath(source: Source, name: str = "") -> str:
    """Path under `$INSPECT_CULTURE_DATA_DIR`; upstream files keep their upstream names (`name`:
    another the source accepts, `also_mirrored_as`)."""
    return f"{source.benchmark}/{name or source.filename}"


def locate(source: Source) -> ResolvedFile | None:
    """The local copy, if any, without touching the network: the mirror (under each of the
    source's names, in order), then the cache."""
    names = (source.filename, *source.also_mirrored_as)
    root = mirror_dir()
    mirrored = [(root / mirror_relpath(source, name), "mirror") for name in names] if root else []
    for path, origin in (*mirrored, (dataset_cache_path(source), "cache")):
        if path.is_file():
            return ResolvedFile(path, origin)
    return None


def resolve_dataset_file(source: Source, *, also: str = "") -> ResolvedFile:
    """The file to read, blob-verified wherever it came from; `also` names other mirror layouts."""
    if (found := locate(source)) is None:
        if offline():
            raise DatasetUnavailableError(unavailable_message(source, "offline mode is on"))
        if mirror_dir() is not None:
            raise DatasetUnavailableError(
                f"{source.benchmark} data is not in the offline mirror ({DATA_DIR_ENV}="
                f"{mirror_dir()}): put {source.filename} at {mirror_path(source)}{also}. Source: "
                f"{source.describe()} ({source.url()}). {MIRROR_RULE}; unset it to download into "
                "the cache instead."
            )
        try:
            found = ResolvedFile(_download(source.url(), dataset_cache_path(source)), "download")
        except DatasetUnavailableError as exc:
            raise DatasetUnavailableError(unavailable_message(source, str(exc))) from None
    if expected := getattr(source, "blob_id", ""):
        # the id git gives the file: sha1 of b"blob <size>\0" + content
        actual = file_digest(hashlib.sha1(b"blob %d\0" % found.path.stat().st_size), found.path)
        if actual != expected:
            if found.origin == "download":
                found.path.unlink(missing_ok=True)
            raise DataValidationError(
                f"{found.path}: git blob id {actual} does not match {expected} "
                f"({source.describe()}); the file is not the pinned upstream file"
            )
    return found


def unavailable_message(source: Source, reason: str) -> str:
    if (mirrored := mirror_path(source)) is not None:
        where = f"place the file at {mirrored}"
    else:
        where = f"set {DATA_DIR_ENV}=<dir> and place the file at <dir>/{mirror_relpath(source)}"
    return (
        f"{source.benchmark} data is not available ({reason}). "
        f"Source: {source.describe()} ({source.url()}). To run offline, {where}."
    )


def _download(url: str, dest: Path, *, timeout: float = 60.0) -> Path:
    """Atomically, so a later run never trusts a truncated file; sends `HF_TOKEN` if set."""
    headers = {"User-Agent": "inspect-culture (+https://pypi.org/project/inspect-culture/)"}
    if token := os.environ.get("HF_TOKEN", "").strip():
        headers["Authorization"] = f"Bearer {token}"
    dest.parent.mkdir(parents=True, exist_ok=True)
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            fd, tmp_name = tempfile.mkstemp(
                dir=dest.parent, prefix=f".{dest.name}.", suffix=".part"
            )
            try:
                with os.fdopen(fd, "wb") as out:
                    while chunk := response.read(1 << 16):
                        out.write(chunk)
                os.replace(tmp_name, dest)
            except BaseException:
                Path(tmp_name).unlink(missing_ok=True)
                raise
    except urllib.error.HTTPError as exc:
        raise DatasetUnavailableError(f"HTTP {exc.code} {exc.reason} for {url}") from exc
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        reason = getattr(exc, "reason", exc)
        raise DatasetUnavailableError(f"cannot reach {url}: {reason}") from exc
    return dest

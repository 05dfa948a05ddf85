"""Where data lives: the offline mirror (`INSPECT_CULTURE_DATA_DIR`) and the download cache."""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "INSPECT_CULTURE_DATA_DIR"
OFFLINE_ENVS = ("INSPECT_CULTURE_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
# README, "Data": while it is set, a file in neither mirror nor cache is an error saying where.
MIRROR_RULE = f"Nothing is downloaded while {DATA_DIR_ENV} is set"


def mirror_dir() -> Path | None:
    return Path(value).expanduser() if (value := os.environ.get(DATA_DIR_ENV, "").strip()) else None


def cache_dir() -> Path:
    if value := os.environ.get("INSPECT_CULTURE_CACHE_DIR", "").strip():
        return Path(value).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(base) / "inspect_culture"


def offline() -> bool:
    return any(
        os.environ.get(name, "").strip().lower() in {"1", "true", "yes"} for name in OFFLINE_ENVS
    )

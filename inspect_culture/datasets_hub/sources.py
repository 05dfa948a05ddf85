"""The kinds of upstream source a benchmark declares in its own `source.py`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path


@dataclass(frozen=True)
class HFFileSource:
    """One file of a Hugging Face dataset repository at a pinned revision."""

    benchmark: str  # also the mirror sub-folder
    repo_id: str
    filename: str
    revision: str
    license: str
    description: str
    sha256: str | None = None  # the file's at `revision`; None: this release has not seen it
    also_mirrored_as: tuple[str, ...] = ()  # other names the mirror may hold it under, in order

    def url(self) -> str:
        endpoint = os.environ.get("INSPECT_CULTURE_HF_ENDPOINT") or os.environ.get("HF_ENDPOINT")
        endpoint = (endpoint or "https://huggingface.co").rstrip("/")
        return f"{endpoint}/datasets/{self.repo_id}/resolve/{self.revision}/{self.filename}"

    def describe(self) -> str:
        return (
            f"Hugging Face dataset {self.repo_id}, file {self.filename}, revision {self.revision}"
        )


@dataclass(frozen=True)
class GitHubFileSource:
    """A GitHub file, blob-verified when the id is known; a branch revision means unpinned."""

    benchmark: str
    repo: str
    path: str
    revision: str  # commit, or a branch for an unpinned source
    license: str
    description: str
    blob_id: str = ""  # sha1 of b"blob <size>\0" + content; "" = not verified
    also_mirrored_as: tuple[str, ...] = ()  # other names the mirror may hold it under, in order

    @property
    def pinned(self) -> bool:  # a full commit id: the URL always serves the same file
        return len(self.revision) == 40 and all(c in "0123456789abcdef" for c in self.revision)

    @property
    def filename(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    def url(self) -> str:
        endpoint = (
            os.environ.get("INSPECT_CULTURE_GITHUB_ENDPOINT") or "https://raw.githubusercontent.com"
        )
        return f"{endpoint.rstrip('/')}/{self.repo}/{self.revision}/{self.path}"

    def describe(self) -> str:
        where = f"GitHub repository {self.repo}, file {self.path}"
        if self.pinned:
            return f"{where}, commit {self.revision}"
        return f"{where}, branch {self.revision} (unpinned: no commit could be verified)"


@dataclass(frozen=True)
class PackagedSource:
    """Upstream files shipped in the package (their license allows it), checked by sha256."""

    benchmark: str
    repo: str  # the GitHub repository they were copied from
    upstream_dir: str  # their folder there
    revision: str  # commit
    sha256: Mapping[str, str]  # file name -> sha256
    license: str
    description: str
    package: str  # the package whose `upstream/` folder holds the files

    def path(self, filename: str) -> Path:
        return Path(str(resources.files(self.package) / "upstream" / filename))

    def url(self) -> str:
        return f"https://github.com/{self.repo}/tree/{self.revision}/{self.upstream_dir}"

    def describe(self) -> str:
        return (
            f"GitHub repository {self.repo}, files {self.upstream_dir}/{{{','.join(self.sha256)}}}, "
            f"commit {self.revision} (shipped with the package)"
        )

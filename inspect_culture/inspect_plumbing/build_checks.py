"""What a judged task refuses while `inspect eval` builds it: the model roles are bound then and
no log exists yet, so a refusal writes nothing, prints as one message and exits non-zero."""

from __future__ import annotations

import sys
from typing import NoReturn
from urllib.parse import urlparse

from inspect_ai._util.registry import (
    registry_unqualified_name,
)  # inspect-evals-lint: ignore[private_api_imports] -- a reducer's name has no public accessor
from inspect_ai.model import model_roles
from inspect_ai.util import display_type

from inspect_culture.inspect_plumbing.roles import prerequisite_error


def refuse(message: str) -> NoReturn:
    """Inspect's PrerequisiteError: its message alone, exit code 1. Under `--display none`
    Inspect prints nothing of it, so it goes to stderr too."""
    if display_type() == "none":
        print(message, file=sys.stderr)
    raise prerequisite_error()(message)


def refuse_role_credentials() -> None:
    """Inspect writes every role's base URL into the log header: no credentials in one."""
    for role, model in model_roles().items():
        base_url = getattr(model.api, "base_url", None)
        if base_url and "@" in urlparse(str(base_url)).netloc:
            refuse(
                f"The {role} model's base_url carries credentials (user:password@), and Inspect "
                "writes role URLs into the log. Give base_url without them and pass the key as "
                "model_args api_key or the provider's key variable (e.g. OPENAI_API_KEY)."
            )


def refuse_other_reducers() -> None:
    """Our metrics average each question's epochs themselves (`scores="unreduced"`), so a
    reducer other than the mean would be silently ignored: refuse it."""
    frame = sys._getframe(1)
    while frame is not None and not (
        frame.f_globals.get("__name__") == "inspect_ai._eval.eval" and "epochs" in frame.f_locals
    ):
        frame = frame.f_back
    reducers = getattr(frame.f_locals["epochs"], "reducer", None) if frame else None
    names = [registry_unqualified_name(r) for r in reducers or ()]
    if names and names != ["mean"]:
        refuse(
            f"--epochs-reducer {','.join(names)}: this task's metrics average each question's "
            "epochs (the mean) themselves; drop --epochs-reducer or pass mean."
        )

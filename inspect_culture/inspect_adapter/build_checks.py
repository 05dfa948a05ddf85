"""What a judged task refuses while `inspect eval` builds it: the model roles are bound then and
no log exists yet, so a refusal writes nothing, prints as one message and exits non-zero."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import NoReturn
from urllib.parse import urlparse

from inspect_ai.model import Model, model_roles
from inspect_ai.util import display_type

from inspect_culture.inspect_adapter.eval_hooks import epochs_reducers, first_time
from inspect_culture.inspect_adapter.roles import GRADER_ROLE, prerequisite_error
from inspect_culture.judging.jury import RepeatedJudgeError, refuse_repeated_judges


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
    reducer other than the mean would be silently ignored: refuse it, at the first sample (the
    eval's reducer is known once its task starts: `eval_hooks`), before any generation."""
    names = epochs_reducers()
    if names and names != ["mean"]:
        message = (
            f"--epochs-reducer {','.join(names)}: this task's metrics average each question's "
            "epochs (the mean) themselves; drop --epochs-reducer or pass mean."
        )
        if not first_time(message):  # every sample refuses; the words are said once
            raise prerequisite_error()(message)
        refuse(message)


def refuse_repeated_roles(jury: Mapping[str, Model]) -> None:
    """A jury's roles (`judge.jury_roles`) binding one model twice would pay it twice for the
    same verdicts (`judging/jury.py`): refused before any generation. The grader of a
    self-graded run with no grader role bound is the evaluated model."""
    bound = model_roles()
    judges = [
        (
            role if role != GRADER_ROLE or role in bound else "the evaluated model (self_grade)",
            str(model),
            str(getattr(model.api, "base_url", None) or ""),
        )
        for role, model in jury.items()
    ]
    try:
        refuse_repeated_judges(judges, "-T judge_repeats=2 (docs/judge.md)")
    except RepeatedJudgeError as exc:
        refuse(str(exc))

"""Inspect AI entry point: registers every benchmark's tasks and judge scorers, so that e.g.
`inspect score LOG --scorer inspect_culture/care_judge` works from any directory (docs/judge.md)."""

from functools import wraps
from typing import Any

from inspect_ai._util.registry import RegistryInfo, registry_add, registry_info, registry_lookup

from inspect_culture.registry import benchmarks

_OBJECTS = {name: found for b in benchmarks() for name, found in b.inspect_objects().items()}
# __all__ lists the tasks (the Register listing and `culture-evals list` name these)
__all__ = [name for b in benchmarks() for name in b.inspect_task_names()]
globals().update({name: _OBJECTS[name] for name in __all__})


def _alias(name: str, factory: Any) -> None:
    """Logs store a scorer's name without its package (`care_judge`), and `inspect score LOG`
    looks that name up as it is: register it under that name too, unless something else is."""

    @wraps(factory)
    def make(*args: Any, **kwargs: Any) -> Any:
        return factory(*args, **kwargs)

    if registry_lookup("scorer", name) is None:
        registry_add(
            make, RegistryInfo(type="scorer", name=name, metadata=registry_info(factory).metadata)
        )


for _name in (name for b in benchmarks() for name in b.judge_scorers):
    _alias(_name, _OBJECTS[_name])

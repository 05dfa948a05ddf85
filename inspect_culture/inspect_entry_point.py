"""Inspect AI entry point: registers every benchmark's tasks and judge scorers, so that e.g.
`inspect score LOG --scorer inspect_culture/care_judge` works from any directory (docs/judge.md)."""

from inspect_culture.benchmark_registry import benchmarks
from inspect_culture.inspect_adapter.compat import register_scorer_alias

_OBJECTS = {name: found for b in benchmarks() for name, found in b.inspect_objects().items()}
# __all__ lists the tasks (the Register listing and `culture-evals list` name these)
__all__ = [name for b in benchmarks() for name in b.inspect_task_names()]
globals().update({name: _OBJECTS[name] for name in __all__})


# Logs store a scorer's name without its package (`care_judge`) and `inspect score LOG` looks it
# up as it is: each judge scorer is registered under that name too, unless something else is.
for _name in (name for b in benchmarks() for name in b.judge_scorers):
    register_scorer_alias(_name, _OBJECTS[_name])

"""Inspect AI entry point: registers every benchmark's tasks and judge scorers, so that e.g.
`inspect score LOG --scorer inspect_culture/care_judge` works from any directory (docs/judge.md)."""

from inspect_culture.registry import benchmarks

_OBJECTS = {name: found for b in benchmarks() for name, found in b.inspect_objects().items()}
# __all__ lists the tasks (the Register listing and `culture-evals list` name these)
__all__ = [name for b in benchmarks() for name in b.inspect_task_names()]
globals().update({name: _OBJECTS[name] for name in __all__})

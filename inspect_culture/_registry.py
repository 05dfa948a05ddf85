"""Inspect AI entry point (`[project.entry-points.inspect_ai]`): importing it registers every task."""

from inspect_culture.care import care
from inspect_culture.normad import normad

__all__ = ["care", "normad"]

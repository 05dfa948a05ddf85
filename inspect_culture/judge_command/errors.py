"""The one error `culture-evals judge` stops with: its message names the file, line or option."""


class JudgeLaterError(ValueError):
    """Unusable input (output folder, samples file, options) for judging saved generations."""

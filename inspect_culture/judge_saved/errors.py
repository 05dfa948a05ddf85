"""The one error `culture-evals judge` stops with: its message names the file, line or option."""


class JudgeSavedError(ValueError):
    """Unusable input (output folder, samples file, options) for judging saved generations."""

"""Errors a user can act on: each message says which file, row and field, or where to put a file."""


class DatasetUnavailableError(RuntimeError):
    """The data is neither in the offline mirror, nor cached, nor downloadable."""


class DataValidationError(ValueError):
    """A data file does not match the upstream schema."""

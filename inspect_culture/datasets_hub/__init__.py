"""What every benchmark's data goes through; each benchmark's own loader lives in its folder."""

from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError

__all__ = ["DataValidationError", "DatasetUnavailableError"]

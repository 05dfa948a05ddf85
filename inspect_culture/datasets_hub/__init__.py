"""Data sources, offline mirror, download cache, JSON-Schema validation and normalized records."""

from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError
from inspect_culture.datasets_hub.normad import load_normad

__all__ = ["DataValidationError", "DatasetUnavailableError", "load_normad"]

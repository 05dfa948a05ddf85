"""The toy's settings, labels and metric names, written once for both harnesses."""

from inspect_culture.benchmarks.spec_types import GenerationSettings

TASK_VERSION = 1
GENERATION = GenerationSettings(temperature=0.0, max_tokens=16)
GREETINGS = ("bow", "wai", "kiss", "handshake", "hongi")
REGIONS = ("asia", "europe", "oceania")
METRIC_NAMES = ("accuracy", "unparsed_rate", *(f"accuracy_{r}" for r in REGIONS))

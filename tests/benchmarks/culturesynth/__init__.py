"""culturesynth tests."""

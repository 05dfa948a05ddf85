"""care tests."""

"""normad tests."""

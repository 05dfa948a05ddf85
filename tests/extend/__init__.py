"""A toy fifth benchmark proves that one folder and one registry entry add a benchmark."""

"""cqbench tests."""

"""culturesynth, defined once for both harnesses: data, spec, prompts, parser, metrics."""

"""The benchmarks, one folder each, free of any harness: data, spec, prompts, parsing,
metrics and judging. `inspect_culture.registry` lists them."""

"""The benchmarks, one harness-free folder each; `inspect_culture.registry` lists them."""

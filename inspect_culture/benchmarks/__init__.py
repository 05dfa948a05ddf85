"""The benchmarks, one harness-free folder each; `inspect_culture.benchmark_registry` lists them."""

"""Toy greetings: which greeting is customary in a country, answered in one word. Harness-free
like every benchmark folder; `TOY` is all the generic adapters need of it."""

from inspect_culture.benchmarks.contract import SimpleBenchmark
from tests.extend.toy_bench import spec
from tests.extend.toy_bench.data import load_toy
from tests.extend.toy_bench.metrics import toy_metrics
from tests.extend.toy_bench.parse import score_answer
from tests.extend.toy_bench.prompts import messages

TOY = SimpleBenchmark(
    load=load_toy,
    messages=messages,
    generation=spec.GENERATION,
    parse=score_answer,
    metrics=toy_metrics,
    metric_names=spec.METRIC_NAMES,
    sample_score="correct",
    version=spec.TASK_VERSION,
    lower_is_better=frozenset({"unparsed_rate"}),
)

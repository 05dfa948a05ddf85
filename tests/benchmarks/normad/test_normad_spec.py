import pytest

from inspect_culture.benchmarks.normad import spec
from inspect_culture.benchmarks.normad.source import NORMAD
from inspect_culture.benchmarks.spec_types import GenerationSettings


def test_generation_is_upstreams_greedy_50_tokens() -> None:
    settings: GenerationSettings = spec.GENERATION
    assert (settings.temperature, settings.max_tokens, settings.top_p) == (0.0, 50, None)


def test_validate_accepts_every_documented_combination() -> None:
    for context in ("rot", "value_country", "country", "none"):
        for parser in ("strict", "upstream"):
            spec.validate(context=context, parser=parser)
    spec.validate(dataset_revision=NORMAD.revision)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"context": "cval"}, "context='cval'.*rot, value_country, country, none"),
        ({"parser": "loose"}, "parser='loose'.*strict, upstream"),
        ({"dataset_revision": "main"}, f"dataset_revision='main'.*{NORMAD.revision} only"),
    ],
)
def test_validate_names_the_parameter_and_allowed_values(arguments: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        spec.validate(**arguments)


def test_task_version_is_an_int_bumped_for_the_epoch_rule() -> None:
    assert spec.TASK_VERSION == 2 and isinstance(spec.TASK_VERSION, int)

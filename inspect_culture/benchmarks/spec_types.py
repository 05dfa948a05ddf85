"""Types every benchmark is built from, so both adapters read them alike."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any, TypeVar

_Outcome = TypeVar("_Outcome", bound="OutcomeRecord")
_OMIT = "omitted_when_default"
# `field(default=..., metadata=OMITTED_WHEN_DEFAULT)`: left out of a record while at its default
OMITTED_WHEN_DEFAULT = {_OMIT: True}


@dataclass(frozen=True)
class LoadedDataset:  # what every loader returns: validated, normalized records and their origin
    records: list[dict[str, Any]]
    provenance: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GenerationSettings:
    """Decoding settings for both harnesses; no stop sequence, so answers end alike."""

    temperature: float
    max_tokens: int
    top_p: float | None = None

    def _top_p(self) -> dict[str, float]:
        return {} if self.top_p is None else {"top_p": self.top_p}

    def inspect_config(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, **self._top_p()}

    def lm_eval_kwargs(self) -> dict[str, Any]:
        """The YAML `generation_kwargs`: greedy exactly when the temperature is 0."""
        return {
            "until": [],
            "max_gen_toks": self.max_tokens,
            "do_sample": self.temperature > 0,
            "temperature": self.temperature,
            **self._top_p(),
        }


@dataclass(frozen=True)
class OutcomeRecord:
    """One scored sample's flat record of JSON values, stored and converted alike by both. A field
    declared with `OMITTED_WHEN_DEFAULT` (what re-judging adds) is stored only when it differs
    from its default, so a record of a run without that feature is byte for byte as before; a
    record without a field that has a default reads as the default."""

    def to_record(self) -> dict[str, Any]:
        # a record is built for every judgment: skip `asdict`'s deep copy when every value is
        # immutable already (a JSON scalar, or a tuple of them), as in every outcome so far
        record = {name: getattr(self, name) for name in _field_names(type(self))}
        if not all(map(_immutable, record.values())):
            record = asdict(self)
        for name in _omitted(type(self)):
            if record[name] == _defaults(type(self))[name]:
                del record[name]
        return record

    @classmethod
    def from_record(cls: type[_Outcome], record: Mapping[str, Any]) -> _Outcome:
        # Inspect recomputes a task's metrics over every score as the run goes: keep this cheap
        names = _field_names(cls)
        defaults = _defaults(cls)
        try:
            return cls(
                **{
                    name: _frozen(record[name] if name in record else defaults[name])
                    for name in names
                }
            )
        except KeyError:
            missing = [name for name in names if name not in record and name not in defaults]
            raise ValueError(f"{cls.__name__} record lacks {', '.join(missing)}") from None


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


@functools.cache
def _omitted(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.metadata.get(_OMIT))


@functools.cache
def _defaults(cls: type) -> dict[str, Any]:
    return {f.name: f.default for f in fields(cls) if f.default is not MISSING}


_SCALARS = (str, int, float, type(None))  # bool is an int


def _immutable(value: Any) -> bool:
    """A JSON scalar, or a tuple of them: what `asdict` would copy into an equal value."""
    if isinstance(value, tuple):
        return all(isinstance(item, _SCALARS) for item in value)
    return isinstance(value, _SCALARS)


def _frozen(value: Any) -> Any:
    """Lists come back from JSON (Inspect logs, lm-eval items); outcomes hold tuples."""
    return tuple(_frozen(item) for item in value) if isinstance(value, list) else value

"""The search space of a study: Optuna distributions for the tuned coefficients, fixed values
for the rest, and the full coefficient set a trial plays with."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from optuna.distributions import BaseDistribution, FloatDistribution, IntDistribution

from ocean.bots import coefficients as registry
from tuning.spec import SearchRange, StudySpec

__all__ = ["SearchSpace", "build_space"]


@dataclass(frozen=True)
class SearchSpace:
    """Tuned coefficients (``distributions``) and fixed ones (``fixed``); every coefficient not
    named in either plays its registry default."""

    distributions: dict[str, BaseDistribution]
    fixed: dict[str, float]

    def full_params(self, trial_params: Mapping[str, float]) -> dict[str, float]:
        """The complete, validated coefficient set of a trial."""
        values = registry.validate({**registry.defaults(), **self.fixed, **trial_params})
        return {c.name: int(values[c.name]) if c.integer else values[c.name] for c in registry.COEFFICIENTS}

    def reference_params(self) -> dict[str, float]:
        """The bot's defaults for the tuned coefficients: trial 0, the reference point."""
        defaults = registry.defaults()
        return {name: defaults[name] for name in self.distributions}


def build_space(spec: StudySpec) -> SearchSpace:
    """Distributions from the study's ``search`` table (bounds default to the registry's)."""
    coefs = {c.name: c for c in registry.COEFFICIENTS}
    distributions: dict[str, BaseDistribution] = {}
    fixed: dict[str, float] = {}
    for name, entry in spec.search.items():
        if not isinstance(entry, SearchRange):
            fixed[name] = float(entry)
            continue
        c = coefs[name]
        low = c.low if entry.low is None else entry.low
        high = c.high if entry.high is None else entry.high
        if c.integer:
            distributions[name] = IntDistribution(int(low), int(high), log=entry.log)
        else:
            distributions[name] = FloatDistribution(float(low), float(high), log=entry.log)
    return SearchSpace(distributions=distributions, fixed=fixed)

"""The search space of a study: Optuna distributions for the tuned coefficients, fixed values
for the rest, and the full coefficient set a trial plays with."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from optuna.distributions import BaseDistribution, FloatDistribution, IntDistribution

from ocean.bots import coefficients as registry
from tuning.study.spec import SearchRange, StudySpec

__all__ = ["SearchSpace", "build_space", "REFERENCE_TRIAL"]

REFERENCE_TRIAL = 0  # the bot's defaults (``SearchSpace.reference_params``), enqueued first


@dataclass(frozen=True)
class SearchSpace:
    """Tuned coefficients (``distributions``) and fixed ones (``fixed``); for the in-process bot
    every coefficient not named in either plays its registry default. A program's space
    (``program`` True) holds exactly the parameters its study file declares, with their
    ``references`` (declared defaults, else the middle of each range)."""

    distributions: dict[str, BaseDistribution]
    fixed: dict[str, float]
    program: bool = False
    references: dict[str, float] | None = None
    policy: str = registry.V1  # the in-process tunable bot whose registry this space draws from
    start: dict[str, float] | None = None  # a warm start's coefficients (``[search] start``), else the defaults

    def full_params(self, trial_params: Mapping[str, float]) -> dict[str, float]:
        """The complete, validated parameter set of a trial."""
        if self.program:
            out = dict(self.fixed)
            for name, value in trial_params.items():
                out[name] = int(value) if isinstance(self.distributions.get(name), IntDistribution) else float(value)
            return out
        values = registry.validate({**registry.defaults(self.policy), **(self.start or {}), **self.fixed,
                                    **trial_params},
                                   policy=self.policy)
        return {c.name: int(values[c.name]) if c.integer else values[c.name] for c in registry.registry(self.policy)}

    def reference_params(self) -> dict[str, float]:
        """The bot's defaults for the tuned parameters (a warm start's values if the study has
        one): trial 0, the reference point, where SPSA's theta and CMA-ES start."""
        if self.program:
            return dict(self.references)
        defaults = {**registry.defaults(self.policy), **(self.start or {})}
        return {name: defaults[name] for name in self.distributions}


def build_space(spec: StudySpec) -> SearchSpace:
    """Distributions from the study's ``search`` table (bounds default to the registry's)."""
    if spec.bot is not None:
        return _program_space(spec)
    coefs = {c.name: c for c in registry.registry(spec.policy)}
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
    return SearchSpace(distributions=distributions, fixed=fixed, policy=spec.policy, start=spec.start)


def _program_space(spec: StudySpec) -> SearchSpace:
    distributions: dict[str, BaseDistribution] = {}
    fixed: dict[str, float] = {}
    references: dict[str, float] = {}
    for name, entry in spec.search.items():
        if not isinstance(entry, SearchRange):
            fixed[name] = entry  # an int stays an int: the program reads "3", not "3.0"
            continue
        if entry.integer:
            distributions[name] = IntDistribution(int(entry.low), int(entry.high), log=entry.log)
            references[name] = int(entry.reference())
        else:
            distributions[name] = FloatDistribution(float(entry.low), float(entry.high), log=entry.log)
            references[name] = float(entry.reference())
    return SearchSpace(distributions=distributions, fixed=fixed, program=True, references=references)

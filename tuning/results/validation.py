"""``tune validate``: re-play the top trials and the reference on held-out seeds, choose the
best on one half of the maps, judge it on the other, and play it head to head against the
reference.

Training scores are noisy and the best of many noisy scores is biased upwards (the winner's
curse). Validation re-plays the top K trials and the reference (trial 0: the bot's defaults, or a
warm study's start file) on seeds no trial has seen, with many more games. The best of them is
chosen by its score against the training panel on the first half of those maps, and everything
the verdict says of it is measured where it was not chosen: its score and its difference to the
reference on the second half, its games against the held-out opponents (never chosen on), and
head-to-head games against the reference on maps the choice did not use (``verdict``: "gain"
needs all three). An SPSA study's answer is the point after its last iteration (theta, as in
Fishtest): a panel-scored one's is a candidate beside its top trials; a head-to-head study
(``[sampler] scoring = "head-to-head"``) found that one point only: it is the one candidate, and
validated like the chosen one.

A program's study is tuned at a short time control and validated at the contest's: each time
control's validation is its own (its games a phase of their own, its results rows of their
own), so validating at 50 ms keeps what was found at 5 ms.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Callable

from optuna.trial import TrialState

from ocean.timecontrol import TimeControl
from tuning.driver.cluster import cluster_cpus
from tuning.driver.evaluation import plan_batches, summarize
from tuning.driver.faults import OpponentFaults
from tuning.driver.pool import BatchPool, play_all
from tuning.errors import SpecError, TuningError
from tuning.results.verdict import (
    HEAD_TO_HEAD, decide, gain_part, head_to_head_part, not_worse_part, time_key, validation_phase, verdict,
)
from tuning.stats.estimates import Estimate, paired_difference
from tuning.storage.handle import StudyHandle
from tuning.study.space import REFERENCE_TRIAL

__all__ = ["ValidationResult", "validate_study", "candidates", "validation_maps"]


@dataclass(frozen=True)
class ValidationResult:
    """One trial's validated score (mean over the training panel, on the maps it is judged on)
    and its difference to the reference there; for the chosen trial, the verdict's parts."""

    trial: int
    estimate: Estimate
    per_opponent: dict[str, Estimate]
    diff: Estimate | None  # trial - reference over the same judged pairs (None for the reference)
    params: dict
    training_score: float | None
    held_out: Estimate | None = None  # mean over the held-out opponents, if the study has some
    time: TimeControl | None = None  # the time control validated at
    selection: Estimate | None = None  # its score on the maps the best is chosen on
    chosen: bool = False
    parts: dict | None = None  # the chosen trial's verdict and its parts (``tuning.results.verdict``)

    @property
    def verdict(self) -> str:
        """``GAIN`` or ``NO_GAIN``: the chosen trial's three-part verdict; any other's, as its
        training-panel difference alone would have it."""
        if self.parts is not None:
            return self.parts["verdict"]
        return verdict(None if self.diff is None else self.diff.low)


def candidates(handle: StudyHandle, top_k: int) -> list[tuple[int, dict, float | None]]:
    """(trial, full params, training score): the reference first, then the top ``top_k``
    complete trials by training score and, for a panel-scored SPSA study, the point its
    iterations reached (a head-to-head study: that point alone; ``StudyHandle.final_point``)."""
    by_number = {t.number: t for t in handle.trials()}
    ref = by_number.get(REFERENCE_TRIAL)
    out = [(REFERENCE_TRIAL, handle.space.full_params(ref.params if ref is not None else {}),
            ref.value if ref is not None else None)]
    if handle.spec.sampler.head_to_head:
        number, params = handle.final_point()
        return out + [(number, params, None)]
    complete = sorted((t for t in handle.trials(TrialState.COMPLETE) if t.value is not None),
                      key=lambda t: (-t.value, t.number))
    out += [(t.number, handle.space.full_params(t.params), t.value)
            for t in complete if t.number != REFERENCE_TRIAL][:top_k]
    if handle.spec.sampler.has_theta:
        # SPSA's answer is theta, as in Fishtest: its trials are theta's perturbations, each
        # scored on a few games, so the best of them is mostly the luckiest.
        number, params = handle.final_point()
        if number != REFERENCE_TRIAL:  # no iteration yet: theta is the start, the reference
            out.append((number, params, None))
    return out


def validation_maps(handle: StudyHandle, games: int) -> tuple[list[int], list[int], list[int]]:
    """(maps the best is chosen on, maps it is judged on against the panels, maps of its
    head-to-head games) for a validation of ``games`` games per opponent. A head-to-head study
    chooses nothing: it is judged on all of them. Head to head, the maps the choice did not use:
    the judged half, then the held-out maps after those the panels play."""
    spec = handle.spec.validation
    seeds = spec.seeds.seeds(games // 2)
    chosen, _, wanted = spec.map_counts(games, head_to_head=handle.spec.sampler.head_to_head)
    if not handle.spec.sampler.head_to_head and len(seeds) < 2:
        raise SpecError(f"--games {games}: validation needs at least 2 maps (4 games) to choose the best on one "
                        "half and judge it on the other")
    chosen_on, judged_on = seeds[:chosen], seeds[chosen:]
    unused = spec.seeds.seeds()[len(seeds):]
    available = judged_on + unused
    if wanted > len(available):
        raise SpecError(f"validation.head_to_head_games = {2 * wanted} needs {wanted} held-out maps the best was not "
                        f"chosen on; validation.seeds leaves {len(available)} (the judged half of the {len(seeds)} "
                        f"maps of --games {games} and the {len(unused)} after them): lower it or add seeds")
    return chosen_on, judged_on, available[:wanted]


def validate_study(handle: StudyHandle, *, top_k: int | None = None, games: int | None = None,
                   time: TimeControl | None = None, pool: BatchPool | None = None,
                   progress: Callable[[int, int], None] | None = None) -> list[ValidationResult]:
    """Play (or complete) the validation games at ``time`` (default: the study's time control)
    and store the results beside those of other time controls; the chosen trial first, then
    the others by their judged score."""
    spec = handle.spec.validation
    time = handle.spec.time_control if time is None else time
    phase = validation_phase(time, handle.spec.time_control)
    top_k = spec.top_k if top_k is None else top_k
    games = spec.games if games is None else games
    if top_k < 1:
        raise SpecError(f"--top must be at least 1, got {top_k}")
    if games < 2 or games % 2:
        raise SpecError(f"--games must be a positive even number (each map is played twice), got {games}")
    if games > 2 * spec.seeds.count:
        raise SpecError(f"--games {games} needs {games // 2} held-out maps but validation.seeds has {spec.seeds.count}")
    if not handle.trials(TrialState.COMPLETE):
        raise TuningError(f"study {handle.name!r} has no complete trial yet; run or resume it first")
    chosen_on, judged_on, h2h_maps = validation_maps(handle, games)
    seeds = chosen_on + judged_on
    chosen = candidates(handle, top_k)
    params = {number: p for number, p, _ in chosen}
    pairs = handle.batch_pairs(len(seeds))
    pending = deque()
    for number, _, _ in chosen:
        pending.extend(plan_batches(trial=number, phase=phase, panel=handle.validation_panel(), seeds=seeds,
                                    batch_pairs=pairs, done=handle.games.done_pairs(number, phase)))
    total = sum(b.games for b in pending) + 2 * len(h2h_maps)  # less, if the reference is chosen
    played = 0
    if progress:
        progress(played, total)
    pool = pool if pool is not None else BatchPool(cluster_cpus() + 1, bot=handle.bot, time_control=time)
    faults = OpponentFaults(f"tune validate {handle.name}")

    def store(batch, result) -> None:
        nonlocal played
        handle.games.add_games(trial=batch.trial, phase=phase, opponent=batch.opponent.name,
                               rows=result.rows, seconds=result.seconds)
        if batch.replay_opponent:
            summary = result.digest(batch.opponent.name)
            faults.add(batch.opponent.name, summary.games, summary.replayed, summary.first_fault)
        played += batch.games
        if progress:
            progress(played, total)

    play_all(pool, pending, lambda batch: params[batch.trial], store,
             lambda batch: f"validation games of trial {batch.trial}")
    best = _choose(handle, chosen, chosen_on, phase)
    duel = []
    if best != REFERENCE_TRIAL:  # the reference is the studied bot: its failures are its own (no replays)
        reference = handle.bot.with_params(params[REFERENCE_TRIAL], name=HEAD_TO_HEAD)
        duel = plan_batches(trial=best, phase=phase, panel=[reference], seeds=h2h_maps,
                            batch_pairs=handle.batch_pairs(len(h2h_maps)),
                            done=handle.games.done_pairs(best, phase), replay_opponent=False)
    total = played + sum(b.games for b in duel)
    if progress:
        progress(played, total)
    play_all(pool, duel, lambda batch: params[best], store,
             lambda batch: f"head-to-head games of trial {best} against the reference")
    return _score(handle, chosen, best, (chosen_on, judged_on, h2h_maps), games, time, phase)


def _pairs(pairs: dict, opponents, seeds) -> dict:
    """The pair scores of ``pairs`` against ``opponents`` on ``seeds``."""
    return {k: v for k, v in pairs.items() if k[0] in opponents and k[1] in seeds}


def _training(handle: StudyHandle) -> list[str]:
    return [b.name for b in handle.panel]


def _held_out(handle: StudyHandle) -> list[str]:
    training = set(_training(handle))
    return [b.name for b in handle.held_out or [] if b.name not in training]


def _choose(handle: StudyHandle, chosen, chosen_on: list[int], phase: str) -> int:
    """The trial validation calls best: a head-to-head study's point; else the best training-panel
    score on the maps the choice is made on (the reference wins a tie, then the lower number)."""
    if handle.spec.sampler.head_to_head:
        return chosen[-1][0]
    on = set(chosen_on)

    def score(number: int) -> float:
        pairs = {k: v for k, v in handle.games.pair_scores(number, phase).items() if k[1] in on}
        return summarize(pairs, _training(handle))[0].mean

    return max((number for number, _, _ in chosen), key=lambda n: (score(n), n == REFERENCE_TRIAL, -n))


def _score(handle: StudyHandle, chosen, best: int, maps: tuple[list[int], list[int], list[int]], games: int,
           time: TimeControl, phase: str) -> list[ValidationResult]:
    chosen_on, judged_on, h2h_maps = maps
    training, held_out = _training(handle), _held_out(handle)
    on, judged = set(chosen_on), set(judged_on)
    everywhere = on | judged
    scores = {number: {k: v for k, v in handle.games.pair_scores(number, phase).items() if k[1] in everywhere}
              for number, _, _ in chosen}
    reference = scores[REFERENCE_TRIAL]
    part = _pairs
    results = []
    for number, params, training_score in chosen:
        mine = scores[number]
        estimate, per = summarize(part(mine, training, judged), training)
        selection = summarize(part(mine, training, on), training)[0] if on else None
        diff = None if number == REFERENCE_TRIAL else paired_difference(part(mine, training, judged),
                                                                          part(reference, training, judged))
        extra, extra_per = summarize(part(mine, held_out, everywhere), held_out) if held_out else (None, {})
        parts = _verdict(handle, mine, reference, training, held_out, judged, everywhere, number, phase, h2h_maps) \
            if number == best and number != REFERENCE_TRIAL else None
        if number == best == REFERENCE_TRIAL:
            parts = {"verdict": "no gain shown", "failed": ["head_to_head"], "chosen_on": len(chosen_on),
                     "head_to_head": None, "training_panel": None, "held_out": None}
        per = {**per, **extra_per}
        result = ValidationResult(number, estimate, per, diff, params, training_score, extra, time, selection,
                                  number == best, parts)
        results.append(result)
        handle.games.save_validation(
            trial=number, time_control=time_key(time), games=games, score=estimate.mean, low=estimate.low,
            high=estimate.high,
            heldout_score=None if extra is None else extra.mean, heldout_low=None if extra is None else extra.low,
            heldout_high=None if extra is None else extra.high,
            per_opponent={name: e.as_dict() for name, e in per.items()},
            diff=None if diff is None else diff.mean, diff_low=None if diff is None else diff.low,
            diff_high=None if diff is None else diff.high,
            seeds=f"{chosen_on[0] if chosen_on else judged_on[0]}..{judged_on[-1]}", params=params,
            selection_score=None if selection is None else selection.mean, chosen=int(number == best),
            verdict=parts)
    results.sort(key=lambda r: (not r.chosen, -r.estimate.mean, -r.estimate.low, r.trial))
    return results


def _verdict(handle: StudyHandle, mine: dict, reference: dict, training: list[str], held_out: list[str],
             judged: set[int], everywhere: set[int], number: int, phase: str, h2h_maps: list[int]) -> dict:
    """The chosen trial's verdict and its three parts (``tuning.results.verdict``)."""
    h2h = handle.spec.sampler.head_to_head
    wanted = set(h2h_maps)
    duel = [v for (opponent, seed), v in handle.games.pair_scores(number, phase).items()
            if opponent == HEAD_TO_HEAD and seed in wanted]
    margin = handle.spec.validation.held_out_margin
    part = _pairs
    trained = part(mine, training, judged), part(reference, training, judged)
    parts = {
        "head_to_head": head_to_head_part(duel),
        # a head-to-head study never played its panel: there it only must not be worse
        "training_panel": not_worse_part(*trained, margin) if h2h else gain_part(*trained),
        "held_out": not_worse_part(part(mine, held_out, everywhere), part(reference, held_out, everywhere), margin)
        if held_out else None,
    }
    outcome, failed = decide(parts)
    return {"verdict": outcome, "failed": failed, "chosen_on": len(everywhere - judged),
            **{name: None if p is None else p.as_dict() for name, p in parts.items()}}

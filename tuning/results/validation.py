"""``tune validate``: a sequential validation. The reference and the top trials race on held-out
maps, the survivor plays the reference head to head until an SPRT decides, and it is judged
not worse against the training panel and the held-out opponents on maps it was not chosen on.

Training scores are noisy and the best of many noisy scores is biased upwards (the winner's
curse). Validation re-plays the top K trials and the reference (trial 0: the bot's defaults, or a
warm study's start file) on seeds no trial has seen:

1. **the race** (irace's post-selection race): the candidates and the reference play the training
   panel on the first half of the panels' maps, in rounds of ``RACE_ROUND_MAPS``; after each, a
   candidate clearly worse than the leader is dropped (``tuning.stats.sequential.race_drops``: a
   paired test corrected for the number of candidates). It ends when one candidate is left
   beside the reference, or the half is played; the chosen set is the best candidate left (the
   reference is what it is judged against, never a candidate). If the reference dropped every
   candidate, nothing more is played: "no gain shown", with the runner-up's numbers;
2. **the judgement**: the chosen set and the reference play the training panel on the other half,
   and the held-out opponents (never chosen on) on every map of the panels;
3. **the head to head**: the chosen set against the reference on maps the choice did not use,
   in rounds of ``H2H_ROUND_MAPS``, until the SPRT of ``[validation]`` decides or the maps run out
   (``head_to_head_games``, by default every held-out map left): "no decision, N games".

The verdict and its parts: ``tuning.results.verdict``. Every decision is a function of the games
on the same maps in the same order, so a resumed validation reuses what is stored and takes the
same path. An SPSA study's answer is the point after its last iteration (theta, as in Fishtest):
a panel-scored one's is a candidate beside its top trials; a head-to-head study
(``[sampler] scoring = "head-to-head"``) found that one point only: it is the one candidate,
chooses nothing and is judged on every map.

A program's study is tuned at a short time control and validated at the contest's: each time
control's validation is its own (its games a phase of their own, its results rows of their
own), so validating at 50 ms keeps what was found at 5 ms.
"""
from __future__ import annotations

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
    HEAD_TO_HEAD, NO_GAIN, decide, not_worse_elo_part, sprt_part, time_key, validation_phase,
)
from tuning.stats.estimates import Estimate, paired_difference
from tuning.stats.sequential import H2H_ROUND_MAPS, RACE_ROUND_MAPS, leader, race_drops, sprt_look
from tuning.stats.sprt import Settings
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
        """``GAIN`` or ``NO_GAIN``: the chosen trial's three-part verdict; any other has no
        evidence of its own (its training-panel difference is the race's, where it was chosen
        against): "no gain shown"."""
        if self.parts is not None:
            return self.parts["verdict"]
        return NO_GAIN


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


def validation_maps(handle: StudyHandle, games: int,
                    head_to_head_games: int | None = None) -> tuple[list[int], list[int], list[int]]:
    """(maps the best is chosen on, maps it is judged on against the panels, maps of its
    head-to-head games) for a validation of ``games`` games per opponent. A head-to-head study
    chooses nothing: it is judged on all of them. Head to head, the maps the choice did not use:
    the judged half, then the held-out maps after those the panels play."""
    spec = handle.spec.validation
    seeds = spec.seeds.seeds(games // 2)
    chosen, _, wanted = spec.map_counts(games, head_to_head=handle.spec.sampler.head_to_head)
    if head_to_head_games is not None:
        if head_to_head_games < 2 or head_to_head_games % 2:
            raise SpecError(f"--head-to-head-games must be a positive even number (each map is played twice), "
                            f"got {head_to_head_games}")
        wanted = head_to_head_games // 2
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
                   progress: Callable[[int, int], None] | None = None,
                   head_to_head_games: int | None = None) -> list[ValidationResult]:
    """Play (or complete) the sequential validation at ``time`` (default: the study's time
    control) and store the results beside those of other time controls; the chosen trial first,
    then the others by their score. ``head_to_head_games``: at most this many head-to-head games
    (default: ``validation.head_to_head_games``). Games already stored are reused (a resumed validation takes
    the same path: every decision is a function of the games on the same maps, in the same
    order)."""
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
    maps = validation_maps(handle, games, head_to_head_games)
    chosen_on, judged_on, h2h_maps = maps
    chosen = candidates(handle, top_k)
    params = {number: p for number, p, _ in chosen}
    training, held_out = _training(handle), _held_out(handle)
    training_bots = list(handle.panel)
    held_bots = [b for b in handle.held_out or [] if b.name in held_out]
    pool = pool if pool is not None else BatchPool(cluster_cpus() + 1, bot=handle.bot, time_control=time)
    faults = OpponentFaults(f"tune validate {handle.name}")
    played, total = 0, 0

    def store(batch, result) -> None:
        nonlocal played
        handle.games.add_games(trial=batch.trial, phase=phase, opponent=batch.opponent.name,
                               rows=result.rows, seconds=result.seconds)
        if batch.replay_opponent:
            summary = result.digest(batch.opponent.name)
            faults.add(batch.opponent.name, summary.games, summary.replayed, summary.first_fault)
        played += batch.games
        if progress:
            progress(played, max(total, played))

    def play(numbers, panel, seeds, what: str, **kw) -> None:
        nonlocal played, total
        batches = []
        for number in numbers:
            todo = plan_batches(trial=number, phase=phase, panel=panel, seeds=seeds,
                                batch_pairs=handle.batch_pairs(max(1, len(seeds))),
                                done=handle.games.done_pairs(number, phase), **kw)
            skipped = 2 * len(panel) * len(seeds) - sum(b.games for b in todo)
            played += skipped  # stored already: counted as played
            batches.extend(todo)
        if progress:
            progress(played, max(total, played))
        play_all(pool, batches, lambda batch: params[batch.trial], store, lambda batch: f"{what} of trial {batch.trial}")

    numbers = [number for number, _, _ in chosen]
    reference_games = 2 * (len(training) * len(judged_on) + len(held_out) * len(chosen_on + judged_on))
    total = (2 * len(training) * len(chosen_on) * len(numbers) + 2 * reference_games + 2 * len(h2h_maps))
    # 1. the race: every candidate and the reference against the training panel on the choosing maps
    race = _race(handle, numbers, chosen_on, training, phase,
                 lambda alive, seeds: play(alive, training_bots, seeds, "validation games"))
    best = race.best
    total = played + (0 if best is None else reference_games + 2 * len(h2h_maps))
    if best is not None:
        # 2. the chosen set and the reference: the training panel on the judged maps, the held-out
        # opponents (never chosen on) on every map of the panels
        play([best, REFERENCE_TRIAL], training_bots, judged_on, "validation games")
        if held_bots:
            play([best, REFERENCE_TRIAL], held_bots, chosen_on + judged_on, "held-out validation games")
        # 3. head to head against the reference, decided by the SPRT in rounds
        _duel(handle, best, params, h2h_maps, phase,
              lambda seeds: play([best], [handle.bot.with_params(params[REFERENCE_TRIAL], name=HEAD_TO_HEAD)], seeds,
                                 "head-to-head games", replay_opponent=False))
    if progress:
        progress(played, played)
    return _score(handle, chosen, race, maps, games, time, phase)


@dataclass(frozen=True)
class _Race:
    best: int | None  # the chosen candidate; None: the reference dropped every one (reference best)
    runner_up: int | None  # the reference best: the candidate that came closest
    dropped: dict  # trial -> the round it was dropped after (1-based)
    rounds: int
    maps: int  # choosing maps played by the race


def _race(handle: StudyHandle, numbers: list[int], chosen_on: list[int], training: list[str], phase: str,
          play: Callable[[list[int], list[int]], None]) -> _Race:
    """The race on the choosing maps, in rounds of ``RACE_ROUND_MAPS``: after each, the
    candidates clearly worse than the leader are dropped (``race_drops``); it ends when one
    candidate is left beside the reference (or none), or the maps run out. A head-to-head study
    has one candidate and chooses nothing."""
    if handle.spec.sampler.head_to_head:
        return _Race(numbers[-1], None, {}, 0, 0)
    alive = list(numbers)
    dropped = {}
    scores = {}
    done, rounds = 0, 0
    while done < len(chosen_on):
        seeds = chosen_on[done:done + RACE_ROUND_MAPS]
        play(alive, seeds)
        done += len(seeds)
        rounds += 1
        on = set(chosen_on[:done])
        for number in alive:
            scores[number] = _pairs(handle.games.pair_scores(number, phase), training, on)
        for number in race_drops(scores, alive, prefer=REFERENCE_TRIAL):
            alive.remove(number)
            dropped[number] = rounds
        if sum(1 for n in alive if n != REFERENCE_TRIAL) <= 1:
            break
    contenders = [n for n in alive if n != REFERENCE_TRIAL]
    if contenders:
        return _Race(leader(scores, contenders), None, dropped, rounds, done)
    # the reference dropped every candidate: the last dropped, best of them, came closest
    last = max(dropped[n] for n in numbers if n != REFERENCE_TRIAL)
    closest = [n for n in numbers if n != REFERENCE_TRIAL and dropped[n] == last]
    return _Race(None, leader(scores, closest), dropped, rounds, done)


def _duel(handle: StudyHandle, best: int, params: dict, h2h_maps: list[int], phase: str,
          play: Callable[[list[int]], None]) -> None:
    """The head to head in rounds of ``H2H_ROUND_MAPS`` maps until the SPRT decides or the maps
    run out (``validation.head_to_head_games``)."""
    settings = _settings(handle)
    done = 0
    while done < len(h2h_maps):
        seeds = h2h_maps[done:done + H2H_ROUND_MAPS]
        play(seeds)
        done += len(seeds)
        if sprt_look(_duel_pairs(handle, best, phase, h2h_maps[:done]), settings)[1] is not None:
            return


def _settings(handle: StudyHandle) -> Settings:
    spec = handle.spec.validation
    return Settings(spec.elo0, spec.elo1, spec.alpha, spec.beta)


def _duel_pairs(handle: StudyHandle, number: int, phase: str, seeds: list[int]) -> list[float]:
    """The head-to-head pair scores of ``number`` on ``seeds``, in their order."""
    pairs = handle.games.pair_scores(number, phase)
    return [pairs[(HEAD_TO_HEAD, s)] for s in seeds if (HEAD_TO_HEAD, s) in pairs]


def _pairs(pairs: dict, opponents, seeds) -> dict:
    """The pair scores of ``pairs`` against ``opponents`` on ``seeds``."""
    return {k: v for k, v in pairs.items() if k[0] in opponents and k[1] in seeds}


def _training(handle: StudyHandle) -> list[str]:
    return [b.name for b in handle.panel]


def _held_out(handle: StudyHandle) -> list[str]:
    training = set(_training(handle))
    return [b.name for b in handle.held_out or [] if b.name not in training]


def _score(handle: StudyHandle, chosen, race: _Race, maps: tuple[list[int], list[int], list[int]], games: int,
           time: TimeControl, phase: str) -> list[ValidationResult]:
    """Every candidate's result, stored: the chosen set and the reference scored on the judged
    maps (the reference also held out), a candidate the race dropped on the maps it played."""
    chosen_on, judged_on, h2h_maps = maps
    training, held_out = _training(handle), _held_out(handle)
    on, judged = set(chosen_on), set(judged_on)
    everywhere = on | judged
    best = race.best if race.best is not None else REFERENCE_TRIAL
    scores = {number: {k: v for k, v in handle.games.pair_scores(number, phase).items() if k[1] in everywhere}
              for number, _, _ in chosen}
    reference = scores[REFERENCE_TRIAL]
    results = []
    for number, params, training_score in chosen:
        mine = scores[number]
        judged_here = race.best is not None and number in (race.best, REFERENCE_TRIAL)
        where = judged if judged_here else on
        estimate, per = summarize(_pairs(mine, training, where), training)
        selection = summarize(_pairs(mine, training, on), training)[0] if on else None
        diff = None if number == REFERENCE_TRIAL else paired_difference(_pairs(mine, training, where),
                                                                          _pairs(reference, training, where))
        extra, extra_per = summarize(_pairs(mine, held_out, everywhere), held_out) \
            if held_out and judged_here else (None, {})
        parts = None
        if number == best:
            parts = _verdict(handle, mine, reference, training, held_out, judged, everywhere, number, phase, h2h_maps) \
                if race.best is not None else _reference_best(handle, race, scores, training, chosen_on)
            parts["race"] = {"rounds": race.rounds, "maps": race.maps,
                             "dropped": {str(n): r for n, r in sorted(race.dropped.items())}}
            parts["games_played"] = _games_played(handle, chosen, phase, everywhere, h2h_maps)
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


def _games_played(handle: StudyHandle, chosen, phase: str, everywhere: set[int], h2h_maps: list[int]) -> int:
    """The games this validation's maps hold for its candidates (panels and head to head)."""
    wanted = everywhere | set(h2h_maps)
    return 2 * sum(1 for number, _, _ in chosen for (opponent, seed) in handle.games.done_pairs(number, phase)
                   if seed in wanted)


def _reference_best(handle: StudyHandle, race: _Race, scores: dict, training: list[str],
                    chosen_on: list[int]) -> dict:
    """The verdict when the race dropped every candidate: no gain shown, with what was measured
    (the runner-up's training-panel difference to the reference on the maps of the race)."""
    on = set(chosen_on)
    d = paired_difference(_pairs(scores[race.runner_up], training, on), _pairs(scores[REFERENCE_TRIAL], training, on))
    runner = {"trial": race.runner_up, "diff": round(d.mean, 6), "low": round(d.low, 6), "high": round(d.high, 6),
              "games": d.games}
    return {"verdict": NO_GAIN, "failed": ["head_to_head"], "chosen_on": len(chosen_on), "reference_best": True,
            "runner_up": runner, "head_to_head": None, "training_panel": None, "held_out": None}


def _verdict(handle: StudyHandle, mine: dict, reference: dict, training: list[str], held_out: list[str],
             judged: set[int], everywhere: set[int], number: int, phase: str, h2h_maps: list[int]) -> dict:
    """The chosen trial's verdict and its three parts (``tuning.results.verdict``): head to head
    accepted better by the SPRT, the training panel and the held-out opponents not worse."""
    spec = handle.spec.validation
    duel = _duel_pairs(handle, number, phase, h2h_maps)
    trained = _pairs(mine, training, judged), _pairs(reference, training, judged)
    held = _pairs(mine, held_out, everywhere), _pairs(reference, held_out, everywhere)
    parts = {
        "head_to_head": sprt_part(duel, _settings(handle), 2 * len(h2h_maps)),
        "training_panel": not_worse_elo_part(*trained, spec.not_worse_elo),
        "held_out": not_worse_elo_part(*held, spec.not_worse_elo, margin=spec.held_out_margin) if held_out else None,
    }
    outcome, failed = decide(parts)
    return {"verdict": outcome, "failed": failed, "chosen_on": len(everywhere - judged),
            **{name: None if p is None else p.as_dict() for name, p in parts.items()}}

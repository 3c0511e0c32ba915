"""The honest verdict on a validated best, and which time control a validation was at (light:
``tune status`` reads these without loading Ray).

A bot author acts on one sentence: "the tuned set is better than what I have, against the
opponents I care about". The lab says "gain" only when three kinds of evidence agree, each
measured against the reference (trial 0: the defaults, or a warm study's start file) on held-out
maps the choice did not use (``tuning.results.validation`` plays them sequentially):

- **head to head** (``sprt_part``): the chosen set against the reference, paired games, decided
  by an SPRT between ``[validation] elo0`` and ``elo1`` (logistic Elo, 0 and 10 by default) with
  error rates ``alpha`` (0.025: a false gain) and ``beta`` (0.05: a missed gain of elo1): it
  passes when the test accepts H1. At the most games the maps allow without a decision it says
  "no decision", and what a decision would take;
- **training panel** (``not_worse_elo_part``): its paired difference to the reference against the
  panel it was tuned against, on maps it was not chosen on: not worse by ``not_worse_elo`` (30
  Elo by default), a non-inferiority test (the 95% interval's low end above minus the margin);
- **held out**: the same test against opponents it never trained against, on every map of the
  panels (never chosen on).

A set equal to the reference is called a gain at most ``alpha`` of the time (the head to head's
error rate; the other parts can only lower it), a set truly worse by the margin passes a
not-worse part at most 2.5% of the time, and the power for the gains users have is simulated by
``python -m benchmarks.verdictsim`` (docs/reproducibility.md).

``gain_part``, ``head_to_head_part`` and ``not_worse_part`` are the fixed-size rules the lab had
before (the simulation runs them beside the sequential one).
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from ocean.timecontrol import TimeControl
from tuning.stats.estimates import estimate, paired_difference

__all__ = ["PHASE", "GAIN", "NO_GAIN", "HEAD_TO_HEAD", "point_name", "reference_name", "time_key", "time_from_key",
           "validation_phase", "verdict", "verdict_line", "Part", "head_to_head_part", "gain_part",
           "not_worse_part", "sprt_part", "not_worse_elo_part", "decide", "verdict_of", "parts_text", "best_verdict_text", "PART_NAMES"]

HEAD_TO_HEAD = "head-to-head"  # the opponent name of a validation's head-to-head games (the reference)
PART_NAMES = {"head_to_head": "head to head", "training_panel": "training panel", "held_out": "held-out opponents"}

PHASE = "validate"  # the games of the validation at the study's own time control
GAIN, NO_GAIN = "gain", "no gain shown"  # the verdict on a validated best against the defaults


def point_name(number: int) -> str:
    """What outputs call a validated point: ``trial N``, or a panel-scored SPSA study's theta,
    stored as -K after K iterations (``StudyHandle.final_point``): ``theta after K iterations``."""
    return f"trial {number}" if number >= 0 else f"theta after {-number} iterations"
_PHASE_LENGTH = 16  # ocean_games.phase's width


def time_key(time: TimeControl) -> str:
    """A time control as stored with a validation: ``turn/first x scale``, e.g. ``5/1000x1``,
    and ``m`` the machine scale where it is not 1 (``50/1000x1m2``)."""
    machine = "" if time.machine == 1.0 else f"m{time.machine:g}"
    return f"{time.turn_ms}/{time.first_turn_ms}x{time.scale:g}{machine}"


def time_from_key(key: str, study: TimeControl) -> TimeControl:
    """The time control a stored key names ("", from before time controls were kept: ``study``)."""
    if not key:
        return study
    times, scales = key.split("x")
    scale, _, machine = scales.partition("m")
    turn, first = times.split("/")
    return TimeControl(int(turn), int(first), float(scale), float(machine or 1.0))


def validation_phase(time: TimeControl, study: TimeControl) -> str:
    """The games' phase of a validation at ``time``: "validate" at the study's own time control
    (as always), else one of its own, so games at 50 ms are never taken for games at 5 ms."""
    if time == study:
        return PHASE
    phase = "v" + time_key(time)
    if len(phase) > _PHASE_LENGTH:  # an unusual time control: a short digest keeps it apart
        phase = "v" + hashlib.sha256(phase.encode()).hexdigest()[:_PHASE_LENGTH - 1]
    return phase


def verdict(diff_low: float | None) -> str:
    """"gain" when the paired interval against the defaults lies above 0, else "no gain shown"
    (it reaches 0, or the defaults themselves validated best: ``diff_low`` None)."""
    return GAIN if diff_low is not None and diff_low > 0 else NO_GAIN


def reference_name(start: str | None) -> str:
    """What trial 0 played, in words: the defaults, or the ``[search] start`` file a warm study
    started from (then a gain is a gain over that file)."""
    return "the start file" if start else "the defaults"


def verdict_line(diff: float | None, low: float | None, high: float | None, reference: str = "the defaults") -> str:
    """What people read: ``gain over the defaults: +0.041 [+0.012, +0.070]``, or ``no gain over
    the defaults shown: +0.000 [-0.171, +0.171]`` (or that the defaults validated best);
    ``reference`` names what trial 0 played (``reference_name``)."""
    if diff is None or low is None or high is None:
        return f"no gain over {reference} shown: {reference} validated best"
    shown = f"{diff:+.3f} [{low:+.3f}, {high:+.3f}]"
    return f"gain over {reference}: {shown}" if verdict(low) == GAIN else f"no gain over {reference} shown: {shown}"


# --- the three-part verdict -------------------------------------------------------------------------

@dataclass(frozen=True)
class Part:
    """One part of the verdict: the chosen set's difference to the reference (``diff`` with its
    95% interval; head to head: its mean score against the reference less one half), the games
    it is measured on, the rule it must meet (``"above 0"`` or ``"not worse"``) and whether it
    does. Held out, also both sides' scores and the opponents it lost to."""

    diff: float | None
    low: float | None
    high: float | None
    games: int
    rule: str
    passed: bool
    score: float | None = None
    defaults_score: float | None = None
    lost_to: tuple[str, ...] = field(default_factory=tuple)
    margin: float | None = None
    margin_elo: float | None = None  # a not-worse part's margin in Elo (``margin``: the same in score units)
    sprt: dict | None = None  # the head to head's sequential test: llr, bounds, decision, ... (``sprt_part``)

    def as_dict(self) -> dict:
        out = {"diff": _num(self.diff), "low": _num(self.low), "high": _num(self.high), "games": self.games,
               "rule": self.rule, "passed": self.passed}
        if self.score is not None or self.defaults_score is not None:
            out.update({"score": _num(self.score), "defaults_score": _num(self.defaults_score)})
        if self.rule == "not worse":
            out.update({"margin": _num(self.margin), "lost_to": list(self.lost_to)})
            if self.margin_elo is not None:
                out["margin_elo"] = self.margin_elo
        if self.sprt is not None:
            out.update(self.sprt)
        return out


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)


def head_to_head_part(pairs: Sequence[float]) -> Part:
    """The chosen set's pair scores against the reference (each map played twice, sides
    swapped): above one half, or no gain."""
    e = estimate(list(pairs))
    if e.n == 0:
        return Part(None, None, None, 0, "above 0", False)
    return Part(e.mean - 0.5, e.low - 0.5, e.high - 0.5, e.games, "above 0", e.low > 0.5, score=e.mean)


def sprt_part(pairs: Sequence[float], settings, max_games: int) -> Part:
    """The chosen set's head-to-head pair scores against the reference, judged by the SPRT of
    ``settings`` (``tuning.stats.sprt.Settings``: logistic Elo bounds, alpha, beta): it passes
    when the test accepts H1 (better by ``elo1``, against at most ``elo0``); at ``max_games``
    without a bound it is "no decision", with the pairs it would take at its slope so far."""
    from tuning.stats.sequential import pairs_to_decide, sprt_look

    value, decision = sprt_look(list(pairs), settings)
    lower, upper = settings.bounds
    games = 2 * len(pairs)
    undecided = decision is None and games >= max_games
    more = pairs_to_decide(value, len(pairs), settings) if undecided else None
    sequential = {"llr": round(value, 4), "lower_bound": round(lower, 4), "upper_bound": round(upper, 4),
                  "elo0": settings.elo0, "elo1": settings.elo1, "alpha": settings.alpha, "beta": settings.beta,
                  "decision": decision or ("no decision" if undecided else None), "max_games": max_games,
                  "more_games": None if more is None else 2 * more}
    e = estimate(list(pairs))
    if e.n == 0:
        return Part(None, None, None, 0, "sprt", False, sprt=sequential)
    return Part(e.mean - 0.5, e.low - 0.5, e.high - 0.5, e.games, "sprt", decision == "H1", score=e.mean,
                sprt=sequential)


def not_worse_elo_part(mine: Mapping, reference: Mapping, margin_elo: float, margin: float | None = None) -> Part:
    """A non-inferiority test: the paired difference of the chosen set's pair scores to the
    reference's, passed when its 95% interval's low end lies above minus ``margin_elo`` Elo
    (turned into score units at the reference's score there: ``elo_margin_as_score``). A set
    truly worse by the margin passes at most 2.5% of the time. ``lost_to``: when it fails, the
    opponents whose own difference is below minus the margin. ``margin``: a margin in score
    units in its place (an older study file's ``held_out_margin``)."""
    from tuning.stats.sequential import elo_margin_as_score, non_inferior

    d = paired_difference(mine, reference)
    if d.n == 0:
        return Part(None, None, None, 0, "not worse", True, margin=margin,
                    margin_elo=margin_elo if margin is None else None)
    common = mine.keys() & reference.keys()
    mine_mean = math.fsum(mine[k] for k in common) / d.n
    ref_mean = math.fsum(reference[k] for k in common) / d.n
    margin_elo = margin_elo if margin is None else None
    margin = elo_margin_as_score(ref_mean, margin_elo) if margin is None else margin
    passed = non_inferior(d.low, margin)
    lost = []
    if not passed:
        for opponent in sorted({k[0] for k in common}):
            mine_o = {k: v for k, v in mine.items() if k[0] == opponent}
            ref_o = {k: v for k, v in reference.items() if k[0] == opponent}
            if paired_difference(mine_o, ref_o).mean < -margin:
                lost.append(opponent)
    return Part(d.mean, d.low, d.high, d.games, "not worse", passed, score=mine_mean, defaults_score=ref_mean,
                lost_to=tuple(lost), margin=margin, margin_elo=margin_elo)


def gain_part(mine: Mapping, reference: Mapping) -> Part:
    """The paired difference of the chosen set's pair scores to the reference's over the
    (opponent, seed) keys both hold: its interval above 0, or no gain."""
    d = paired_difference(mine, reference)
    if d.n == 0:
        return Part(None, None, None, 0, "above 0", False)
    return Part(d.mean, d.low, d.high, d.games, "above 0", d.low > 0)


def not_worse_part(mine: Mapping, reference: Mapping, margin: float) -> Part:
    """The paired difference against opponents the set was not chosen for: it fails only when
    the difference is below ``-margin`` and its interval lies below 0 (shown worse by more than
    the margin); ``lost_to``: the opponents it is shown worse against (interval below 0), or,
    when none is alone, those whose difference is below ``-margin``."""
    d = paired_difference(mine, reference)
    if d.n == 0:
        return Part(None, None, None, 0, "not worse", True, margin=margin)
    passed = not (d.mean < -margin and d.high < 0)
    mine_mean = sum(mine[k] for k in mine.keys() & reference.keys()) / d.n
    ref_mean = sum(reference[k] for k in mine.keys() & reference.keys()) / d.n
    lost = []
    if not passed:
        each = {}
        for opponent in sorted({k[0] for k in mine.keys() & reference.keys()}):
            each[opponent] = paired_difference({k: v for k, v in mine.items() if k[0] == opponent},
                                               {k: v for k, v in reference.items() if k[0] == opponent})
        lost = [o for o, e in each.items() if e.high < 0] or [o for o, e in each.items() if e.mean < -margin]
    return Part(d.mean, d.low, d.high, d.games, "not worse", passed, score=mine_mean, defaults_score=ref_mean,
                lost_to=tuple(lost), margin=margin)


def decide(parts: Mapping[str, Part | None]) -> tuple[str, list[str]]:
    """(``GAIN`` or ``NO_GAIN``, the names of the parts that failed): a gain needs every part
    present to pass, and a head-to-head part."""
    failed = [name for name, part in parts.items() if part is not None and not part.passed]
    if parts.get("head_to_head") is None:
        failed = ["head_to_head", *failed]
    return (GAIN if not failed else NO_GAIN), failed


def verdict_of(stored: Mapping | None, diff_low: float | None, *, has_parts: bool = False) -> str:
    """The verdict of a stored validation: its parts' (``verdict`` column) when it has them; a
    trial of a validation that has parts but not this trial's (it was not the chosen one) has
    no evidence of its own: "no gain shown" (``has_parts``); else, a validation from before the
    three parts, from the training-panel difference alone."""
    if stored:
        return stored["verdict"]
    if has_parts:
        return NO_GAIN
    return verdict(diff_low)


def parts_text(stored: Mapping, reference: str = "the defaults") -> str:
    """The verdict in words with each part's numbers: ``gain over the defaults: head to head
    +0.085 [+0.040, +0.130] (400 games); training panel ...``, or ``no gain over the defaults
    shown (failed: head to head): ...``."""
    pieces = []
    for key in ("head_to_head", "training_panel", "held_out"):
        part = stored.get(key)
        if part is None:
            if key == "head_to_head":
                pieces.append(_reference_best_text(stored))
            continue
        pieces.append(_part_text(key, part))
    if stored["verdict"] == GAIN:
        head = f"gain over {reference}"
    else:
        failed = ", ".join(PART_NAMES[name] for name in stored.get("failed") or [])
        head = f"no gain over {reference} shown" + (f" (failed: {failed})" if failed else "")
    return f"{head}: " + "; ".join(pieces)


def _reference_best_text(stored: Mapping) -> str:
    """What was measured when the reference itself validated best: the runner-up against it."""
    runner = stored.get("runner_up")
    if not runner:
        return "head to head: not played (the reference itself was chosen)"
    return (f"head to head: not played (the race dropped every candidate: the reference validated best); the "
            f"runner-up, {point_name(runner['trial'])}, against it on the training panel "
            f"{runner['diff']:+.3f} [{runner['low']:+.3f}, {runner['high']:+.3f}] ({runner['games']} games)")


def _sprt_text(part: Mapping) -> str:
    """The head to head's sequential test in words: accepted, rejected or undecided, and its ratio."""
    decision = part.get("decision")
    bounds = f"LLR {part['llr']:+.2f} in [{part['lower_bound']:+.2f}, {part['upper_bound']:+.2f}], " \
             f"Elo [{part['elo0']:g}, {part['elo1']:g}]"
    if decision == "H1":
        return f"SPRT: better ({bounds})"
    if decision == "H0":
        return f"SPRT: not better by {part['elo1']:g} Elo ({bounds})"
    if decision == "no decision":
        more = "" if part.get("more_games") is None else f"; about {part['more_games']:,} more games at its pace so far"
        return f"SPRT: no decision, {part['games']:,} games ({bounds}{more}: raise validation.head_to_head_games " \
               "and validation.seeds, or settle it with tune test)"
    return f"SPRT: undecided ({bounds})"


def _part_text(key: str, part: Mapping) -> str:
    name = PART_NAMES[key]
    if part.get("rule") == "sprt":
        if part.get("diff") is None:
            return f"{name}: no games"
        return (f"{name} {part['score']:.3f} ({part['diff']:+.3f} [{part['low']:+.3f}, {part['high']:+.3f}] over "
                f"one half, {part['games']} games), {_sprt_text(part)}")
    if part.get("diff") is None:
        return f"{name}: no games"
    shown = f"{part['diff']:+.3f} [{part['low']:+.3f}, {part['high']:+.3f}] ({part['games']} games)"
    if key == "head_to_head":
        shown = f"{part['score']:.3f} ({part['diff']:+.3f} [{part['low']:+.3f}, {part['high']:+.3f}] over one half, " \
                f"{part['games']} games)"
    if part["rule"] == "not worse":
        verdict_word = "not worse" if part["passed"] else "not shown not worse"
        extra = f", margin {part['margin']:.3f}" if part.get("margin") is not None else ""
        if part.get("margin_elo") is not None:
            extra += f" ({part['margin_elo']:g} Elo)"
        if not part["passed"] and part.get("lost_to"):
            extra += f"; lost to {', '.join(part['lost_to'])}"
        return f"{name} {shown}: {verdict_word}{extra}"
    return f"{name} {shown}" + ("" if part["passed"] else ": not shown better")


def best_verdict_text(best: Mapping) -> str:
    """The verdict line of a validated best as ``tune status`` gives it (its parts where it has
    them, else the training-panel difference of a validation from before them)."""
    reference = best.get("reference") or "the defaults"
    if best.get("head_to_head") is not None or best.get("failed"):
        return parts_text({key: best.get(key) for key in ("verdict", "failed", "head_to_head", "training_panel",
                                                          "held_out", "runner_up")}, reference)
    return verdict_line(best.get("diff_vs_defaults"), best.get("diff_low"), best.get("diff_high"), reference)

"""The honest verdict on a validated best, and which time control a validation was at (light:
``tune status`` reads these without loading Ray)."""
from __future__ import annotations

import hashlib

from ocean.timecontrol import TimeControl

__all__ = ["PHASE", "GAIN", "NO_GAIN", "reference_name", "time_key", "time_from_key", "validation_phase", "verdict",
           "verdict_line"]

PHASE = "validate"  # the games of the validation at the study's own time control
GAIN, NO_GAIN = "gain", "no gain shown"  # the verdict on a validated best against the defaults
_PHASE_LENGTH = 16  # ocean_games.phase's width


def time_key(time: TimeControl) -> str:
    """A time control as stored with a validation: ``turn/first x scale``, e.g. ``5/1000x1``."""
    return f"{time.turn_ms}/{time.first_turn_ms}x{time.scale:g}"


def time_from_key(key: str, study: TimeControl) -> TimeControl:
    """The time control a stored key names ("", from before time controls were kept: ``study``)."""
    if not key:
        return study
    times, scale = key.split("x")
    turn, first = times.split("/")
    return TimeControl(int(turn), int(first), float(scale))


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

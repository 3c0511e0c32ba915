"""Opponent tracking: the set of states a hidden submarine can be in, narrowed by
everything it reveals, and the same set run on ourselves (stealth).

Public surface: ``track_replay`` / ``replay_beliefs`` (a recorded game, turn by turn),
``TRACKER_KINDS``, ``DEFAULT_CAP``, and ``new_tracker``. Bots use the kernels in
``_kernel``, ``_query`` and ``_driver`` directly.
"""
from ocean.tracking._layout import DEFAULT_CAP, new_tracker
from ocean.tracking.report import TRACKER_KINDS, replay_beliefs, summarize, track_replay

__all__ = ["DEFAULT_CAP", "TRACKER_KINDS", "new_tracker", "replay_beliefs", "summarize", "track_replay"]

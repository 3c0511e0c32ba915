"""A study's opponents: named panels (built-in or the user's own) and lists of bot names."""
import pytest

from ocean.bots import coefficients
from ocean.bots.panel import reload_panels
from ocean.freeze import add_user_bot
from tuning.errors import SpecError
from tuning.study.opponents import panel_from_json, panel_to_json, resolve_panel




def test_an_exported_set_frozen_in_a_user_panel_is_a_study_opponent(user_panels):
    tuned = {**coefficients.defaults(), "stealth_weight": 0.9}
    add_user_bot("tuned-v1", tuned, panel="mine")
    (bot,) = resolve_panel("mine")
    assert bot.name == "tuned-v1" and bot.params == coefficients.validate(tuned)
    mixed = resolve_panel(["tuned-v1", "hunter"])
    assert [b.name for b in mixed] == ["tuned-v1", "hunter-v2"]  # a name without version: the highest
    # The study stores the opponents themselves: a resumed study plays the same bots even if
    # the user's file is gone.
    stored = panel_to_json(mixed)
    user_panels.unlink()
    reload_panels()
    assert panel_from_json(stored) == mixed


def test_unknown_panels_and_bots_are_refused_in_one_line(user_panels):
    with pytest.raises(SpecError, match=r"unknown panel 'mine'; known panels: default, styles, baselines"):
        resolve_panel("mine")
    with pytest.raises(SpecError, match=r"panel: unknown bot 'tuned-v1'"):
        resolve_panel(["tuned-v1"])

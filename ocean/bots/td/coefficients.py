"""The learned bot's features by name (``FEATURES``: what each measures, on each side) and its
coefficients: one weight per feature, in slot order. No kernel here: naming a policy compiles
nothing (``bots.registry``); the kernels that compute the features are in ``_features``. The
defaults are hand-set (a life is worth one unit, v3's ranking is trusted fully, the rest a first
guess); ``tune learn`` starts from zero weights unless told otherwise and writes what it learns
as a coefficient file."""
from ocean.bots.coefficients import Coefficient, slots

# (name, meaning) of every feature, in slot order: the coefficient registry and the docs read it.
FEATURES = (
    ("lives", "lives after the line: ours once it is played (a SURFACE and our own blast counted); the opponent's "
              "now (what our TORPEDO and TRIGGER are expected to take from it is ``shot``)"),
    ("believed_cells", "log2 of the cells the other side can believe the submarine is on: where the opponent "
                       "can believe we are after the line (our self-tracker), where we believe it is"),
    ("room", "share of space_horizon water cells still reachable from where the line ends (ours only: the "
             "opponent's path since its SURFACE is spread over its tracker states)"),
    ("torpedo_charge", "TORPEDO charge as a share of its cost: ours after the line; the opponent's counted "
                       "from its MOVEs since its last TORPEDO"),
    ("silence_charge", "SILENCE charge as a share of its cost: ours after the line; the opponent's counted "
                       "from its MOVEs since its last SILENCE"),
    ("sonar_charge", "our SONAR charge as a share of its cost (the opponent's cannot be told apart)"),
    ("mine_charge", "our MINE charge as a share of its cost (the opponent's cannot be told apart)"),
    ("live_mines", "mines laid and still live, in tens: ours; the opponent's expected count (its tracker)"),
    ("torpedo_reach", "ours: the chance the opponent is within our TORPEDO's reach where the line ends, if our "
                      "TORPEDO is charged by next turn; its: the lives its best TORPEDO next turn is expected "
                      "to take from where it can believe us (v3's premium on a hit that takes our last lives in)"),
    ("distance", "expected Manhattan distance to the opponent, in map widths (ours only: it would cancel)"),
    ("mine_danger", "ours: lives the opponent's mines around our end cell can take; its: lives our best live "
                    "mine can take from it next turn"),
    ("surfaced", "a SURFACE: in our line; in the opponent's last turn"),
    ("silenced", "a SILENCE: in our line; in the opponent's last turn"),
    ("fired", "a TORPEDO fired (it shows where it was fired from): in our line; in the opponent's last turn"),
    ("v3_line_score", "ours only: v3's hand-written score of the line in lives (its room, mine and path danger, "
                      "approach, walls, charges kept, shot, TRIGGER, the opponent's answer, stealth), with v3's "
                      "default coefficients: the search's own judgement, weighed beside the features"),
    ("v3_regret", "ours only: exp(d) - 1 where d <= 0 is how far, in lives, the line's v3 score falls below the best "
                  "v3 score of this turn's lines: 0 for v3's choice, -0.63 a life below it, toward -1 for lines far "
                  "below (all bad alike): how much the search's own ranking is trusted"),
    ("shot", "ours only: the lives our TORPEDO and TRIGGER in the line are expected to take (a belief, apart from "
             "the lives both sides are known to have)"),
)
FEATURE_NAMES = tuple(name for name, _ in FEATURES)
N_FEATURES = len(FEATURES)
F_LIVES, F_BELIEVED, F_ROOM, F_TORPEDO, F_SILENCE, F_SONAR, F_MINE, F_MINES, F_REACH, F_DISTANCE, F_DANGER, \
    F_SURFACED, F_SILENCED, F_FIRED, F_V3, F_REGRET, F_SHOT = range(N_FEATURES)

WEIGHT_BOUND = 20.0  # |w| beyond this would turn one feature's unit into certainty (1/(1+e^-20))
_HAND_SET = {"lives": 1.0, "believed_cells": 0.15, "room": 0.5, "torpedo_charge": 0.3, "silence_charge": 0.3,
             "sonar_charge": 0.05, "mine_charge": 0.05, "live_mines": 0.5, "torpedo_reach": 0.3, "distance": -0.2,
             "mine_danger": -0.5, "surfaced": -0.3, "silenced": -0.1, "fired": -0.1,
             "v3_line_score": 0.0, "v3_regret": 1.0, "shot": 1.0}

COEFFICIENTS_TD: tuple[Coefficient, ...] = tuple(
    Coefficient(name, _HAND_SET[name], -WEIGHT_BOUND, WEIGHT_BOUND, f"advantage weight of {meaning}")
    for name, meaning in FEATURES)
slots(COEFFICIENTS_TD)  # the vector holds them (the turn reads them by feature order)

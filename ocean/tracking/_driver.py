"""Feeding trackers from the game state, as a bot at the start of its turn sees it, and
auditing them against the truth over whole logged games."""
import numpy as np

from ocean._jit import kernel

from ocean import _rules
from ocean import _state as S
from ocean.constants import CELLS, MAX_LINE_ACTIONS
from ocean.tracking._kernel import observe_pair, reset_tracker
from ocean.tracking._layout import H_COLLAPSES, H_COUNT, H_FALLBACKS
from ocean.tracking._query import candidate_cells, cell_probabilities, truth_inside

# Columns of one audited turn.
AU_OBSERVER, AU_STATES_SAFE, AU_CELLS_SAFE, AU_INSIDE_SAFE, AU_PTRUE_SAFE = range(5)
AU_STATES_ASSUME, AU_CELLS_ASSUME, AU_INSIDE_ASSUME, AU_PTRUE_ASSUME = range(5, 9)
AU_COLLAPSES, AU_FALLBACKS = 9, 10  # so far in the game: safe tracker at the cap, assumption fallbacks
AU_COLUMNS = 11


@kernel
def observe_from_state(safe, assume, board, state, observer):
    """Update the observer's trackers of its opponent at the start of the observer's turn
    (before ``play_line``): its own last line and sonar answer, the opponent's summary and
    life, its own mines — exactly what a CodinGame program is shown or knows."""
    me = S.player_base(observer)
    opp = S.player_base(1 - observer)
    mines = np.empty(4, dtype=np.int64)
    for w in range(4):
        mines[w] = state[me + S.MINES_ACTIVE + w] | state[me + S.MINES_FRESH + w]
    own = state[me + S.SUMMARY:me + S.SUMMARY + 3 * MAX_LINE_ACTIONS]
    theirs = state[opp + S.SUMMARY:opp + S.SUMMARY + 3 * MAX_LINE_ACTIONS]
    observe_pair(safe, assume, board, own, state[me + S.SUMMARY_COUNT], state[me + S.SONAR_RESULT],
                 theirs, state[opp + S.SUMMARY_COUNT], max(state[opp + S.LIFE], 0), mines)


@kernel
def truth_of(state, board, tracker, target):
    """Index of the candidate state matching player ``target``'s true state, or -1."""
    base = S.player_base(target)
    mines = np.empty(4, dtype=np.int64)
    for w in range(4):
        mines[w] = state[base + S.MINES_ACTIVE + w] | state[base + S.MINES_FRESH + w]
    return truth_inside(tracker, board, state[base + S.CELL], state[base + S.VISITED:base + S.VISITED + 4], mines)


@kernel
def _audit_one(row, offset, tracker, board, state, target, probs, scratch):
    row[offset] = tracker[H_COUNT]
    row[offset + 1] = candidate_cells(tracker, scratch)
    row[offset + 2] = 1.0 if truth_of(state, board, tracker, target) >= 0 else 0.0
    cell_probabilities(tracker, probs)
    row[offset + 3] = probs[state[S.player_base(target) + S.CELL]]


@kernel
def audit_logged_game(board, log, log_counts, trackers, out):
    """Replay a game logged by ``_match.play_game`` and, at the start of every turn, update
    the active player's safe and assumption trackers (``trackers[2p]``, ``trackers[2p+1]``)
    and write out[t] (AU_* columns). Returns the number of turns."""
    state = _rules.new_state()
    _rules.start_game(state, board, log_counts[-2], 0, log_counts[-1], 0)
    for k in range(4):
        reset_tracker(trackers[k], board)
    probs = np.zeros(CELLS)
    scratch = np.zeros(CELLS, dtype=np.int64)
    no_trace = np.zeros((0, S.STATE_SIZE + 4), dtype=np.int64)
    t = 0
    while _rules.begin_turn(state):
        p = state[S.ACTIVE]
        safe = trackers[2 * p]
        assume = trackers[2 * p + 1]
        observe_from_state(safe, assume, board, state, p)
        row = out[t]
        row[AU_OBSERVER] = p
        _audit_one(row, AU_STATES_SAFE, safe, board, state, 1 - p, probs, scratch)
        _audit_one(row, AU_STATES_ASSUME, assume, board, state, 1 - p, probs, scratch)
        row[AU_COLLAPSES] = safe[H_COLLAPSES]
        row[AU_FALLBACKS] = assume[H_FALLBACKS]
        _rules.play_line(state, board, log[t], log_counts[t], no_trace)
        t += 1
    return t

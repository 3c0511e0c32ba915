"""The TD(lambda) update: it moves each evaluation toward its target (property test), keeps
the weights in their bounds, and learning games are pure functions of their seeds."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ocean.board import board_for_seed
from ocean.bots.td._features import win_rate
from ocean.bots.td._learn import td_errors, td_update
from ocean.bots.td._selfplay import OPPONENT_SELF, OPPONENT_V3, learn_games
from ocean.bots.td.coefficients import N_FEATURES

_FEATURE = st.floats(-3.0, 3.0, allow_nan=False)


def _value(w, row):
    return win_rate(float(np.dot(w, row)))


@settings(max_examples=200, deadline=None)
@given(w=arrays(np.float64, N_FEATURES, elements=st.floats(-2.0, 2.0)),
       row=arrays(np.float64, N_FEATURES, elements=_FEATURE),
       result=st.sampled_from([0.0, 0.5, 1.0]), lam=st.floats(0.0, 1.0))
def test_a_one_row_update_moves_the_evaluation_toward_the_result_without_passing_it(w, row, result, lam):
    rows = row[None, :].copy()
    before = _value(w, row)
    alpha = 0.5 / (1.0 + float(np.dot(row, row)))  # a step no larger than the error itself
    new = w.copy()
    td_update(new, rows, 1, result, alpha, lam, 100.0)
    after = _value(new, row)
    assert abs(result - after) <= abs(result - before) + 1e-12
    assert (after - before) * (result - before) >= 0.0
    if abs(result - before) > 1e-9 and np.dot(row, row) > 1e-6:  # the advantage itself moves (an error too
        # small to move a float64 advantage, like V = 1e-28 toward 0, moves nothing)
        assert (np.dot(new, row) - np.dot(w, row)) * (result - before) > 0.0


@settings(max_examples=100, deadline=None)
@given(w=arrays(np.float64, N_FEATURES, elements=st.floats(-1.0, 1.0)),
       rows=arrays(np.float64, (6, N_FEATURES), elements=_FEATURE), result=st.sampled_from([0.0, 1.0]))
def test_with_lambda_zero_each_row_moves_toward_the_next_rows_evaluation(w, rows, result):
    deltas = np.empty(6)
    td_errors(w, rows, 6, result, deltas)
    values = [_value(w, r) for r in rows]
    assert np.allclose(deltas, [*(np.array(values[1:]) - values[:-1]), result - values[-1]])
    # the update's direction is sum_t delta_t row_t: it raises every evaluation whose error is positive
    # when the rows are orthogonal (one feature each)
    eye = np.eye(N_FEATURES)[:6] * 2.0
    new = w.copy()
    td_errors(w, eye, 6, result, deltas)
    td_update(new, eye, 6, result, 0.05, 0.0, 100.0)
    for t in range(6):
        moved = _value(new, eye[t]) - _value(w, eye[t])
        assert moved * deltas[t] >= 0.0


def test_the_weights_stay_in_their_bounds():
    w = np.zeros(N_FEATURES)
    rows = np.ones((3, N_FEATURES)) * 5.0
    td_update(w, rows, 3, 1.0, 10.0, 0.9, 2.5)
    assert np.all(np.abs(w) <= 2.5) and w.max() == 2.5


def _learn(seeds, opponent, w):
    seeds = np.asarray(seeds, dtype=np.int64)
    boards = np.stack([board_for_seed(int(s)) for s in seeds])
    results = np.zeros((len(seeds), 4))
    turns = learn_games(boards, seeds, np.full(len(seeds), opponent, dtype=np.int64), w, 0.3, 0.02, 0.7, 20.0,
                        results)
    return turns, results


def test_learning_games_are_pure_functions_of_their_seeds_and_change_the_weights():
    w1 = np.zeros(N_FEATURES)
    w2 = np.zeros(N_FEATURES)
    t1, r1 = _learn([10**9 + 1, 10**9 + 2, 10**9 + 3], OPPONENT_SELF, w1)
    t2, r2 = _learn([10**9 + 1, 10**9 + 2, 10**9 + 3], OPPONENT_SELF, w2)
    assert t1 == t2 > 0 and np.array_equal(r1, r2) and np.array_equal(w1, w2)
    assert np.any(w1 != 0.0) and np.all(r1[:, 1] == -1)
    w3 = np.zeros(N_FEATURES)
    _, r3 = _learn([10**9 + 1, 10**9 + 2], OPPONENT_V3, w3)
    assert list(r3[:, 1]) == [1, 0]  # against v3 the learner's side alternates with the seed

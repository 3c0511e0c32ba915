"""The sequential pruning test on simulated trials: prunes the clearly worse early, almost
never prunes an equal trial however often it looks, never judges on too few pairs."""
import random

import pytest

from tuning.stats.pruning import TESTS, incumbent_bias, should_prune


def _scores(rng, p, seeds, luck):
    # pair score = map luck + strength, clipped; the same maps for both trials (shared seeds)
    out = {}
    for s in seeds:
        wins = sum(rng.random() < min(1.0, max(0.0, p + luck[s])) for _ in range(2))
        out[("opp", s)] = wins / 2
    return out


def _sequential(rng, p_trial, p_incumbent, *, pairs=200, batch=10, alpha=0.05, min_pairs=20, test="t"):
    """Play a trial batch by batch against a finished incumbent; the pairs played when pruned, or None."""
    seeds = list(range(pairs))
    luck = {s: rng.uniform(-0.3, 0.3) for s in seeds}
    incumbent = _scores(rng, p_incumbent, seeds, luck)
    trial = {}
    looks = pairs // batch
    for i in range(looks):
        trial.update(_scores(rng, p_trial, seeds[i * batch:(i + 1) * batch], luck))
        if should_prune(trial, incumbent, alpha=alpha, looks=looks, min_pairs=min_pairs, test=test).prune:
            return len(trial)
    return None


def test_a_clearly_worse_trial_is_pruned_early():
    rng = random.Random(5)
    stopped = [_sequential(rng, 0.25, 0.75) for _ in range(50)]
    assert all(s is not None for s in stopped)
    assert sum(stopped) / len(stopped) < 80  # far fewer than the 200 pairs of a full trial


def test_an_equal_trial_is_rarely_pruned_despite_repeated_looks():
    rng = random.Random(6)
    pruned = sum(_sequential(rng, 0.5, 0.5) is not None for _ in range(300))
    assert pruned / 300 <= 0.05


def test_a_better_trial_is_never_pruned():
    rng = random.Random(7)
    assert all(_sequential(rng, 0.7, 0.4) is None for _ in range(100))


def test_too_few_shared_pairs_never_prune_and_the_margin_protects_near_ties():
    worse = {("o", s): 0.0 for s in range(10)}
    best = {("o", s): 1.0 for s in range(10)}
    assert not should_prune(worse, best, alpha=0.05, looks=1, min_pairs=20).prune
    decision = should_prune(worse, best, alpha=0.05, looks=1, min_pairs=5)
    assert decision.prune and decision.pairs == 10 and decision.diff == -1.0
    slightly = {("o", s): 0.5 - (0.05 if s % 2 else 0.0) for s in range(100)}
    even = {("o", s): 0.5 for s in range(100)}
    assert should_prune(slightly, even, alpha=0.05, looks=1, min_pairs=20).prune
    assert not should_prune(slightly, even, alpha=0.05, looks=1, min_pairs=20, margin=0.05).prune
    disjoint = {("o", s + 1000): 0.0 for s in range(100)}
    assert should_prune(disjoint, best, alpha=0.05, looks=1, min_pairs=5).pairs == 0


@pytest.mark.parametrize("test", TESTS)
def test_every_test_prunes_the_clearly_worse_and_rarely_an_equal_trial(test):
    rng = random.Random(11)
    stopped = [_sequential(rng, 0.25, 0.75, test=test) for _ in range(40)]
    assert all(s is not None for s in stopped) and sum(stopped) / len(stopped) < 100
    pruned = sum(_sequential(rng, 0.5, 0.5, test=test) is not None for _ in range(200))
    assert pruned / 200 <= 0.05
    assert all(_sequential(rng, 0.7, 0.4, test=test) is None for _ in range(50))


def test_an_unknown_test_is_refused():
    with pytest.raises(ValueError, match="unknown pruning test 'z'"):
        should_prune({("o", s): 0.0 for s in range(5)}, {("o", s): 1.0 for s in range(5)}, alpha=0.05,
                     looks=1, min_pairs=2, test="z")


def test_the_incumbents_bias_is_the_noise_share_of_its_lead():
    scores = [0.4, 0.5, 0.6, 0.7, 0.8]  # spread (sample variance) 0.025
    assert incumbent_bias(scores, [0.0] * 5, 0.8) == 0.0  # no noise: the best is truly best
    assert incumbent_bias(scores, [0.0125] * 5, 0.8) == pytest.approx(0.5 * 0.2)
    assert incumbent_bias(scores, [1.0] * 5, 0.8) == pytest.approx(0.2)  # all noise: shrunk to the mean
    assert incumbent_bias(scores[:2], [1.0] * 2, 0.5) == 0.0  # too few trials to tell

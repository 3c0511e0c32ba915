"""The sequential pruning test on simulated trials: prunes the clearly worse early, almost
never prunes an equal trial however often it looks, never judges on too few pairs."""
import random

from tuning.pruning import should_prune


def _scores(rng, p, seeds, luck):
    # pair score = map luck + strength, clipped; the same maps for both trials (shared seeds)
    out = {}
    for s in seeds:
        wins = sum(rng.random() < min(1.0, max(0.0, p + luck[s])) for _ in range(2))
        out[("opp", s)] = wins / 2
    return out


def _sequential(rng, p_trial, p_incumbent, *, pairs=200, batch=10, alpha=0.05, min_pairs=20):
    """Play a trial batch by batch against a finished incumbent; the pairs played when pruned, or None."""
    seeds = list(range(pairs))
    luck = {s: rng.uniform(-0.3, 0.3) for s in seeds}
    incumbent = _scores(rng, p_incumbent, seeds, luck)
    trial = {}
    looks = pairs // batch
    for i in range(looks):
        trial.update(_scores(rng, p_trial, seeds[i * batch:(i + 1) * batch], luck))
        if should_prune(trial, incumbent, alpha=alpha, looks=looks, min_pairs=min_pairs).prune:
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

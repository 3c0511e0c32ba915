"""SPSA under pruning: when one trial of a pair is pruned, the later-told of the two carries both
trials' scores on the maps both played, recomputable from the stored games (real SQLite, fake pool)."""
from optuna.trial import TrialState

from ocean.bots import coefficients
from tests.tuning.fakes import FakePool, tiny_spec_dict
from tuning.driver.evaluation import summarize
from tuning.driver.runner import StudyRunner
from tuning.storage.handle import create_study
from tuning.study.spec import parse_spec
from tuning.study.spsa import COMMON

DEFAULT_SILENCE = coefficients.defaults()["silence_cost"]
OPPONENTS = ["random", "chaser"]


def test_a_pruned_pair_is_compared_on_the_maps_both_played(sqlite_url):
    spec = tiny_spec_dict(n_trials=9, trials_in_flight=1, seed_bank={"start": 100, "count": 30}, batch_pairs=3,
                          sampler={"kind": "spsa", "seed": 2, "perturbation": 0.5},
                          pruning={"enabled": True, "alpha": 0.05, "min_pairs": 6})
    handle = create_study(parse_spec(spec), sqlite_url)
    try:
        # a lower silence cost than the defaults' wins: the side of a pair above them is pruned
        StudyRunner(handle, pool=FakePool(capacity=1, p_win=lambda p: 0.8 if p["silence_cost"] <= DEFAULT_SILENCE
                                          else 0.2)).run()
        trials = {t.number: t for t in handle.trials()}
        checked = 0
        for plus in range(1, 9, 2):
            pair = [trials[plus], trials[plus + 1]]
            if TrialState.PRUNED not in {t.state for t in pair}:
                assert not any(COMMON in t.user_attrs for t in pair)  # both complete: values compare
                continue
            (later,) = [t for t in pair if COMMON in t.user_attrs]  # written once, by the later-told
            stored = {t.number: handle.games.pair_scores(t.number, "train") for t in pair}
            common = set(stored[plus]) & set(stored[plus + 1])
            want = {str(n): summarize({k: s[k] for k in common}, OPPONENTS)[0].mean for n, s in stored.items()}
            assert later.user_attrs[COMMON] == {"pairs": len(common), "scores": want}
            checked += 1
        assert checked >= 1
    finally:
        handle.close()

"""Leases and adoption on real databases: which running trials are orphans, claiming them,
reopening them from what is stored, and drivers adopting the trials of dead ones (with the fake
in-process pool)."""
import socket
import time

from optuna.trial import TrialState

from ocean.bots import coefficients
from tests.tuning.fakes import FakePool, InterruptingPool, dead_pid, fake_rows, tiny_spec_dict
from tuning.driver.leases import Leases
from tuning.driver.runner import StudyRunner
from tuning.storage.handle import create_study, open_study
from tuning.study.spec import parse_spec

DEFAULT_SILENCE = coefficients.defaults()["silence_cost"]


def _study(url, **overrides):
    return create_study(parse_spec(tiny_spec_dict(**overrides)), url)


def test_the_orphans_are_the_running_trials_whose_driver_is_gone(any_url):
    handle = _study(any_url, n_trials=6)
    try:
        trials = [handle.study.ask() for _ in range(6)]  # all RUNNING, none opened by a driver here
        games = handle.games
        assert games.claim(0, "elsewhere:1:alive", ttl=600)  # a live driver elsewhere: not an orphan
        assert games.claim(1, "elsewhere:2:late", ttl=-1)  # expired
        assert games.claim(2, f"{socket.gethostname()}:{dead_pid()}:gone", ttl=600)  # fresh, owner dead
        # 3: no lease at all (its driver died between creating and claiming it); 4: ours, open;
        # 5: no lease either, beyond the room
        leases = Leases(handle, "me:9:x", ttl=60)
        opened = {4}
        got = []
        for frozen in leases.orphans(opened, room=lambda: len(got) < 3):
            got.append(frozen.number)
        assert got == [1, 2, 3]
        owners = games.leases(t.number for t in trials)
        assert {n: o for n, (o, _) in owners.items()} == {0: "elsewhere:1:alive", 1: "me:9:x", 2: "me:9:x",
                                                          3: "me:9:x"}
        assert list(leases.orphans(opened, room=lambda: False)) == []
    finally:
        handle.close()


def test_a_trial_told_before_it_is_reopened_is_let_go(sqlite_url):
    handle = _study(sqlite_url, n_trials=1)
    try:
        trial = handle.study.ask()
        leases = Leases(handle, "me:9:x", ttl=60)
        (frozen,) = leases.orphans([], room=lambda: True)
        handle.study.tell(trial, 0.5)  # its own driver told it meanwhile
        assert leases.reopen(frozen, lambda trial_id, number: None) is None
        assert handle.games.leases([trial.number]) == {}
    finally:
        handle.close()


def test_a_trial_of_a_dead_driver_is_adopted_and_completed_from_its_stored_games(any_url):
    handle = _study(any_url, n_trials=1)
    try:
        trial = handle.study.ask(handle.space.distributions)
        dead = f"{socket.gethostname()}:{dead_pid()}:gone"
        assert handle.games.claim(trial.number, dead, ttl=600)  # a fresh lease, but its owner is dead
        params = handle.space.full_params(trial.params)
        handle.games.add_games(trial=0, phase="train", opponent="chaser",
                               rows=fake_rows(params, "chaser", [100, 101, 102, 103], 0.5), seconds=0.1)
        pool = FakePool()
        report = StudyRunner(handle, pool=pool).run()
        assert report.adopted == 1 and report.complete == 1
        assert {b.opponent.name for b in pool.submitted} == {"random"}  # only the missing games
        assert handle.games.count_games() == 16
        assert handle.trials()[0].state == TrialState.COMPLETE
    finally:
        handle.close()


def test_a_trial_whose_driver_died_before_storing_its_parameters_gets_them_on_adoption(any_url):
    # the driver stores a trial's parameters in one transaction after the sampler drew them all:
    # killed in between, it leaves a running trial with none
    handle = _study(any_url, n_trials=1)
    try:
        trial = handle.study.ask()
        assert trial.params == {}
        assert handle.games.claim(trial.number, f"{socket.gethostname()}:{dead_pid()}:gone", ttl=600)
        report = StudyRunner(handle, pool=FakePool()).run()
        assert report.adopted == 1 and report.complete == 1
        done = handle.trials()[0]
        assert done.state == TrialState.COMPLETE
        # the reference trial: every parameter, at the bot's defaults
        assert done.params == {"silence_cost": DEFAULT_SILENCE,
                               "stealth_weight": coefficients.defaults()["stealth_weight"]}
    finally:
        handle.close()


def test_a_trial_held_by_a_live_driver_is_waited_for_then_adopted_when_its_lease_expires(sqlite_url):
    handle = _study(sqlite_url, n_trials=1)
    try:
        trial = handle.study.ask(handle.space.distributions)
        assert handle.games.claim(trial.number, "elsewhere:1:alive", ttl=1.5)
        start = time.monotonic()
        report = StudyRunner(handle, pool=FakePool(), heartbeat=0.2).run()
        assert time.monotonic() - start >= 1.0  # it waited for the lease to run out
        assert report.adopted == 1 and handle.trials()[0].state == TrialState.COMPLETE
        assert len(handle.trials()) == 1  # no extra trial beyond the target
    finally:
        handle.close()


def test_a_trial_left_without_a_lease_and_half_its_parameters_is_completed(any_url):
    handle = _study(any_url, n_trials=2)
    try:
        StudyRunner(handle, pool=InterruptingPool(after=0, capacity=2)).run()  # trials 0 and 1 left running
        # as if a driver died inside study.ask: a trial with one of its two parameters stored
        handle.study.tell(handle.trials(TrialState.RUNNING)[1].number, state=TrialState.FAIL)
    finally:
        handle.close()
    handle = open_study("tiny", any_url)
    try:
        half = handle.study.ask()
        half.suggest_float("silence_cost", 0.0, 2.0)
        report = StudyRunner(handle, pool=FakePool()).run()
        assert report.adopted == 2  # trial 0 (released at the interruption) and the half-asked one
        done = {t.number: t for t in handle.trials()}
        assert len(done) == 3 and done[half.number].state == TrialState.COMPLETE
        assert set(done[half.number].params) == {"silence_cost", "stealth_weight"}
        assert done[half.number].params["silence_cost"] == half.params["silence_cost"]  # kept, not redrawn
    finally:
        handle.close()


def test_leases_left_on_finished_trials_are_cleared_and_a_lost_lease_is_reported(sqlite_url):
    handle = _study(sqlite_url, n_trials=1)
    try:
        StudyRunner(handle, pool=FakePool()).run()
        handle.games.claim(0, "somewhere:1:died-after-tell", ttl=600)  # a driver died before releasing
        assert handle.games.renew("other:2:x", [0], ttl=60) == set()  # not its lease
        assert handle.games.renew("somewhere:1:died-after-tell", [0], ttl=60) == {0}
        StudyRunner(handle, pool=FakePool()).run()
        assert handle.games.leases([0]) == {}
    finally:
        handle.close()


def test_a_trial_whose_driver_died_between_its_parameters_gets_the_undisturbed_draws(sqlite_url, tmp_path):
    from tuning.driver.runner import _suggest
    from tuning.study.samplers import make_sampler

    calm = _study(sqlite_url, n_trials=3)
    try:
        StudyRunner(calm, pool=FakePool(capacity=2)).run()
        want = calm.trials()[2].params
    finally:
        calm.close()
    handle = _study(f"sqlite:///{tmp_path}/died.db", n_trials=2)
    try:
        StudyRunner(handle, pool=FakePool(capacity=2)).run()
        handle.set_target(3)
        # as the runner creates trial 2, killed after storing its first parameter
        handle.study.sampler = make_sampler(handle.spec.sampler, handle.space, stream=2)
        half = handle.study.ask()
        first, dist = next(iter(handle.space.distributions.items()))
        _suggest(half, first, dist)
        assert set(half.params) == {first}
        report = StudyRunner(handle, pool=FakePool(capacity=2)).run()
        assert report.adopted == 1
        assert handle.trials()[2].params == want  # the second parameter is not the first one's draw
    finally:
        handle.close()

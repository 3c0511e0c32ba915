"""The ask/tell driver on real databases with a fake in-process pool: targets, stored games,
pruning, failures, interruption, drivers side by side (adoption itself: test_leases.py)."""
import socket
import time
import warnings

import pytest
from optuna.trial import TrialState

from ocean.bots import coefficients
from tests.tuning.fakes import (
    FakePool, InterruptedMidWrite, InterruptingPool, SwallowingPool, dead_pid, fake_rows, tiny_spec_dict,
)
from tuning.driver.evaluation import summarize
from tuning.driver.runner import StudyRunner
from tuning.errors import TuningError
from tuning.storage.database import SQLITE_BUSY_SECONDS
from tuning.storage.handle import create_study, open_study
from tuning.study.spec import parse_spec

DEFAULT_SILENCE = coefficients.defaults()["silence_cost"]


def _study(url, **overrides):
    return create_study(parse_spec(tiny_spec_dict(**overrides)), url)


def test_a_study_runs_to_its_target_and_stores_every_game(any_url):
    handle = _study(any_url)
    try:
        pool = FakePool(capacity=3, p_win=lambda p: 0.2 + 0.2 * p["silence_cost"])
        progress = []
        report = StudyRunner(handle, pool=pool, progress=progress.append).run()
        trials = handle.trials()
        assert report.complete == 3 and [t.state for t in trials] == [TrialState.COMPLETE] * 3
        assert report.games == handle.games.count_games() == 3 * 2 * 4 * 2
        assert trials[0].user_attrs["reference"] == "defaults"
        assert trials[0].params == {"silence_cost": DEFAULT_SILENCE,
                                    "stealth_weight": coefficients.defaults()["stealth_weight"]}
        for t in trials:
            scores = handle.games.pair_scores(t.number, "train")
            estimate, per = summarize(scores, ["random", "chaser"])
            assert t.value == pytest.approx(estimate.mean)
            assert t.user_attrs["score_low"] <= t.value <= t.user_attrs["score_high"]
            assert set(t.user_attrs["per_opponent"]) == {"random", "chaser"}
            assert t.user_attrs["games"] == 16 and t.user_attrs["storage_seconds"] > 0
            assert t.intermediate_values  # running score reported after each batch
        assert handle.games.leases(range(3)) == {}  # every lease released
        assert progress[-1].trials_done == 3 and progress[-1].games_done == 48
    finally:
        handle.close()


def test_batches_alternate_opponents_and_every_trial_plays_the_same_seeds(sqlite_url):
    handle = _study(sqlite_url)
    try:
        pool = FakePool(capacity=2)
        StudyRunner(handle, pool=pool).run()
        first = [b for b in pool.submitted if b.trial == 0]
        assert [b.opponent.name for b in first] == ["random", "chaser", "random", "chaser"]
        for number in range(3):
            assert sorted(s for b in pool.submitted if b.trial == number for s in b.seeds) == [100, 100, 101, 101,
                                                                                                102, 102, 103, 103]
    finally:
        handle.close()


def test_clearly_worse_trials_are_pruned_and_their_saved_games_counted(any_url):
    handle = _study(any_url, n_trials=4, seed_bank={"start": 100, "count": 40}, batch_pairs=5,
                    pruning={"enabled": True, "alpha": 0.05, "min_pairs": 10})
    try:
        pool = FakePool(capacity=2, p_win=lambda p: 0.95 if p["silence_cost"] == DEFAULT_SILENCE else 0.05)
        report = StudyRunner(handle, pool=pool).run()
        pruned = handle.trials(TrialState.PRUNED)
        assert [t.number for t in handle.trials(TrialState.COMPLETE)] == [0]
        assert len(pruned) == 3 and report.pruned == 3
        full = 2 * 40 * 2
        for t in pruned:
            played = handle.games.games_by_trial("train")[t.number]
            assert t.user_attrs["games_saved"] == full - t.user_attrs["games"] > 0
            assert played >= t.user_attrs["games"]  # late batches may still land; they are stored
            assert t.user_attrs["pruned_against"]["incumbent"] == 0
            assert t.user_attrs["pruned_against"]["p_value"] < 0.05
        assert report.games_saved == sum(t.user_attrs["games_saved"] for t in pruned)
        assert set(pool.cancelled) == {t.number for t in pruned}
    finally:
        handle.close()


def test_the_reference_trial_is_never_pruned(sqlite_url):
    handle = _study(sqlite_url, n_trials=2, seed_bank={"start": 100, "count": 40}, batch_pairs=5,
                    pruning={"enabled": True, "min_pairs": 4})
    try:
        reference = handle.study.ask(handle.space.distributions)  # trial 0, left RUNNING with no lease
        strong = handle.study.ask(handle.space.distributions)
        params = handle.space.full_params(strong.params)
        for opponent in ("random", "chaser"):
            handle.games.add_games(trial=strong.number, phase="train", opponent=opponent, seconds=0.1,
                                   rows=fake_rows(params, opponent, range(100, 140), 0.95))
        handle.study.tell(strong, 0.95)
        pool = FakePool(capacity=2, p_win=lambda p: 0.05)  # the defaults play far worse than the incumbent
        report = StudyRunner(handle, pool=pool).run()
        assert report.adopted == 1 and report.pruned == 0
        assert handle.trials()[reference.number].state == TrialState.COMPLETE
        assert handle.trials()[reference.number].value < 0.2
    finally:
        handle.close()


def test_a_failing_batch_fails_its_trial_and_three_in_a_row_stop_the_run(sqlite_url, tmp_path):
    handle = _study(sqlite_url)
    try:
        report = StudyRunner(handle, pool=FakePool(fail_trials={1})).run()
        states = {t.number: t.state for t in handle.trials()}
        assert states == {0: TrialState.COMPLETE, 1: TrialState.FAIL, 2: TrialState.COMPLETE}
        assert report.failed == 1
        assert handle.trials(TrialState.FAIL)[0].user_attrs["error"] == "ValueError: bad kernel"
    finally:
        handle.close()
    handle = _study(f"sqlite:///{tmp_path}/b.db", n_trials=5, trials_in_flight=1)
    try:
        with pytest.raises(TuningError, match="3 trials in a row failed; the last: ValueError: bad kernel"):
            StudyRunner(handle, pool=FakePool(fail_trials={0, 1, 2, 3, 4})).run()
    finally:
        handle.close()


def test_an_interrupted_run_is_finished_by_resume_without_replaying_stored_games(any_url):
    handle = _study(any_url, n_trials=3)
    try:
        report = StudyRunner(handle, pool=InterruptingPool(after=5, capacity=2)).run()
        assert report.interrupted
        stored = handle.games.count_games()
        running = len(handle.trials(TrialState.RUNNING))
        done = len(handle.trials(TrialState.COMPLETE))
        assert stored == 5 * 4 and running == 2 and done == 1
        assert handle.games.leases(range(3)) == {}  # released: resume adopts at once
    finally:
        handle.close()
    handle = open_study("tiny", any_url)
    try:
        pool = FakePool(capacity=2)
        report = StudyRunner(handle, pool=pool).run()
        assert report.adopted == running and report.complete == 3 - done
        assert [t.state for t in handle.trials()] == [TrialState.COMPLETE] * 3
        assert handle.games.count_games() == 3 * 16 and report.games == 3 * 16 - stored
        assert sum(b.games for b in pool.submitted) == 3 * 16 - stored
    finally:
        handle.close()


def test_a_ctrl_c_in_the_middle_of_a_write_stops_at_once_and_releases_the_leases(any_url):
    """The interrupted write's session still holds the database's lock when the driver stops:
    the driver lets it go before releasing its leases, instead of waiting on that lock (SQLite's
    busy timeout is a minute) or leaving the leases to expire."""
    handle = _study(any_url, n_trials=3)
    try:
        started = time.monotonic()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing said about the connection let go
            report = StudyRunner(handle, pool=InterruptedMidWrite(handle.storage.engine, after=5, capacity=2)).run()
        assert report.interrupted and time.monotonic() - started < SQLITE_BUSY_SECONDS / 2
        assert len(handle.trials(TrialState.RUNNING)) == 2
        assert handle.games.leases(range(3)) == {}
    finally:
        handle.close()


def test_a_ctrl_c_whose_interrupt_python_dropped_still_stops_the_driver(sqlite_url, ctrl_c_reaches_python):
    handle = _study(sqlite_url, n_trials=3)
    try:
        report = StudyRunner(handle, pool=SwallowingPool(after=3, capacity=2)).run()
        assert report.interrupted and len(handle.trials(TrialState.RUNNING)) >= 1
        assert handle.games.leases(range(3)) == {}
    finally:
        handle.close()


def test_a_database_password_never_lands_in_the_database(pg_url):
    import sqlalchemy as sa

    # trust authentication accepts any password, so a URL with one still connects
    with_password = sa.make_url(pg_url).set(password="hunter2-secret").render_as_string(hide_password=False)
    handle = create_study(parse_spec(tiny_spec_dict(storage=with_password)), with_password)
    try:
        StudyRunner(handle, pool=FakePool()).run()
        assert handle.storage.masked.count("***") == 1
        engine = handle.storage.engine
        dumped = []
        with engine.connect() as conn:
            for table in sa.inspect(engine).get_table_names():
                dumped += [repr(tuple(row)) for row in conn.execute(sa.text(f'SELECT * FROM "{table}"'))]
        assert dumped and not any("hunter2" in row for row in dumped)
    finally:
        handle.close()


# --- crash safety: several drivers, half-done work, database outages -----------------------------

def test_drivers_side_by_side_create_exactly_the_target_and_share_the_work(any_url):
    import threading

    _study(any_url, n_trials=5).close()
    reports, errors = [], []

    def drive():
        handle = open_study("tiny", any_url)
        try:
            reports.append(StudyRunner(handle, pool=FakePool(capacity=2), heartbeat=0.2).run())
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        finally:
            handle.close()

    threads = [threading.Thread(target=drive) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert errors == [] and len(reports) == 3
    handle = open_study("tiny", any_url)
    try:
        assert [t.number for t in handle.trials()] == [0, 1, 2, 3, 4]  # never one too many
        assert all(t.state == TrialState.COMPLETE for t in handle.trials())
        assert sum(r.complete for r in reports) == 5 and handle.games.count_games() == 5 * 16
    finally:
        handle.close()


def test_trial_n_gets_the_same_parameters_however_often_the_study_was_interrupted(sqlite_url, tmp_path):
    calm = _study(sqlite_url, n_trials=5)
    try:
        StudyRunner(calm, pool=FakePool(capacity=2)).run()
        want = [t.params for t in calm.trials()]
    finally:
        calm.close()
    url = f"sqlite:///{tmp_path}/bumpy.db"
    _study(url, n_trials=5).close()
    for after in (2, 3, 4, 1000):  # interrupted three times, then finished
        handle = open_study("tiny", url)
        try:
            StudyRunner(handle, pool=InterruptingPool(after=after, capacity=2)).run()
        finally:
            handle.close()
    handle = open_study("tiny", url)
    try:
        assert [t.state for t in handle.trials()] == [TrialState.COMPLETE] * 5
        assert [t.params for t in handle.trials()] == want
        assert len({tuple(sorted(p.items())) for p in want}) == 5  # no proposal repeated after a resume
    finally:
        handle.close()


def test_study_locks_wait_for_live_holders_and_evict_dead_ones(sqlite_url):
    from tuning.storage.locks import hold

    handle = _study(sqlite_url)
    try:
        games = handle.games
        dead = f"{socket.gethostname()}:{dead_pid()}:gone"
        assert games.try_lock("ask", dead, ttl=600) == dead
        with hold(games, "ask", "me:1:a"):  # its holder is dead: taken at once
            assert games.try_lock("ask", "you:2:b", ttl=5) == "me:1:a"
        assert games.try_lock("ask", "elsewhere:3:alive", ttl=1.0) == "elsewhere:3:alive"
        start = time.monotonic()
        with hold(games, "ask", "me:1:a"):
            assert time.monotonic() - start >= 0.5  # waited for the live holder's lock to expire
        assert games.try_lock("ask", "you:2:b", ttl=5) == "you:2:b"  # released on leaving
    finally:
        handle.close()


def test_a_half_created_study_is_finished_by_resume_or_by_launch(sqlite_url, tmp_path):
    import optuna

    from tuning.storage.database import open_storage
    from tuning.storage.handle import ATTR_SPEC

    spec = parse_spec(tiny_spec_dict())
    store = open_storage(sqlite_url)  # a launch killed after storing the spec, before trial 0
    study = optuna.create_study(study_name="tiny", storage=store.optuna, direction="maximize")
    study.set_user_attr(ATTR_SPEC, spec.stored())
    store.close()
    handle = open_study("tiny", sqlite_url)
    try:
        assert handle.target_trials == 3 and [b.name for b in handle.panel] == ["random", "chaser"]
        assert handle.trials()[0].user_attrs["reference"] == "defaults"
        StudyRunner(handle, pool=FakePool()).run()
        assert [t.state for t in handle.trials()] == [TrialState.COMPLETE] * 3
    finally:
        handle.close()

    other = f"sqlite:///{tmp_path}/other.db"  # killed even earlier: no spec stored yet
    store = open_storage(other)
    optuna.create_study(study_name="tiny", storage=store.optuna, direction="maximize")
    store.close()
    with pytest.raises(TuningError, match="run the launch again with --or-resume"):
        open_study("tiny", other)
    handle = create_study(spec, other)  # launch finishes it
    try:
        assert len(handle.trials()) == 1 and handle.target_trials == 3
    finally:
        handle.close()
    from tuning.storage.handle import StudyExists

    with pytest.raises(StudyExists):
        create_study(spec, other)


def test_database_calls_ride_out_an_outage_with_backoff_and_log_it_once():
    import sqlalchemy as sa

    from tuning.errors import StorageError
    from tuning.storage.retry import Retry, is_transient

    down = sa.create_engine("postgresql+psycopg://lab:s3cret@127.0.0.1:1/x")

    def refused():
        with down.connect():
            pass

    try:
        refused()
    except sa.exc.OperationalError as exc:
        real_outage = exc
    assert is_transient(real_outage)
    lines, sleeps, calls = [], [], []

    def flaky():
        calls.append(1)
        if len(calls) <= 4:
            raise real_outage
        return "stored"

    retry = Retry("postgresql+psycopg://lab:s3cret@db:5432/ocean", name="tiny", patience=60, log=lines.append,
                  sleep=sleeps.append)
    assert retry.call(flaky) == "stored"
    assert sleeps == [0.5, 1.0, 2.0, 4.0]  # exponential backoff
    assert len(lines) == 2 and "unreachable" in lines[0] and "is back" in lines[1]
    assert all("s3cret" not in line and "lab:***@db" in line for line in lines)
    assert retry.call(lambda: retry.call(lambda: 7)) == 7  # nested calls are the outer one's

    with pytest.raises(sa.exc.IntegrityError):  # not an outage: never retried
        Retry("sqlite:///x.db", name="tiny", sleep=sleeps.append).call(
            lambda: (_ for _ in ()).throw(sa.exc.IntegrityError("INSERT", {}, Exception("dup"))))
    impatient = Retry("postgresql+psycopg://lab:s3cret@db:5432/ocean", name="tiny", patience=1.2,
                      log=lines.append, sleep=sleeps.append)
    with pytest.raises(StorageError) as info:
        impatient.call(refused)
    message = str(info.value)
    assert "\n" not in message and "s3cret" not in message and "tune resume tiny" in message
    down.dispose()


def test_a_bad_patience_setting_is_a_one_line_error(monkeypatch, sqlite_url):
    from tuning.storage.retry import patience_from_env

    monkeypatch.setenv("OCEAN_DB_PATIENCE", "soon")
    with pytest.raises(TuningError, match="OCEAN_DB_PATIENCE='soon': give the seconds"):
        patience_from_env()
    monkeypatch.setenv("OCEAN_DB_PATIENCE", "2.5")
    assert patience_from_env() == 2.5


def test_the_incumbents_selection_bias_is_taken_off_only_when_asked(tmp_path):
    pruned = {}
    for shrink in (False, True):
        handle = _study(f"sqlite:///{tmp_path}/s{shrink}.db", n_trials=14, trials_in_flight=1,
                        seed_bank={"start": 100, "count": 40}, batch_pairs=5,
                        pruning={"enabled": True, "alpha": 0.3, "min_pairs": 10, "shrink_incumbent": shrink})
        try:
            # strengths close together: noisy training scores, an incumbent chosen among near-equals
            StudyRunner(handle, pool=FakePool(capacity=1, p_win=lambda p: 0.45 + 0.03 * p["silence_cost"])).run()
            pruned[shrink] = [t.user_attrs["pruned_against"]["incumbent_bias"] for t in handle.trials(TrialState.PRUNED)]
        finally:
            handle.close()
    assert pruned[False] and set(pruned[False]) == {0.0}, "alpha 0.3 on near-equal trials prunes some, unshrunk"
    assert len(pruned[True]) < len(pruned[False])  # the same trials (seeded per number), a fairer incumbent
    assert all(b > 0.0 for b in pruned[True])


def test_auto_batches_follow_the_measured_game_speed_and_change_no_result(tmp_path):
    # Every map takes 0.25 s here: once timed, a batch is 4 maps (about a second). The games and
    # the trials' scores are those of the same study with fixed batches.
    runs = {}
    for setting in ("auto", 2):
        handle = _study(f"sqlite:///{tmp_path}/{setting}.db", n_trials=5, seed_bank={"start": 100, "count": 12},
                        batch_pairs=setting, pruning={"enabled": False})
        try:
            pool = FakePool(capacity=2, p_win=lambda p: 0.2 + 0.2 * p["silence_cost"], seconds_per_pair=0.25)
            StudyRunner(handle, pool=pool).run()
            runs[setting] = ({t.number: (t.params, t.value) for t in handle.trials()},
                             {(g.trial, g.opponent, g.seed, g.side, g.winner) for g in handle.games.games()})
            sizes = {n: max(len(b.seeds) for b in pool.submitted if b.trial == n) for n in range(5)}
            if setting == "auto":
                assert sizes[0] == sizes[1] == 10  # opened before any batch was timed
                assert all(sizes[n] == 4 for n in range(2, 5))
                assert handle.batch_pairs(500) == 4  # validation and a resume size from the stored games
            else:
                assert set(sizes.values()) == {2}
        finally:
            handle.close()
    assert runs["auto"] == runs[2]


class _AnotherDriverCompletes(FakePool):
    """A ``FakePool`` beside which another driver completes a strong trial (its games stored,
    then told) after the first batch."""

    def __init__(self, handle, **kw):
        super().__init__(**kw)
        self.handle = handle
        self.number = None

    def wait(self, timeout):
        out = super().wait(timeout)
        if self.number is None:
            h = self.handle
            trial = h.study.ask(h.space.distributions)
            rows = {name: fake_rows({"strong": 1}, name, h.spec.training_seeds(), 0.95) for name in ("random", "chaser")}
            h.games.add_batches([(trial.number, "train", name, r, 0.1) for name, r in rows.items()])
            scores = h.games.pair_scores(trial.number, "train")
            estimate, _ = summarize(scores, ["random", "chaser"])
            h.study.tell(trial, estimate.mean)
            self.number = trial.number
        return out


def test_every_driver_prunes_against_the_incumbent_as_stored(sqlite_url):
    handle = _study(sqlite_url, n_trials=6, trials_in_flight=1, seed_bank={"start": 100, "count": 30}, batch_pairs=3,
                    pruning={"enabled": True, "alpha": 0.05, "min_pairs": 6})
    try:
        pool = _AnotherDriverCompletes(handle, capacity=1)
        # A fake pool's whole study can finish within the second between two reads of the stored
        # incumbent: read it at every look, so the test does not depend on the machine's speed.
        report = StudyRunner(handle, pool=pool, incumbent_every=0.0).run()
        assert report.pruned > 0
        against = {t.user_attrs["pruned_against"]["incumbent"] for t in handle.trials(TrialState.PRUNED)}
        assert against == {pool.number}  # the other driver's trial, read from the study
    finally:
        handle.close()

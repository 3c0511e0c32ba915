"""Frozen bots are checked wherever they play: before a study (every node, ``check_on_this_node``)
and by the worker before its process's first game with one, which is how a Ray node that joins
later checks too; the driver turns a worker's refusal into one line (real engine, fake pool)."""
import dataclasses

import pytest
from optuna.trial import TrialState

from ocean.bots import Frozen, resolve_bot
from tests.tuning.fakes import FakePool, tiny_spec_dict
from tuning.driver.programs import check_on_this_node
from tuning.driver.runner import StudyRunner
from tuning.driver.worker import frozen_bot_problem, play_batch
from tuning.errors import FrozenBotChanged, TuningError
from tuning.storage.handle import create_study
from tuning.study.opponents import checked_bots, panel_from_json, panel_to_json
from tuning.study.spec import parse_spec


def _changed(name: str = "stealth-v1"):
    """A frozen panel bot whose coefficients are not the ones it was frozen with."""
    bot = resolve_bot(name)
    assert bot.frozen is not None
    params = dict(bot.params)
    key = sorted(params)[0]
    params[key] = params[key] * 1.5 + 0.1
    return dataclasses.replace(bot, params=params,
                               frozen=Frozen(bot.frozen.fingerprint, "0" * 16, "a panel file edited afterwards"))


def test_a_study_stores_its_frozen_opponents_marks_and_checks_them():
    bot = resolve_bot("stealth-v1")
    (back,) = panel_from_json(panel_to_json([bot]))
    assert back.frozen == bot.frozen  # a resumed study checks the same marks
    spec = parse_spec(tiny_spec_dict(panel=["random", "stealth-v1"]))
    assert [b.name for b in checked_bots(spec, [resolve_bot("random"), bot], None)] == ["stealth-v1"]


def test_the_check_before_a_study_names_the_node_and_the_bot_in_one_line():
    assert check_on_this_node([resolve_bot("stealth-v1")]) == []
    (problem,) = check_on_this_node([_changed()])
    assert problem.startswith("node ") and "'stealth-v1'" in problem and "\n" not in problem


def test_a_worker_refuses_a_changed_frozen_opponent_before_its_first_game():
    with pytest.raises(FrozenBotChanged) as info:
        play_batch({}, _changed(), [1, 2], trial=3)
    assert "'stealth-v1'" in str(info.value) and "\n" not in str(info.value)
    assert frozen_bot_problem(info.value) == str(info.value)
    assert frozen_bot_problem(RuntimeError("engine exploded")) is None


class _ChangedOnANewNode(FakePool):
    """A pool one of whose workers finds a frozen opponent changed (a node that joined later)."""

    def wait(self, timeout):
        out = super().wait(timeout)
        if out and out[0][0].trial == 1:
            return [(out[0][0], FrozenBotChanged("node late-node: frozen bot 'chaser-x' has other coefficients"))]
        return out


@pytest.mark.drill
def test_the_driver_stops_with_the_workers_one_line_and_the_study_stays_resumable(sqlite_url):
    handle = create_study(parse_spec(tiny_spec_dict(n_trials=3, trials_in_flight=1)), sqlite_url)
    try:
        with pytest.raises(TuningError, match=r"^node late-node: frozen bot 'chaser-x' has other coefficients$"):
            StudyRunner(handle, pool=_ChangedOnANewNode(capacity=1)).run()
        states = [t.state for t in handle.trials()]
        assert states[0] == TrialState.COMPLETE and TrialState.FAIL not in states  # no trial blamed
        report = StudyRunner(handle, pool=FakePool(capacity=1)).run()  # fixed: resume carries on
        assert [t.state for t in handle.trials()] == [TrialState.COMPLETE] * 3 and report.adopted == 1
    finally:
        handle.close()


def test_a_refusal_on_a_ray_worker_reaches_the_driver_as_its_one_line(ray_cluster):
    import ray

    from tuning.driver.evaluation import Batch
    from tuning.driver.pool import BatchPool

    pool = BatchPool(1)
    pool.submit(Batch(trial=1, phase="train", opponent=_changed(), seeds=(1, 2)), {})
    ready = []
    while not ready:
        ready = pool.wait(timeout=60)
    ((_, error),) = ready
    assert isinstance(error, ray.exceptions.RayError)
    line = frozen_bot_problem(error)
    assert line is not None and line.startswith("node ") and "'stealth-v1'" in line and "\n" not in line


def _moved(name: str = "stealth-v1"):
    """A frozen panel bot whose marks no longer match what it plays (its lines changed)."""
    bot = resolve_bot(name)
    return dataclasses.replace(bot, frozen=Frozen("0" * 16, None, "a panel bot whose code changed"))


def test_a_frozen_bot_renamed_for_a_batch_keeps_its_marks_and_other_values_drop_them():
    # issue 32: with_params dropped the marks, so a test's frozen in-process bot was never checked
    bot = resolve_bot("stealth-v1")
    assert bot.with_params(dict(bot.params), name="trial-0").frozen == bot.frozen
    other = {**bot.params, sorted(bot.params)[0]: 0.123}
    assert bot.with_params(other).frozen is None  # other values: another bot, which nothing froze


def test_a_worker_refuses_a_changed_frozen_bot_under_test():
    # a tune test's new or base bot plays as the batch's bot, with its own values
    with pytest.raises(FrozenBotChanged) as info:
        play_batch(dict(_moved().params), resolve_bot("random"), [1, 2], trial=0, phase="test", bot=_moved())
    assert "'trial-0'" in str(info.value) and "\n" not in str(info.value)


def test_a_tests_check_before_it_plays_covers_its_frozen_in_process_bots():
    from tuning.study.testspec import TestOptions, build_spec

    spec = build_spec("t", TestOptions(new="stealth-v1", base="random", panel="hunter-v1,chaser"))
    assert [b.name for b in spec.programs] == ["stealth-v1", "hunter-v1"]
    assert dataclasses.replace(spec, new=_moved()).programs[0].frozen.fingerprint == "0" * 16
    (problem,) = check_on_this_node(dataclasses.replace(spec, new=_moved()).programs)
    assert "'stealth-v1'" in problem and "\n" not in problem

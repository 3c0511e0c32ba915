"""``tune test``'s definition, verdict and driver: the verdict is a function of the stored games
alone (batches stored out of order, by another driver, beyond the verdict change nothing), on a
real Ray and real SQLite and PostgreSQL databases."""
import re

import numpy as np
import pytest
import sqlalchemy as sa

from ocean.bots import resolve_bot
from ocean.match import play_pairs
from tuning.driver.bottest import MatchTally, Tally, TestRunner, bot_breakage, judge, read_prefix, tally_batch
from tuning.errors import SpecError, TuningError
from tuning.storage.records import GameRecord
from tuning.stats.sprt import Settings
from tuning.storage.teststore import PairRow, open_test
from tuning.study.testspec import (DEFAULT_SEED, IN_PROCESS_BATCH_PAIRS, TEST_PHASE, TestOptions, TestSpec, build_spec,
                             mismatches)

CHASER_VS_RANDOM = TestOptions(new="chaser", base="random", elo1=40.0, batch_pairs=5, max_games=400)


def test_a_new_test_takes_the_defaults_and_round_trips_through_json():
    spec = build_spec("t", TestOptions(new="tunable-v3", base="tunable-v2"))
    assert (spec.settings, spec.seed, spec.batch_pairs) == (Settings(0.0, 5.0, 0.05, 0.05, False), DEFAULT_SEED,
                                                            IN_PROCESS_BATCH_PAIRS)
    assert (spec.turn_ms, spec.first_turn_ms, spec.time_scale) == (50, 1000, 1.0)
    assert spec.games_per_batch == 100 and spec.max_batches == 1000 and not spec.gauntlet
    assert TestSpec.from_json("t", spec.to_json()) == spec
    g = build_spec("g", TestOptions(new="tunable-v3", base="tunable-v2", panel="random,chaser", batch_pairs=3))
    assert [o.name for o in g.opponents] == ["random", "chaser"] and g.games_per_batch == 3 * 2 * 2 * 2
    assert [(t, b.name, o.name) for t, b, o in g.matches()] == [
        (0, "tunable-v3", "random"), (1, "tunable-v2", "random"), (0, "tunable-v3", "chaser"),
        (1, "tunable-v2", "chaser")]
    assert [o.name for o in build_spec("p", TestOptions(new="random", base="chaser", panel="styles")).opponents] == \
        ["hunter-v1", "stealth-v1", "miner-v1", "balanced-v1"]


@pytest.mark.parametrize("options, words", [
    (TestOptions(new="tunable-v9", base="random"), "--new: unknown bot 'tunable-v9'"),
    (TestOptions(new="random"), "a new test needs --base"),
    (TestOptions(new="random", base="chaser", panel="nowhere"), "'nowhere' is neither a panel"),
    (TestOptions(new="random", base="chaser", elo0=3, elo1=3), "elo1 must be above elo0"),
    (TestOptions(new="random", base="chaser", alpha=0.7), "alpha must be between 0 and 0.5"),
    (TestOptions(new="random", base="chaser", max_games=50), "--max-games 50 is less than one batch"),
    (TestOptions(new="random", base="chaser", time_scale=0.0), "--time-scale must be above 0"),
    (TestOptions(new="random", base="chaser", time_scale=101.0), "--time-scale must be above 0 and at most 100, got 101"),
    (TestOptions(new="random", base="chaser", machine_scale=0.0), "--machine-scale must be above 0"),
    (TestOptions(new="random", base="chaser", machine_scale=float("nan")), "--machine-scale must be above 0"),
    (TestOptions(new="random", base="chaser", seed=2**63 - 10), "past the signed 64-bit range"),
    # the ratio is NaN past about 232 nElo: such a test ran to its maximum without a word (issue 32)
    (TestOptions(new="random", base="chaser", elo1=400, normalized=True), "cannot be computed past 232 normalized"),
    (TestOptions(new="random", base="chaser", elo0=-300, elo1=10, normalized=True), "cannot be computed past 232"),
    (TestOptions(new="random", base="chaser", panel="random", elo1=250, normalized=True), "past 243 normalized"),
])
def test_bad_options_are_one_line_errors(options, words):
    with pytest.raises(SpecError, match=words):
        build_spec("t", options)


def test_a_test_enforces_a_studys_limits_with_machine_scale_beside_time_scale():
    # issue 49: a study's limits are its times x timeout_scale x machine_scale, each up to 100; a
    # test had only --time-scale (at most 100) and could not play at a busy machine's study's limits
    from tuning.study.spec import parse_spec
    from tests.tuning.fakes import tiny_spec_dict

    study = parse_spec({**tiny_spec_dict(), "timeout_scale": 20.0,
                        "time": {"turn_ms": 5, "first_turn_ms": 1000, "machine_scale": 50.0}})
    spec = build_spec("t", TestOptions(new="random", base="chaser", turn_ms=5, time_scale=20.0, machine_scale=50.0))
    assert spec.time_control == study.time_control
    assert (spec.time_control.turn_limit_ms, spec.time_control.first_limit_ms) == (5000, 1_000_000)
    assert TestSpec.from_json("t", spec.to_json()) == spec
    assert spec.to_json()["machine_scale"] == 50.0
    plain = build_spec("t", TestOptions(new="random", base="chaser"))
    assert "machine_scale" not in plain.to_json()  # the form stored before the option
    assert TestSpec.from_json("t", plain.to_json()).machine_scale == 1.0
    assert mismatches(spec, TestOptions(machine_scale=2.0)) == ["--machine-scale 2 (the test has 50)"]


def test_a_resume_names_every_option_that_differs():
    spec = build_spec("t", TestOptions(new="tunable-v3", base="tunable-v2"))
    assert mismatches(spec, TestOptions(new="tunable-v3", base="tunable-v2", elo1=5.0, normalized=False)) == []
    assert mismatches(spec, TestOptions(base="tunable-v1", elo1=3, normalized=True, panel="random")) == [
        "--base tunable-v1 (the test has tunable-v2)", "--panel random (the test has no panel: head to head)",
        "--elo1 3 (the test has 5)", "--normalized (the test's bounds are logistic Elo)"]


def _pairs(spec, batch, score=2.0):
    return {(t, o.name, s): PairRow(score, 0, 0, 0) for t, _, o in spec.matches() for s in spec.seeds(batch)}


def test_the_verdict_reads_only_the_complete_batches_from_the_first_and_stops_at_the_first_crossing():
    spec = build_spec("t", TestOptions(new="chaser", base="random", elo1=40.0, batch_pairs=4, max_games=400))
    pairs = {k: v for b in (0, *range(2, 12)) for k, v in _pairs(spec, b).items()}  # batch 1 missing
    tallies, _ = read_prefix_of(spec, pairs)
    assert len(tallies) == 1 and judge(spec, tallies).result is None
    pairs.update(_pairs(spec, 1))
    tallies, _ = read_prefix_of(spec, pairs)
    verdict = judge(spec, tallies)
    assert len(tallies) == 12 and verdict.result == "H1"
    # the first batch at which the ratio crossed decides, whatever came after it
    assert verdict.batches == 7 and verdict.history[-2][1] < 2.944 <= verdict.history[-1][1]
    assert verdict.games == verdict.batches * spec.games_per_batch == 56
    half = {k: PairRow(1.0, 0, 0, 0) for k in pairs}  # every pair split: evidence of equal bots
    tallies, _ = read_prefix_of(spec, half)
    assert judge(spec, tallies).result == "H0" and judge(spec, tallies).batches == 7


def read_prefix_of(spec, pairs):
    """``read_prefix`` on pairs in memory."""
    tallies = []
    batch = 0
    while batch < spec.max_batches:
        t = tally_batch(spec, pairs, batch)
        if t is None:
            break
        tallies.append(t)
        batch += 1
    return tallies, pairs


def test_max_games_is_a_verdict_when_no_bound_is_reached():
    spec = build_spec("t", TestOptions(new="chaser", base="random", batch_pairs=2, max_games=12))
    tally = Tally(np.array([1, 0, 2, 0, 1]), {}, {})
    assert spec.max_batches == 3
    assert judge(spec, [tally] * 2).result is None
    verdict = judge(spec, [tally] * 5)
    assert verdict.result == "max" and verdict.batches == 3 and verdict.games == 12


def test_a_tested_bot_failing_in_more_games_than_a_run_accepts_stops_the_test():
    # the rule a study's opponents are held to (tuning.driver.faults): above 30% of at least 40 games
    from tuning.driver.faults import FAULT_MIN_GAMES, FAULT_SHARE

    spec = build_spec("t", TestOptions(new="chaser", base="random", batch_pairs=5))

    def tally(errors, opponent_errors, games=FAULT_MIN_GAMES, key=(0, "random")):
        return Tally(np.zeros(5), {key: MatchTally(wins=0, losses=games, errors=errors,
                                                   opponent_errors=opponent_errors)}, {})

    over = int(FAULT_SHARE * FAULT_MIN_GAMES) + 1
    assert bot_breakage(spec, [tally(0, over)]) == ("base", 0, over, FAULT_MIN_GAMES, "b")
    assert bot_breakage(spec, [tally(over, over)]) == ("new", 0, over, FAULT_MIN_GAMES, "a")  # the new bot first
    assert bot_breakage(spec, [tally(over - 1, over - 1)]) is None  # at the share, not above it
    assert bot_breakage(spec, [tally(30, 30, games=FAULT_MIN_GAMES - 2)]) is None  # too few games to judge
    # summed over the batches
    assert bot_breakage(spec, [tally(0, over), tally(0, 0)]) is None
    assert bot_breakage(spec, [tally(0, over), tally(0, over)]) == ("base", 0, 2 * over, 2 * FAULT_MIN_GAMES, "b")
    # a gauntlet: the base bot's games are trial 1's, its failures side a's
    g = build_spec("g", TestOptions(new="chaser", base="random", panel="random", batch_pairs=5))
    assert bot_breakage(g, [tally(over, 0, key=(1, "random"))]) == ("base", 1, over, FAULT_MIN_GAMES, "a")
    assert bot_breakage(g, [tally(0, over, key=(1, "random"))]) is None  # the opponent's: not a tested bot's


def _store_batch(handle, batch):
    """Play and store one batch as another driver would (the real games)."""
    spec = handle.spec
    for trial, bot, opponent in spec.matches():
        rows = play_pairs(bot, opponent, spec.seeds(batch)).rows()
        handle.store.games.add_batches([(trial, TEST_PHASE, opponent.name, rows, 0.01)])


def _run(url, options=CHASER_VS_RANDOM, name="t", **kwargs):
    handle = open_test(name, url, options)
    try:
        run = TestRunner(handle, **kwargs).run()
        return handle.spec, run, read_prefix(handle)[0]
    finally:
        handle.close()


def test_the_driver_reaches_a_verdict_and_stores_each_game_once(ray_cluster, any_url):
    spec, run, tallies = _run(any_url)
    assert run.verdict.result == "H1" and not run.interrupted
    assert run.verdict.history[-1][1] >= spec.settings.bounds[1]
    engine = sa.create_engine(any_url)
    try:
        with engine.connect() as conn:
            g = GameRecord
            key = (g.trial, g.opponent, g.seed, g.side)
            # Batches still in flight at the verdict go on storing their games after run()
            # returns (by design: bottest.TestRunner._stop), so each figure is one statement:
            # two counts read one after the other could see different tables.
            total = conn.execute(sa.select(sa.func.count()).where(g.study == "t")).scalar()
            twice = conn.execute(sa.select(sa.func.count()).select_from(
                sa.select(*key).where(g.study == "t").group_by(*key).having(sa.func.count() > 1).subquery())).scalar()
            leases = conn.execute(sa.text("SELECT count(*) FROM ocean_trial_leases WHERE study = 't'")).scalar()
    finally:
        engine.dispose()
    assert twice == 0 and total >= run.verdict.games and leases == 0
    assert sum(int(t.counts.sum()) for t in tallies[:run.verdict.batches]) == run.verdict.units


def test_batches_stored_out_of_order_and_beyond_the_verdict_change_nothing(ray_cluster, sqlite_url, tmp_path):
    _, undisturbed, _ = _run(f"sqlite:///{tmp_path}/plain.db")
    handle = open_test("t", sqlite_url, CHASER_VS_RANDOM)
    try:
        for batch in (2, 1, 7, 30):  # another driver's batches, some far past where the test decides
            _store_batch(handle, batch)
        run = TestRunner(handle).run()
    finally:
        handle.close()
    assert (run.verdict.result, run.verdict.batches, run.verdict.llr) == \
        (undisturbed.verdict.result, undisturbed.verdict.batches, undisturbed.verdict.llr)
    assert np.array_equal(run.verdict.counts, undisturbed.verdict.counts)


def test_a_gauntlet_plays_both_bots_against_each_opponent_on_the_same_maps(ray_cluster, sqlite_url, tmp_path):
    from tuning.results.testreport import test_status, write_test_report

    options = TestOptions(new="chaser", base="random", panel="random,chaser", elo1=60.0, batch_pairs=3,
                          max_games=600)
    spec, run, tallies = _run(sqlite_url, options)
    assert run.verdict.result in ("H1", "H0", "max")
    assert set(tallies[0].matches) == {(0, "random"), (1, "random"), (0, "chaser"), (1, "chaser")}
    assert int(tallies[0].counts.sum()) == spec.units_per_batch == 6
    handle = open_test("t", sqlite_url)
    try:
        status = test_status(handle)
        written = write_test_report(handle, tmp_path / "g.html")
    finally:
        handle.close()
    rows = {r["opponent"]: r for r in status["per_opponent"]}
    assert set(rows) == {"random", "chaser"} and status["pairs"] == run.verdict.units
    # each bot's games against each opponent: the same maps and sides for both bots
    for r in rows.values():
        assert r["new"]["games"] == r["base"]["games"] == 2 * sum(r["difference"])
    assert sum(r["new"]["wins"] for r in rows.values()) == status["wdl"][0]
    # each bot's failures, by its own games (in-process bots never fail, and are not said to)
    failures = status["failures"]
    assert [(failures[r]["games"], failures[r]["failed"]) for r in ("new", "base")] == \
        [(sum(x["new"]["games"] for x in rows.values()), 0), (sum(x["base"]["games"] for x in rows.values()), 0)]
    assert failures["stop_share"] == 0.3 and "failures (a loss for the bot that failed)" in \
        (tmp_path / "g.html").read_text()
    assert [p.relative_to(tmp_path).as_posix() for p in written["pngs"]] == \
        ["g_figures/llr.png", "g_figures/elo.png", "g_figures/opponents.png"]
    assert 'id="opponents"' in (tmp_path / "g.html").read_text()
    # each bot's duel with each opponent, both sides, over every game stored (the counted ones at least)
    duel = status["duel"]
    assert set(duel) == {"0", "1"} and all(set(d) == {"random", "chaser"} for d in duel.values())
    for role, key in (("0", "new"), ("1", "base")):
        for opponent, d in duel[role].items():
            assert d["games"] >= rows[opponent][key]["games"]
            assert d["a"]["first_damage"] + d["b"]["first_damage"] <= 1.0
    assert duel["0"]["random"]["a"]["first_damage"] > duel["0"]["random"]["b"]["first_damage"]  # chaser hunts
    page = (tmp_path / "g.html").read_text()
    assert page.count("<td>new: chaser</td>") == page.count("<td>base: random</td>") == 2


def test_a_finished_test_plays_nothing_more(ray_cluster, sqlite_url):
    _, first, _ = _run(sqlite_url)
    _, again, _ = _run(sqlite_url, TestOptions())
    assert again.games == 0 and again.verdict.result == first.verdict.result
    assert again.verdict.batches == first.verdict.batches


def test_other_settings_for_a_stored_test_are_refused_in_one_line(sqlite_url):
    handle = open_test("t", sqlite_url, CHASER_VS_RANDOM)
    handle.close()
    with pytest.raises(TuningError, match=r"test 't' exists with other settings: --elo1 10 \(the test has 40\)"):
        open_test("t", sqlite_url, TestOptions(elo1=10.0))


def test_a_program_failing_in_more_games_than_a_run_accepts_stops_the_test_in_one_line(ray_cluster, sqlite_url):
    import sys
    from pathlib import Path

    flaky = Path(__file__).resolve().parents[2] / "programs" / "flaky.py"
    bot = f'cmd:"{sys.executable} {flaky} --seed {{game_seed}} --share {{share}} --fail crash"'
    # 20 maps a batch: the first batch is the 40 games the rule needs before it judges
    options = TestOptions(new=bot.replace("{share}", "100"), base=bot.replace("{share}", "0"), batch_pairs=20,
                          max_games=400, time_scale=20.0)
    with pytest.raises(TuningError) as stopped:
        _run(sqlite_url, options)
    line = str(stopped.value)
    # judged after each batch of 40 games: the first, or a later one when batches finish together
    told = re.match(rf"the new bot \({re.escape(options.new[5:-1])}\) failed in (\d+) of its (\d+) games of test "
                    r"'t' \(100%: crash (\d+); first: seed ", line)
    assert "\n" not in line and told and told[1] == told[2] == told[3] and int(told[1]) % 40 == 0, line
    assert "crashed, exit code 3" in line and "more than the 30% a test accepts" in line
    assert "--machine-scale" in line


def test_a_gauntlet_plays_again_the_games_its_opponent_fails_for_both_bots_and_stops_when_it_fails_too_often(
        ray_cluster, sqlite_url):
    # a gauntlet's opponents are neither tested bot: their failures are forgiven for both alike
    # (played again, then set aside), and one failing too often stops the test as it stops a study
    import sys
    from pathlib import Path

    flaky = Path(__file__).resolve().parents[2] / "programs" / "flaky.py"
    opponent = f'cmd:"{sys.executable} {flaky} --seed {{game_seed}} --share 100 --fail crash"'
    options = TestOptions(new="chaser", base="random", panel=opponent, batch_pairs=10, max_games=400,
                          time_scale=20.0)
    with pytest.raises(TuningError, match=r"^opponent .*flaky\.py.* lost 40 of 40 games to its clock or a crash "
                                          r"\(100%; first: seed 50000000\d\d: crashed, exit code 3"):
        _run(sqlite_url, options)
    engine = sa.create_engine(sqlite_url)
    try:
        with engine.connect() as conn:
            g = GameRecord
            rows = conn.execute(sa.select(g.trial, g.replays, g.set_aside, g.a_error)).all()
    finally:
        engine.dispose()
    assert rows and all(r.replays == 3 and r.set_aside for r in rows)  # whichever bot it played
    assert not any(r.a_error for r in rows)

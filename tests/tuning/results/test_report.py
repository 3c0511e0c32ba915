"""``tune report``: a real tiny study (real Ray, SQLite) through the CLI, its report checked
file by file and opened in a real headless Chromium."""
import re
import textwrap

import numpy as np
import pytest

from tests.browser import chromium_driver, console_errors
from tests.tuning.processes import last_json, run_tune as _tune

STUDY = textwrap.dedent("""
    name = "rep"
    n_trials = 7
    trials_in_flight = 2
    panel = ["random", "chaser"]
    seed_bank = { start = 300, count = 3 }
    batch_pairs = 1

    [sampler]
    kind = "random"
    seed = 3

    [search]
    silence_cost = {}
    retaliation_weight = {}

    [pruning]
    enabled = false   # every trial completes, so the importances always have enough trials

    [validation]
    seeds = { start = 9100, count = 4 }
    games = 4
    top_k = 2
""")
FIGURES = ("history", "importances", "slices", "opponents", "games", "throughput")


@pytest.fixture(scope="module")
def reported(tmp_path_factory, ray_cluster):
    work = tmp_path_factory.mktemp("report")
    (work / "rep.toml").write_text(STUDY)
    ray = ["--ray-address", ray_cluster]
    env_free = {"cwd": work}
    _tune("launch", "rep.toml", "--games", "6", *ray, **env_free)
    _tune("validate", "rep", *ray, **env_free)
    written = _tune("report", "rep", "--out", "report.html", **env_free)
    status = last_json(_tune("status", "rep", "--json", **env_free))
    return work, written, status


def test_the_report_writes_the_page_and_every_figure_as_a_non_blank_png(reported):
    import matplotlib.image

    work, written, _ = reported
    # the figures in a folder beside the page (a loop leaves one folder, not six files), and inside it
    assert written.stdout.startswith("report.html written, with 6 figures in report_figures/: history.png")
    assert written.stdout.strip().splitlines()[-1] == f"open it in a browser: {(work / 'report.html').resolve().as_uri()}"
    assert not list(work.glob("report_*.png"))
    page = (work / "report.html").read_text()
    assert "http://" not in page and "https://" not in page  # nothing to fetch: opens offline
    # the page is tuning/data/report_template.html (package data) with every placeholder filled
    assert page.startswith("<!DOCTYPE html>") and "<h1>Study <code>rep</code></h1>" in page
    assert not re.search(r"__[A-Z_]+__", page)
    assert page.count('<img src="data:image/png;base64,') == len(FIGURES)
    for name in FIGURES:
        pixels = matplotlib.image.imread(work / "report_figures" / f"{name}.png")
        assert pixels.shape[0] > 100 and pixels.shape[1] > 100, name
        assert np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0).shape[0] > 20, f"{name} is blank"


def test_the_page_opens_in_chromium_with_every_figure_and_agrees_with_status(reported):
    from selenium.webdriver.common.by import By

    work, _, status = reported
    driver = chromium_driver()
    try:
        driver.get((work / "report.html").as_uri())
        images = driver.find_elements(By.TAG_NAME, "img")
        assert len(images) == len(FIGURES)
        assert all(driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", i) > 100
                   for i in images)
        assert console_errors(driver) == []
        shot = driver.get_screenshot_as_png()
        import io

        import matplotlib.image

        pixels = matplotlib.image.imread(io.BytesIO(shot), format="png")
        assert np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0).shape[0] > 50, "blank screenshot"

        summary = {row.find_element(By.TAG_NAME, "th").text: row.find_element(By.TAG_NAME, "td").text
                   for row in driver.find_elements(By.CSS_SELECTOR, "#summary tr")}
    finally:
        driver.quit()
    t = status["trials"]
    assert summary["trials"].startswith(f"{t['complete']} complete, {t['pruned']} pruned, {t['failed']} failed")
    best = status["best"]
    assert best["validated"]
    assert summary["best"].startswith(f"trial {best['trial']}: {best['score']:.3f} [{best['low']:.3f}, "
                                      f"{best['high']:.3f}] (validated")
    assert summary["verdict"].startswith("gain over the defaults" if best["verdict"] == "gain"
                                         else "no gain over the defaults shown")
    assert summary["games"].startswith(f"{status['games']['train']:,} training, {status['games']['validate']:,}")
    assert summary["games saved by pruning"].startswith(f"{status['games']['saved_by_pruning']:,} ")
    assert summary["panel"] == "random, chaser"
    assert summary["seed bank"] == status["seed_bank"] and summary["sampler"] == status["sampler"] == "random"

    from optuna.trial import TrialState

    from tuning.storage.handle import open_study

    handle = open_study("rep", f"sqlite:///{work}/studies/rep.db")
    try:  # the training best is read from Optuna directly, not through the report's own code
        top = max(handle.trials(TrialState.COMPLETE), key=lambda t: (t.value, -t.number))
    finally:
        handle.close()
    assert summary["best training score"] == (f"trial {top.number}: {top.value:.3f} "
                                              f"[{top.user_attrs['score_low']:.3f}, {top.user_attrs['score_high']:.3f}]")


@pytest.mark.parametrize("args, words", [
    (["nosuch", "--out", "r.html"], "nosuch"),
    (["rep", "--out", "missing/r.html"], "does not exist"),
    (["rep", "--out", "r.png"], "must name an .html file"),
    (["rep", "--out", "folder.html"], "it is a folder"),
    (["rep", "--storage", "postgresql+psycopg://u:secret@127.0.0.1:1/x", "--out", "r.html"], "cannot open"),
])
def test_report_mistakes_are_one_line_with_exit_2(reported, args, words):
    work, _, _ = reported
    (work / "folder.html").mkdir(exist_ok=True)
    before = sorted(work.iterdir())
    result = _tune("report", *args, cwd=work, check=False)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in result.stderr
    assert "secret" not in result.stderr
    assert sorted(work.iterdir()) == before  # nothing drawn before the mistake was found


def _fake_study(url: str, **overrides):
    """A study run in-process on synthetic games (tests.tuning.fakes), for what a tiny real
    study cannot promise: trials that are pruned for sure."""
    from tests.tuning.fakes import tiny_spec_dict
    from tuning.storage.handle import create_study
    from tuning.study.spec import parse_spec

    return create_study(parse_spec(tiny_spec_dict(**overrides)), url)


def test_a_study_with_pruned_trials_and_too_few_complete_ones_says_so_on_the_page(tmp_path):
    from selenium.webdriver.common.by import By

    from ocean.bots import coefficients
    from tests.tuning.fakes import FakePool
    from tuning.driver.runner import StudyRunner

    url = f"sqlite:///{tmp_path}/fake.db"
    handle = _fake_study(url, name="fake", n_trials=4, seed_bank={"start": 100, "count": 40}, batch_pairs=5,
                         pruning={"enabled": True, "alpha": 0.05, "min_pairs": 10})
    default = coefficients.defaults()["silence_cost"]
    try:  # the defaults (trial 0) win, every other trial loses clearly and is pruned
        StudyRunner(handle, pool=FakePool(capacity=2, p_win=lambda p: 0.95 if p["silence_cost"] == default
                                          else 0.05), log=lambda line: None).run()
    finally:
        handle.close()
    status = last_json(_tune("status", "fake", "--storage", url, "--json", cwd=tmp_path))
    assert status["trials"]["pruned"] == 3 and status["games"]["saved_by_pruning"] > 0

    written = _tune("report", "fake", "--storage", url, "--out", "fake.html", cwd=tmp_path)
    assert "importances" not in written.stdout and "slices" not in written.stdout
    assert not (tmp_path / "fake_figures" / "importances.png").exists()
    driver = chromium_driver()
    try:
        driver.get((tmp_path / "fake.html").as_uri())
        images = driver.find_elements(By.TAG_NAME, "img")
        assert {i.get_attribute("alt") for i in images} == {
            "optimization history", "per-opponent scores", "per-game statistics", "games per second and games saved"}
        assert all(driver.execute_script("return arguments[0].naturalWidth", i) > 100 for i in images)
        assert console_errors(driver) == []
        text = driver.find_element(By.TAG_NAME, "body").text
        summary = {row.find_element(By.TAG_NAME, "th").text: row.find_element(By.TAG_NAME, "td").text
                   for row in driver.find_elements(By.CSS_SELECTOR, "#summary tr")}
    finally:
        driver.quit()
    assert "1 complete trials: at least 4 are needed" in text
    assert summary["trials"].startswith("1 complete, 3 pruned, 0 failed")
    saved = status["games"]["saved_by_pruning"]
    assert summary["games saved by pruning"].startswith(f"{saved:,} (")
    assert summary["best"].startswith(f"trial 0: {status['best']['score']:.3f}")
    assert summary["best training score"].startswith(f"trial 0: {status['best']['score']:.3f}")


def test_a_study_with_no_finished_trial_is_one_line_with_exit_2(tmp_path):
    url = f"sqlite:///{tmp_path}/empty.db"
    _fake_study(url, name="empty").close()  # created, trial 0 waiting, nothing played
    result = _tune("report", "empty", "--storage", url, "--out", "empty.html", cwd=tmp_path, check=False)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "error: study 'empty' has no finished trials yet (0 running, 0 failed): nothing to report; run it "
        "(tune resume empty) or try again once a trial has finished"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


def _defaults_lose(params):
    from ocean.bots import coefficients

    return 0.05 if params["silence_cost"] == coefficients.defaults()["silence_cost"] else 0.95


@pytest.mark.parametrize("p_win, line", [(_defaults_lose, "gain over the defaults: head to head "),
                                         (lambda p: 0.5, "no gain over the defaults shown")])
def test_the_page_states_the_verdict_and_the_defaults_as_validated(tmp_path, p_win, line):
    from tests.tuning.fakes import FakePool, tiny_spec_dict
    from tuning.driver.runner import StudyRunner
    from tuning.results.report import write_report
    from tuning.results.validation import validate_study
    from tuning.storage.handle import create_study
    from tuning.study.spec import parse_spec

    handle = create_study(parse_spec(tiny_spec_dict(n_trials=3, pruning={"enabled": False},
                                                    # maps enough for the head to head's SPRT to decide
                                                    validation={"seeds": {"start": 5000, "count": 230},
                                                                "games": 40, "top_k": 1})),
                          f"sqlite:///{tmp_path}/s.db")
    try:
        StudyRunner(handle, pool=FakePool(p_win=p_win)).run()
        validate_study(handle, pool=FakePool(p_win=p_win))
        write_report(handle, tmp_path / "r.html")
    finally:
        handle.close()
    rows = dict(re.findall(r"<tr><th>([^<]*)</th><td>([^<]*)</td>", (tmp_path / "r.html").read_text()))
    assert rows["verdict"].startswith(line) and "at 50 ms a turn" in rows["verdict"]
    assert rows["defaults (trial 0)"].endswith("(validated)")


def test_the_page_shows_the_duel_of_the_best_and_the_defaults_for_both_sides(tmp_path):
    # Synthetic games (tests.tuning.fakes): the study's bot fires 1 torpedo a game, 1 direct hit,
    # the opponent 2 and 2; each side takes 1 and 2 of each kind of damage; the winner dealt
    # the first damage. So every figure is known but the shares of first damage, read from the rows.
    import sqlalchemy as sa

    from tests.tuning.fakes import FakePool, tiny_spec_dict
    from tuning.driver.runner import StudyRunner
    from tuning.results.report import collect, write_report
    from tuning.results.validation import validate_study
    from tuning.storage.handle import create_study
    from tuning.storage.records import GameRecord
    from tuning.study.spec import parse_spec

    handle = create_study(parse_spec(tiny_spec_dict(n_trials=3, pruning={"enabled": False},
                                                    validation={"seeds": {"start": 5000, "count": 40},
                                                                "games": 20, "top_k": 1})),
                          f"sqlite:///{tmp_path}/s.db")
    try:
        StudyRunner(handle, pool=FakePool(p_win=_defaults_lose)).run()
        validate_study(handle, pool=FakePool(p_win=_defaults_lose))
        data = collect(handle)
        write_report(handle, tmp_path / "r.html")
        with handle.storage.engine.connect() as conn:
            g = GameRecord
            rows = conn.execute(sa.select(g.trial, g.opponent, g.winner).where(g.phase == "validate")).all()
    finally:
        handle.close()
    best = data.status["best"]["trial"]
    assert data.duel_phase == "validate" and {t for t, _ in data.duels} == {best, 0}
    for (trial, opponent), sides in data.duels.items():
        winners = [w for t, o, w in rows if (t, o) == (trial, opponent)]
        assert sides["games"] == len(winners) > 0
        a, b = sides["a"], sides["b"]
        assert a["first_damage"] == round(winners.count("a") / len(winners), 3)
        assert b["first_damage"] == round(winners.count("b") / len(winners), 3)
        assert (a["torpedoes"], a["direct_hit_rate"], a["damage_per_shot"], a["mine_damage_dealt"]) == (1.0, 1.0, 2.0, 2.0)
        assert (b["torpedoes"], b["direct_hit_rate"], b["damage_per_shot"], b["mine_damage_dealt"]) == (2.0, 1.0, 0.5, 1.0)
        assert a["surfaces_under_fire"] == 1.0 and b["surfaces_under_fire"] == 2.0
    page = (tmp_path / "r.html").read_text()
    table = page.split('<table id="duel">', 1)[1].split("</table>", 1)[0]
    assert "<th>first damage</th>" in table and "<th>surfaces under fire</th>" in table
    assert table.count("<tr>") == 1 + len(data.duels)
    assert table.index(f"<td>trial {best}</td>") < table.index("<td>trial 0</td>")  # the best first
    first = data.duels[(best, "random")]
    assert (f"<td>{first['a']['first_damage']:.3f} / {first['b']['first_damage']:.3f}</td>"
            "<td>") in table and "<td>2.000 / 0.500</td>" in table


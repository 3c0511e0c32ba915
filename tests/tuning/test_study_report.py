"""``tune report``: a real tiny study (real Ray, SQLite) through the CLI, its report checked
file by file and opened in a real headless Chromium."""
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
    assert written.stdout.startswith("report.html written, with 6 figures beside it")
    page = (work / "report.html").read_text()
    assert "http://" not in page and "https://" not in page  # nothing to fetch: opens offline
    for name in FIGURES:
        pixels = matplotlib.image.imread(work / f"report_{name}.png")
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
    assert summary["games"].startswith(f"{status['games']['train']:,} training, {status['games']['validate']:,}")
    assert summary["games saved by pruning"].startswith(f"{status['games']['saved_by_pruning']:,} ")
    assert summary["panel"] == "random, chaser"


@pytest.mark.parametrize("args, words", [
    (["nosuch", "--out", "r.html"], "nosuch"),
    (["rep", "--out", "missing/r.html"], "does not exist"),
    (["rep", "--out", "r.png"], "must name an .html file"),
])
def test_report_mistakes_are_one_line_with_exit_2(reported, args, words):
    work, _, _ = reported
    result = _tune("report", *args, cwd=work, check=False)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in result.stderr

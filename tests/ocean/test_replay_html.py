"""``ocean replay``: the HTML replay page, rendered by the real CLI from a real game and
driven in a real headless Chromium (Debian's chromium + chromium-driver, via Selenium)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ocean.replay import load_replay
from ocean.replay_html import render_replay_html
from tests.browser import CHROMIUM, MISSING, chromium_driver

needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)

# The whole canvas as (number of distinct colours, a fingerprint of every pixel).
CANVAS_PIXELS_JS = """
const c = document.getElementById('board');
const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
const seen = new Set();
let h = 0;
for (let i = 0; i < d.length; i += 4) {
  const v = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2];
  seen.add(v);
  h = (Math.imul(h, 31) + v + d[i + 3]) | 0;
}
return [seen.size, h];
"""


def _ocean(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ocean", *args], capture_output=True, text=True, check=check)


def _render_with_cli(replay: Path, out: Path) -> Path:
    result = _ocean("replay", str(replay), "--out", str(out))
    assert result.stdout.strip() == str(out)
    assert result.stderr.strip().splitlines()[-1] == f"open it in a browser: {out.resolve().as_uri()}"
    return out


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory) -> Path:
    # Seed 3, random vs chaser: 48 turns with torpedoes, a mine and a surface.
    path = tmp_path_factory.mktemp("replay") / "game.json"
    _ocean("play", "--seed", "3", "--replay", str(path))
    return path


@pytest.fixture(scope="module")
def page(replay_file) -> Path:
    return _render_with_cli(replay_file, replay_file.with_name("page.html"))


@pytest.fixture(scope="module")
def browser():
    driver = chromium_driver()
    yield driver
    driver.quit()


def _open(browser, path: Path):
    browser.get(path.as_uri())
    return browser


def _canvas(browser) -> tuple[int, int]:
    colours, fingerprint = browser.execute_script(CANVAS_PIXELS_JS)
    return colours, fingerprint


def _set_slider(browser, value) -> None:
    browser.execute_script(
        "const s = document.getElementById('slider'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('input'));", str(value))


def _slider(browser) -> int:
    return int(browser.execute_script("return document.getElementById('slider').value"))


def _severe(logs: list[dict]) -> list[dict]:
    return [entry for entry in logs if entry["level"] == "SEVERE"]


# -- the HTML itself -------------------------------------------------------------------------

def test_page_is_one_self_contained_file(page, replay_file):
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>")
    # No address to fetch anything from: every script, style and icon is inline.
    assert "http:" not in html and "https:" not in html and " src=" not in html
    assert '<canvas id="board"' in html and 'id="slider"' in html and 'id="play"' in html
    embedded = html.split('<script type="application/json" id="replay-data">')[1].split("</script>")[0]
    assert json.loads(embedded) == load_replay(replay_file)


def test_beliefs_must_have_one_entry_per_turn(replay_file):
    data = load_replay(replay_file)
    with pytest.raises(ValueError, match="entries"):
        render_replay_html(data, [None])
    with pytest.raises(ValueError, match="225"):
        render_replay_html(data, [[[0.5, 0.5], None]] + [None] * (len(data["turns"]) - 1))


def test_cli_refuses_a_missing_file_with_one_line_and_exit_code_2(tmp_path):
    result = _ocean("replay", str(tmp_path / "missing.json"), check=False)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "missing.json" in result.stderr


def test_cli_refuses_a_file_that_is_not_a_replay(tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"format": "something-else"}')
    result = _ocean("replay", str(path), check=False)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "ocean-replay/1" in result.stderr


def test_cli_writes_next_to_the_replay_by_default(replay_file, tmp_path):
    copy = tmp_path / "copy.json"
    copy.write_text(replay_file.read_text())
    result = _ocean("replay", str(copy))
    assert result.stdout.strip() == str(tmp_path / "copy.html")
    assert (tmp_path / "copy.html").read_text().startswith("<!DOCTYPE html>")


# -- in the browser ----------------------------------------------------------------------------

@needs_chromium
def test_page_loads_without_console_errors(browser, page):
    _open(browser, page)
    assert _severe(browser.get_log("browser")) == []
    assert "random" in browser.find_element("id", "matchup").text


@needs_chromium
def test_board_is_drawn(browser, page):
    _open(browser, page)
    colours, _ = _canvas(browser)
    # Water, islands, grid, both submarines, labels: far more than a blank canvas's one colour.
    assert colours >= 20


@needs_chromium
def test_slider_moves_through_every_action_and_redraws(browser, page, replay_file):
    _open(browser, page)
    data = load_replay(replay_file)
    actions = sum(max(1, len(t["actions"])) for t in data["turns"])
    assert int(browser.execute_script("return document.getElementById('slider').max")) == actions
    before = _canvas(browser)
    _set_slider(browser, actions // 2)
    assert _canvas(browser) != before
    label = browser.find_element("id", "turn-label").text
    assert label.startswith("Turn ") and f"step {actions // 2}/{actions}" in label


@needs_chromium
def test_play_advances_the_slider_and_pause_stops_it(browser, page):
    from selenium.webdriver.support.ui import WebDriverWait

    _open(browser, page)
    browser.find_element("id", "play").click()
    WebDriverWait(browser, 10, poll_frequency=0.05).until(lambda b: _slider(b) >= 2)
    browser.find_element("id", "play").click()
    stopped = _slider(browser)
    # WebDriver awaits a returned promise: read the slider again after two play intervals.
    later = browser.execute_script(
        "return new Promise(r => setTimeout(() => r(document.getElementById('slider').value), 900))")
    assert int(later) == stopped


@needs_chromium
def test_arrow_keys_step(browser, page):
    from selenium.webdriver.common.keys import Keys

    _open(browser, page)
    body = browser.find_element("tag name", "body")
    body.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    assert _slider(browser) == 2
    body.send_keys(Keys.ARROW_LEFT)
    assert _slider(browser) == 1


@needs_chromium
def test_result_is_shown_at_the_end(browser, page, replay_file):
    _open(browser, page)
    result = load_replay(replay_file)["result"]
    assert "wins" not in browser.find_element("id", "result").text
    browser.find_element("id", "last").click()
    text = browser.find_element("id", "result").text
    assert f"Player {result['winner']}" in text and result["reason"] in text


@needs_chromium
def test_heat_map_toggle_draws_the_beliefs(browser, replay_file, tmp_path):
    data = load_replay(replay_file)
    water = [1.0 if data["map"][i // 15][i % 15] == "." else 0.0 for i in range(225)]
    total = sum(water)
    # Player 0 has a belief every turn, player 1 never: its view must look like "none".
    beliefs = [[[w / total for w in water], None] for _ in data["turns"]]
    page = tmp_path / "beliefs.html"
    page.write_text(render_replay_html(data, beliefs))
    _open(browser, page)
    assert _severe(browser.get_log("browser")) == []

    def view(value: str) -> tuple[int, int]:
        browser.execute_script(
            "const h = document.getElementById('heatmap'); h.value = arguments[0];"
            "h.dispatchEvent(new Event('change'));", value)
        return _canvas(browser)

    none = view("none")
    assert view("0") != none
    assert "player 0's belief" in browser.find_element("id", "heat-note").text
    assert view("1") == none
    assert view("none") == none


@needs_chromium
def test_heat_map_is_off_without_beliefs(browser, replay_file, tmp_path):
    page = tmp_path / "no-beliefs.html"
    page.write_text(render_replay_html(load_replay(replay_file)))
    _open(browser, page)
    assert not browser.find_element("id", "heatmap").is_enabled()
    assert "no beliefs" in browser.find_element("id", "heat-note").text


@needs_chromium
def test_player_name_with_a_closing_script_tag_survives(browser, replay_file, tmp_path):
    data = load_replay(replay_file)
    evil = "</script><script>window.pwned = 1</script><!--"
    data["players"][0] = evil
    replay = tmp_path / "evil.json"
    replay.write_text(json.dumps(data))
    page = _render_with_cli(replay, tmp_path / "evil.html")
    _open(browser, page)
    assert _severe(browser.get_log("browser")) == []
    assert browser.execute_script("return window.pwned") is None
    embedded = browser.execute_script("return JSON.parse(document.getElementById('replay-data').textContent).players[0]")
    assert embedded == evil
    assert evil in browser.find_element("id", "matchup").text
    assert _canvas(browser)[0] >= 20


def _scripted_replay() -> dict:
    """A short game on map seed 10 with what the baseline bots never do: a SILENCE of two
    steps, a mine and its TRIGGER, a SURFACE, a torpedo, and both submarines on one cell."""
    from ocean.game import Game
    from ocean.replay import ReplayRecorder

    game = Game(10)
    recorder = ReplayRecorder(game, ["scripted-0", "scripted-1"])
    recorder.start("2 6", "12 10")
    lines = [["MOVE E SILENCE"] * 6 + ["SILENCE S 2|MOVE E TORPEDO", "MOVE N TORPEDO"],
             ["MOVE N MINE"] * 3 + ["MINE W|MOVE N TORPEDO", "TRIGGER 11 7|MOVE W TORPEDO",
                                    "SURFACE|MOVE W TORPEDO", "MOVE W TORPEDO|TORPEDO 9 8", "MOVE S SONAR"]]
    played = [0, 0]
    while game.begin_turn() and played[game.active] < len(lines[game.active]):
        player = game.active
        recorder.turn(game.turn_input(), lines[player][played[player]])
        played[player] += 1
    return recorder.finish()


@needs_chromium
def test_every_step_of_a_scripted_game_draws_without_errors(browser, tmp_path):
    data = _scripted_replay()
    assert [a["action"] for a in data["turns"][9]["actions"]] == ["TRIGGER 11 7", "MOVE W TORPEDO"]
    page = tmp_path / "scripted.html"
    page.write_text(render_replay_html(data))
    _open(browser, page)
    last = int(browser.execute_script("return document.getElementById('slider').max"))
    seen = set()
    for step in range(last + 1):
        _set_slider(browser, step)
        seen.add(_canvas(browser))
    assert len(seen) == last + 1  # every executed action changes the board
    assert _severe(browser.get_log("browser")) == []
    assert "not finished" in browser.find_element("id", "result").text

"""Your own frozen bots: `ocean panel add` freezes an exported coefficient set under a name
that works wherever a bot name does, and never changes afterwards."""
import json
import subprocess
import sys

import pytest

from ocean.bots import coefficients, resolve_bot
from ocean.bots.panel import reload_panels
from ocean.fingerprint import behaviour_fingerprint


def _ocean(env, *args):
    return subprocess.run([sys.executable, "-m", "ocean", *args], capture_output=True, text=True, env=env)




def _params_file(tmp_path, **changes):
    values = {**coefficients.defaults(), **changes}
    path = tmp_path / "best.toml"
    coefficients.save_params(values, path, {"study": "quick", "trial": 7})
    return path, values


def test_panel_add_freezes_a_bot_usable_by_name_in_the_arena(tmp_path, user_panels):
    import os

    params, values = _params_file(tmp_path, silence_cost=1.7, engage_distance=9)
    env = {**os.environ}
    added = _ocean(env, "panel", "add", "mybest-v1", "--params", str(params), "--style", "my tuned bot",
                   "--panel", "mine")
    assert added.returncode == 0, added.stderr
    reload_panels()
    spec = resolve_bot("mybest")  # the family name means its latest version
    assert spec.name == "mybest-v1" and spec.params == coefficients.validate(values)

    listed = json.loads(_ocean(env, "panel", "list", "--json").stdout.splitlines()[-1])
    assert listed["panels"]["mine"] == ["mybest-v1"]
    mine = listed["bots"]["mybest-v1"]
    assert mine["source"] == str(user_panels) and mine["style"] == "my tuned bot"
    assert mine["fingerprint"] == behaviour_fingerprint(spec)

    arena = _ocean(env, "arena", "--bots", "mybest-v1,random", "--games", "4", "--json")
    assert arena.returncode == 0, arena.stderr
    assert json.loads(arena.stdout.splitlines()[-1])["bots"] == ["mybest-v1", "random"]


def test_a_frozen_name_is_never_overwritten_and_the_file_keeps_every_bot(tmp_path, user_panels):
    import os

    env = {**os.environ}
    params, _ = _params_file(tmp_path)
    assert _ocean(env, "panel", "add", "mybest-v1", "--params", str(params), "--panel", "mine").returncode == 0
    again = _ocean(env, "panel", "add", "mybest-v1", "--params", str(params))
    assert again.returncode == 2
    assert again.stderr.strip().splitlines() == [
        "error: bot 'mybest-v1' exists and is frozen; add a new version, e.g. mybest-v2"]
    assert _ocean(env, "panel", "add", "mybest-v2", "--params", str(params), "--panel", "mine").returncode == 0
    reload_panels()
    from ocean.bots.panel import panel_members

    assert panel_members("mine") == ["mybest-v1", "mybest-v2"]
    assert resolve_bot("mybest").name == "mybest-v2"


@pytest.mark.parametrize("name, args, words", [
    ("hunter-v2", [], "is built in"),
    ("mybest", [], "must look like family-vN"),
    ("mybest-v1", ["--panel", "styles"], "built-in panel"),
])
def test_panel_add_refuses_bad_names_in_one_line(tmp_path, user_panels, name, args, words):
    import os

    params, _ = _params_file(tmp_path)
    out = _ocean({**os.environ}, "panel", "add", name, "--params", str(params), *args)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert words in out.stderr
    assert not user_panels.exists()


def test_a_broken_user_panel_file_is_named_in_one_line(user_panels):
    import os

    user_panels.parent.mkdir(parents=True)
    user_panels.write_text('[bots."x-v1"]\npolicy = "tunable"\n[bots."x-v1".coefficients]\nsilence_cost = 99\n')
    out = _ocean({**os.environ}, "arena", "--bots", "x-v1,random", "--games", "2")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert str(user_panels) in out.stderr and "silence_cost" in out.stderr


def test_a_frozen_bot_whose_coefficients_were_edited_in_the_panel_file_is_refused(tmp_path, user_panels):
    import os

    env = {**os.environ}
    params, _ = _params_file(tmp_path, silence_cost=1.7)
    assert _ocean(env, "panel", "add", "mybest-v1", "--params", str(params)).returncode == 0
    assert _ocean(env, "arena", "--bots", "mybest-v1,random", "--games", "2").returncode == 0  # as frozen: plays
    text = user_panels.read_text()
    assert "silence_cost = 1.7" in text
    for edit in ("silence_cost = 0.4",  # an edit that changes its play
                 "silence_cost = 1.7000001"):  # one the fixed games may not show: its coefficients' digest does
        user_panels.write_text(text.replace("silence_cost = 1.7", edit, 1))
        out = _ocean(env, "arena", "--bots", "mybest-v1,random", "--games", "2")
        assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
        assert "mybest-v1" in out.stderr and "other coefficients than when it was frozen" in out.stderr
    user_panels.write_text(text)
    assert _ocean(env, "arena", "--bots", "mybest-v1,random", "--games", "2").returncode == 0  # restored


def test_a_frozen_bot_whose_play_changed_is_refused_by_name(user_panels):
    from ocean.bots import BotSpec, Frozen
    from ocean.fingerprint import FingerprintError, check_frozen, coefficients_digest

    spec = resolve_bot("hunter-v1")
    check_frozen(spec)  # the built-in panel as it is: passes
    changed = BotSpec("hunter-v1", spec.policy, {**spec.params, "silence_cost": 2.5},
                      frozen=Frozen(spec.frozen.fingerprint, None, "built-in"))
    with pytest.raises(FingerprintError, match="'hunter-v1' .*plays differently than when it was frozen"):
        check_frozen(changed)
    unfrozen = BotSpec("x-v1", "tunable-v3", coefficients.defaults("tunable-v3"), frozen=Frozen("0" * 16, None, "f"))
    with pytest.raises(FingerprintError, match="policy 'tunable-v3', whose code is not frozen"):
        check_frozen(unfrozen)
    assert coefficients_digest(spec) != coefficients_digest(changed)


def test_panel_add_refuses_a_policy_that_is_not_frozen(tmp_path, user_panels):
    import os

    path = tmp_path / "v3.toml"
    coefficients.save_params(coefficients.defaults("tunable-v3"), path, policy="tunable-v3")
    out = _ocean({**os.environ}, "panel", "add", "x-v1", "--params", str(path))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "'tunable-v3' is not frozen" in out.stderr
    assert not user_panels.exists()


def _add_many(args):
    from ocean.bots.panel import PROGRAM, write_user_bot

    worker, count = args
    for i in range(count):
        name = f"racer{worker}-v{i + 1}"
        write_user_bot(name, [f'\n[bots."{name}"]', f'policy = "{PROGRAM}"', 'command = "./x"',
                              'fingerprint = "0000000000000000"'], "race")
    return worker


def test_panel_adds_at_the_same_time_all_land(user_panels):
    # Several `ocean panel add` writing at once: before the file was locked, two writers read the
    # same file and the second write lost the first one's bot.
    import multiprocessing
    import tomllib

    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(6) as pool:
        assert sorted(pool.map(_add_many, [(w, 8) for w in range(6)])) == list(range(6))
    data = tomllib.loads(user_panels.read_text())
    names = {f"racer{w}-v{i + 1}" for w in range(6) for i in range(8)}
    assert set(data["bots"]) == names and sorted(data["panels"]["race"]) == sorted(names)
    assert not list(user_panels.parent.glob("*.tmp"))  # every write replaced the file whole

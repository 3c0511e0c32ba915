"""Your own frozen bots: `ocean panel add` freezes an exported coefficient set under a name
that works wherever a bot name does, and never changes afterwards."""
import json
import subprocess
import sys

import pytest

from ocean.bots import coefficients, resolve_bot
from ocean.bots.panel import behaviour_fingerprint, reload_panels


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

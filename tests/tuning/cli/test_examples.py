"""The example of docs/programs.md, as a newcomer runs it: build the C bot, freeze it as an
opponent, tune the Python bot with studies/examples/mybot.toml (made small by options), validate
against the held-out opponents, export the command line."""
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tuning.processes import last_json, run_tune

# A long drill: CI runs it (.ci/run), the README's test command leaves it out.
# The example bot tuned end to end (about 15 s).
pytestmark = pytest.mark.drill

EXAMPLES = Path(__file__).resolve().parents[3] / "studies" / "examples"


def test_the_example_bot_is_tuned_end_to_end_as_the_docs_say(tmp_path, ray_cluster, monkeypatch):
    monkeypatch.setenv("OCEAN_PANELS", str(tmp_path / "panels.toml"))
    binary = tmp_path / "mybot"
    subprocess.run(["cc", "-O2", "-o", str(binary), str(EXAMPLES / "mybot.c"), "-lm"], check=True)
    added = subprocess.run([sys.executable, "-m", "ocean", "panel", "add", "mybotc-v1", "--command",
                            "./mybot --seed {game_seed}", "--cwd", str(tmp_path)],
                           capture_output=True, text=True, env={**os.environ}, timeout=600)
    assert added.returncode == 0, added.stderr
    storage = ["--storage", f"sqlite:///{tmp_path}/mybot.db"]
    ray = ["--ray-address", ray_cluster]
    run_tune("launch", str(EXAMPLES / "mybot.toml"), "--trials", "2", "--games", "2", *storage, *ray, cwd=tmp_path)
    validated = run_tune("validate", "mybot", "--top", "1", "--games", "4", "--head-to-head-games", "4", *storage,
                         *ray, cwd=tmp_path)
    assert "held-out opponents" in validated.stdout
    status = last_json(run_tune("status", "mybot", "--json", *storage, cwd=tmp_path))
    assert status["trials"]["complete"] == 2 and status["held_out_panel"] == ["miner-v1", "balanced-v1"]
    assert all(d["bot"] == 0 for d in status["disqualifications"].values()), status["disqualifications"]
    # four validation games a candidate (two to choose, two to judge) show no gain: the command line is exported anyway to check it
    args = run_tune("export", "mybot", "--format", "args", "--allow-no-gain", *storage, cwd=tmp_path).stdout
    words = shlex.split(args)
    best = status["best"]["params"]
    assert words[:2] == ["python3", "mybot.py"] and words[-2:] == ["--seed", "{game_seed}"]
    assert words[words.index("--fire_probability") + 1] == repr(best["fire_probability"])
    assert words[words.index("--silence_below") + 1] == str(best["silence_below"])

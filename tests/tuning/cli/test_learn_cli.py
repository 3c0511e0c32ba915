"""``tune learn`` end to end: real processes, a fresh SQLite file, the session's real Ray. A tiny
run writes a coefficient file that ``ocean arena`` plays, its curve prints and draws; a second
command with a higher target carries the run on; mistakes are one line and exit code 2."""
import json
import tomllib

import pytest

from tests.tuning.processes import last_json, run_tune
from ocean.bots.coefficients import read_params_file
from tuning.driver.trust import SCALES


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    return tmp_path


@pytest.mark.drill
def test_learn_writes_weights_that_play_and_a_curve(workdir, ray_cluster):
    import subprocess
    import sys

    done = run_tune("learn", "tiny", "--games", "60", "--round-games", "30", "--score-every", "60", "--score-maps", "2",
                    "--trust-games", "24", "--out", "learned.toml", "--ray-address", ray_cluster, cwd=workdir,
                    timeout=900)
    assert "tiny: 60 self-play games, 2 rounds; weights written to learned.toml" in done.stdout
    assert "TD vs patient-v1:" in done.stdout and (workdir / "studies" / "tiny.db").exists()
    assert "trust step: 24 self-play games chose v3_regret x" in done.stdout and "trusted vs tunable-v3:" in done.stdout
    policy, weights = read_params_file(workdir / "learned.toml")
    assert policy == "tunable-td" and any(v != 0.0 for v in weights.values())
    provenance = tomllib.loads((workdir / "learned.toml").read_text())["provenance"]
    assert provenance["trust_games"] == 24 and provenance["trust_scale"] in SCALES

    arena = subprocess.run([sys.executable, "-m", "ocean", "arena", "--bots", "params:learned.toml,random", "--games",
                            "2", "--json"], cwd=workdir, capture_output=True, text=True, timeout=900, check=True)
    assert json.loads(arena.stdout.strip().splitlines()[-1])["bots"][0] == "learned"

    curve = last_json(run_tune("learn", "tiny", "--report", "--json", "--plot", "curve.png", cwd=workdir))
    assert [r["games"] for r in curve["curve"]] == [0, 60] and "patient-v1" in curve["curve"][1]
    assert [(r["games"], r["scale"], len(r["matches"])) for r in curve["trust"]] == [
        (60, provenance["trust_scale"], len(SCALES) - 1)] and "patient-v1" in curve["trust"][0]
    assert (workdir / "curve.png").stat().st_size > 5000
    # tune report draws a learning run as it draws a study: its page, the curve beside it
    reported = run_tune("report", "tiny", "--out", "tiny.html", cwd=workdir)
    assert "tiny.html written, with its curve beside it: tiny_curve.png" in reported.stdout
    page = (workdir / "tiny.html").read_text()
    assert "Learning run <code>tiny</code>" in page and "60 in 2 rounds" in page and "all-zero weights" in page
    assert page.count("<tr><td>60</td>") == 2  # the curve's last row and the trust step's
    # scores on the page: 2 checkpoints x 2 yardsticks, then the trusted weights x 2
    assert 'id="trust"' in page and page.count("on 2 maps x 2") == 2 * 2 + 2
    assert 'id="weights"' in page and (workdir / "tiny_curve.png").stat().st_size > 5000

    # carried on with only a higher target: the stored options are used
    more = run_tune("learn", "tiny", "--games", "90", "--out", "more.toml", "--trust-games", "0", "--ray-address",
                    ray_cluster, cwd=workdir, timeout=900)
    assert "tiny: 90 self-play games, 3 rounds" in more.stdout and "trust step" not in more.stdout
    assert "trust_scale" not in (workdir / "more.toml").read_text()
    # a target below the run's games writes the checkpoint reached there, playing nothing
    early = run_tune("learn", "tiny", "--games", "30", "--out", "at30.toml", "--trust-games", "0", cwd=workdir)
    assert "tiny: 30 self-play games, 1 rounds" in early.stdout
    assert read_params_file(workdir / "at30.toml")[1] != read_params_file(workdir / "more.toml")[1]
    refused = run_tune("learn", "tiny", "--games", "90", "--out", "more.toml", "--epsilon", "0.5", cwd=workdir,
                       check=False)
    assert refused.returncode == 2 and refused.stderr.strip() == (
        "error: learning run 'tiny' exists with other settings: --epsilon 0.5 (the run has 0.3); carry it on without "
        "them (tune learn tiny --games N --out FILE) or give a new run another name")


@pytest.mark.parametrize("args, message", [
    (["--games", "0", "--out", "x.toml"], "error: --games is 0; give a positive number of self-play games"),
    (["--games", "10"], "error: give --games N (self-play games to reach) and --out FILE (where the weights go), "
                        "or --report"),
    (["--games", "10", "--out", "x.toml", "--schedule", "fast"],
     "error: --schedule is 'fast'; choose one of constant, harmonic"),
    (["--games", "10", "--out", "x.toml", "--start", "missing.toml"], "error: missing.toml: cannot read"),
    (["--report"], "error: no learning run named 'bad': there is no database at studies/bad.db"),
    (["--games", "10", "--out", "x.toml", "--trust-games", "5"],
     "error: --trust-games is 5; give 0 (no trust step) or at least 12 (6 matches of paired games)"),
])
def test_mistakes_are_one_line(workdir, args, message):
    done = run_tune("learn", "bad", *args, cwd=workdir, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().startswith(message)

"""Issue 45, end to end: a program that looks for the lab's secrets, tuned by a study on the
session's real Ray with PostgreSQL storage (a password in its URL, PGPASSWORD in the driver's
environment), and frozen into the study's panel, finds nothing in any game: no process of the
lab's, no environment or command line holding the password, no Ray token file, no PostgreSQL by
TCP or socket. The finder writes its report into its own folder (``[sandbox] writable_folder``)
and then plays on as the knob."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ocean.sandbox import unavailable_reason
from tests.programs.studies import timed_study
from tests.tuning.processes import last_json, run_tune

pytestmark = pytest.mark.drill

PY = sys.executable
HERE = Path(__file__).resolve().parents[2]
FINDER = HERE / "ocean" / "programs" / "secretfinder.py"
KNOB = HERE / "programs" / "knob.py"
MARKER = "Pw-s3cret-Xq9"
GUARD = 600


def _folder(path: Path) -> Path:
    path.mkdir(parents=True)
    shutil.copy(FINDER, path / "secretfinder.py")
    shutil.copy(KNOB, path / "knob.py")
    return path


def _command(report: str, knob_args: str) -> str:
    return f"{PY} secretfinder.py --report {report} --then {PY} knob.py {knob_args}"


def _reports(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_tuned_program_and_a_panel_program_find_no_secret_in_a_study_on_ray_and_postgres(
        tmp_path, ray_cluster, pg_url, user_panels):
    if unavailable_reason() is not None:
        pytest.skip(f"no sandbox here: {unavailable_reason()}")
    rival = _folder(tmp_path / "rival")
    frozen = subprocess.run([PY, "-m", "ocean", "panel", "add", "finder-v1", "--time-scale", "20", "--cwd", str(rival),
                             "--command", _command("found.jsonl", "--skill 0.9 --seed {game_seed}")],
                            capture_output=True, text=True, env={**os.environ}, timeout=GUARD)
    assert frozen.returncode == 0, frozen.stderr
    assert not _reports(rival / "found.jsonl")  # frozen under the default policy: its folder was read-only

    study = _folder(tmp_path / "study")
    text = timed_study("finder", _command("found.jsonl", "--skill {skill} --seed {game_seed}"),
                       "skill = { low = 0.5, high = 1.0, default = 0.9 }", turn_ms=50,
                       panel=("random", "finder-v1"), maps=2, batch_pairs=1, writable_folder=True)
    (study / "finder.toml").write_text(text)
    secret_url = pg_url.replace("://postgres@", f"://postgres:{MARKER}@", 1)
    assert MARKER in secret_url  # trust authentication here: the password is carried, never needed
    env = {**os.environ, "OCEAN_STORAGE": secret_url, "PGPASSWORD": MARKER, "AWS_SECRET_ACCESS_KEY": MARKER}
    launched = subprocess.run([PY, "-m", "tuning", "launch", "finder.toml", "--ray-address", ray_cluster],
                              cwd=study, capture_output=True, text=True, env=env, timeout=GUARD)
    assert launched.returncode == 0, launched.stderr[-3000:]
    status = last_json(run_tune("status", "finder", "--json", "--storage", pg_url, cwd=study))
    assert status["trials"]["complete"] == 2

    tuned, panel = _reports(study / "found.jsonl"), _reports(rival / "found.jsonl")
    # every game of the study (2 trials x 2 opponents x 2 maps x 2 sides) and the launch's start check
    assert len(tuned) >= 16 and len(panel) >= 8, (len(tuned), len(panel))
    for report in tuned + panel:
        assert report["found"] == [] and report["processes"] <= 3, report

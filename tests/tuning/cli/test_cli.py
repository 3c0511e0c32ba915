"""``tune`` end to end: real processes, a real SQLite database, the session's real Ray."""
import json
import subprocess
import sys
import textwrap

import pytest
from typer.testing import CliRunner

from ocean.bots import coefficients
from tests.tuning.processes import last_json as _last_json, run_tune as _tune
from tuning.cli import app

TINY = textwrap.dedent("""
    name = "tiny"
    n_trials = 2
    trials_in_flight = 2
    panel = ["random", "chaser"]
    seed_bank = { start = 100, count = 3 }
    batch_pairs = 2

    [sampler]
    kind = "tpe"
    seed = 5
    startup_trials = 1

    [search]
    silence_cost = {}
    stealth_weight = { low = 0.01, log = true }

    [validation]
    seeds = { start = 9000, count = 4 }
    games = 4
    top_k = 1
""")


@pytest.mark.drill
def test_launch_status_resume_validate_export_end_to_end(tmp_path, ray_cluster, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "tiny.toml").write_text(TINY)
    ray = ["--ray-address", ray_cluster]

    launched = _tune("launch", "tiny.toml", "--games", "4", *ray, cwd=tmp_path)
    assert "next: tune validate tiny" in launched.stdout
    assert (tmp_path / "studies" / "tiny.db").exists()

    status = _last_json(_tune("status", "tiny", "--json", cwd=tmp_path))
    from tuning.storage.handle import open_study

    handle = open_study("tiny", f"sqlite:///{tmp_path}/studies/tiny.db")
    try:
        assert status["trials"]["complete"] == len(handle.trials()) == 2
        assert status["games"]["train"] == handle.games.count_games() == 2 * 2 * 2 * 2  # trials x opps x maps x 2
        assert status["best"]["trial"] in (0, 1) and status["finished"]
    finally:
        handle.close()

    _tune("resume", "tiny", "--trials", "3", *ray, cwd=tmp_path)
    status = _last_json(_tune("status", "tiny", "--json", cwd=tmp_path))
    assert status["trials"]["complete"] == 3 and status["target_trials"] == 3
    assert status["games"]["train"] == 3 * 8

    validated = _tune("validate", "tiny", "--top", "1", "--games", "4", "--head-to-head-games", "6", *ray,
                      cwd=tmp_path)
    assert "reference (the defaults)" in validated.stdout and "at 50 ms a turn, 1000 ms the first: best trial" \
        in validated.stdout
    assert validated.stdout.count("(Elo ") == 2  # the defaults and the top trial, each with its interval
    status = _last_json(_tune("status", "tiny", "--json", cwd=tmp_path))
    best = status["best"]
    # the race (the defaults and the top trial, 2 opponents, its one choosing map), the judged map
    # (the same two), and the head to head until the SPRT decides or its 3 maps run out
    assert best["validated"] and status["games"]["validate"] == best["games_played"] == \
        2 * 2 * 2 + 2 * 2 * 2 + best["head_to_head"]["games"]
    shown = best["sprt"]["decision"] == "H1"
    assert best["verdict"] == ("gain" if shown else "no gain shown") and status["defaults"]["validated"]
    printed = _tune("status", "tiny", cwd=tmp_path).stdout
    assert ("verdict: gain over the defaults" if shown else "verdict: no gain over the defaults shown") in printed

    wrong = _tune("validate", "tiny", "--turn-ms", "0", *ray, cwd=tmp_path, check=False)
    assert wrong.returncode == 2 and "turn_ms = 0" in wrong.stderr and "--turn-ms" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1

    refused = _tune("export", "tiny", "--out", "best.toml", cwd=tmp_path, check=shown)
    if not shown:  # 4 games a trial: the usual case
        assert refused.returncode == 2 and "no gain over the defaults shown" in refused.stderr
        assert "--allow-no-gain" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
        assert not (tmp_path / "best.toml").exists()
        _tune("export", "tiny", "--out", "best.toml", "--allow-no-gain", cwd=tmp_path)
    exported = coefficients.read_params_file(tmp_path / "best.toml")[1]
    assert exported == coefficients.validate(status["best"]["params"])
    text = (tmp_path / "best.toml").read_text()
    assert 'study = "tiny"' in text and f"trial = {status['best']['trial']}" in text and "validated_low" in text
    assert "tuned_turn_ms = 50" in text and "validated_turn_ms = 50" in text and f'verdict = "{best["verdict"]}"' in text
    assert ("exported_despite" in text) == (not shown)
    # the exported file plays whole games as a CodinGame program (generous timeouts: a loaded CI box)
    game = subprocess.run([sys.executable, "-m", "ocean", "referee", "--seed", "3", "--json",
                           "--p0", f"{sys.executable} -m ocean bot --params best.toml",
                           "--p1", f"{sys.executable} -m ocean bot --name chaser",
                           "--time-scale", "100"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    verdict = _last_json(game)
    assert verdict["disqualified"] == [None, None] and verdict["winner"] in (0, 1, -1), game.stderr[-2000:]
    header = _tune("export", "tiny", "--format", "cpp", "--allow-no-gain", cwd=tmp_path).stdout
    assert "namespace ocean_params" in header
    listing = _tune("status", "--json", cwd=tmp_path)  # every studies/*.db of the current directory
    assert [s["study"] for s in _last_json(listing)["studies"]] == ["tiny"]

    again = _tune("launch", "tiny.toml", *ray, cwd=tmp_path, check=False)
    assert again.returncode == 2 and "already exists" in again.stderr and "tune resume tiny" in again.stderr
    restarted = _tune("launch", "tiny.toml", "--or-resume", *ray, cwd=tmp_path)  # a restarted service
    assert "study tiny is finished: 3 of 3 trials" in restarted.stdout  # nothing played, no bars (issue 35)


def _write(tmp_path, text):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return str(path)


def _edit(**changes):
    lines = []
    for line in TINY.splitlines():
        key = line.split("=")[0].strip()
        if key in changes:
            if changes[key] is not None:
                lines.append(f"{key} = {changes[key]}")
            continue
        lines.append(line)
    return "\n".join(lines) + "\n"


MALFORMED_FILES = [
    (_edit(name='"a b"'), "name"),
    (_edit(n_trials="0"), "n_trials"),
    (_edit(n_trials='"many"'), "n_trials: input should be a valid integer"),
    (_edit(panel='["random", "nobody"]'), "unknown bot 'nobody'"),
    (_edit(panel='"no-such-panel"'), "unknown panel 'no-such-panel'"),
    (_edit(silence_cost="{ low = 5.0 }"), "outside the coefficient's range"),
    (_edit(silence_cost="{ low = 1.0, high = 0.5 }"), "must be below high"),
    (_edit(stealth_weight="{ low = 0.0, log = true }"), "a log scale needs low > 0"),
    (TINY.replace("silence_cost = {}", "silence_cots = {}"), "unknown coefficient 'silence_cots'"),
    (TINY.replace("silence_cost = {}", "silence_cost = 0.5").replace(
        "stealth_weight = { low = 0.01, log = true }", ""), "nothing to tune"),
    (TINY + "\ncolour = 1\n", "unknown key"),
    (TINY.replace('kind = "tpe"', 'kind = "annealing"'), "sampler.kind"),
    (TINY.replace("seed_bank = { start = 100, count = 3 }", "seed_bank = { start = 9001, count = 3 }"), "overlap"),
    (TINY.replace("games = 4", "games = 5"), "must be even"),
    ('storage = "mysql://root@localhost/x"\n' + TINY, "unsupported database"),
    (TINY.replace('name = "tiny"', 'name = "tiny"\nname = "again"'), "not valid TOML"),
    ("this is [not toml", "not valid TOML"),
]


@pytest.mark.parametrize("text, words", MALFORMED_FILES)
def test_each_malformed_study_file_gets_one_line_exit_2_and_writes_nothing(tmp_path, monkeypatch, text, words):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    result = CliRunner().invoke(app, ["launch", _write(tmp_path, text)])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and lines[0].startswith("error: ")
    assert not (tmp_path / "studies").exists()  # nothing written: no database


def test_user_mistakes_in_a_real_process_are_one_line_without_traceback(tmp_path):
    (tmp_path / "tiny.toml").write_text(TINY)
    cases = [
        (["resume", "ghost"], "no study database at studies/ghost.db"),
        (["launch", "missing.toml"], "cannot read the study file"),
        (["launch", "tiny.toml", "--games", "7"], "must be even"),
        (["launch", "tiny.toml", "--storage", "postgresql+psycopg://lab:hunter2@127.0.0.1:1/x"],
         "cannot open the study database postgresql+psycopg://lab:***@127.0.0.1:1/x"),
        (["export", "tiny", "--format", "yaml"], "unknown --format 'yaml'"),
        (["status", "ghost"], "no study database"),
    ]
    for args, words in cases:
        result = _tune(*args, cwd=tmp_path, check=False)
        assert result.returncode == 2, (args, result.stderr)
        assert words in result.stderr and "Traceback" not in result.stderr, (args, result.stderr)
        assert "hunter2" not in result.stderr + result.stdout
        assert len(result.stderr.strip().splitlines()) == 1, (args, result.stderr)


def test_every_command_has_help():
    runner = CliRunner()
    for command in ("launch", "resume", "status", "validate", "export", "dashboard", "bench"):
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0 and "Usage" in result.output
    launch = " ".join(runner.invoke(app, ["launch", "--help"], terminal_width=200).output.split())
    assert "the study file's `storage` key" in launch  # where the database is, when --storage is not given


def test_dashboard_serves_the_study_database(tmp_path):
    import socket
    import time
    import urllib.request

    from tests.tuning.fakes import FakePool, tiny_spec_dict
    from tuning.driver.runner import StudyRunner
    from tuning.storage.handle import create_study
    from tuning.study.spec import parse_spec

    url = f"sqlite:///{tmp_path}/d.db"
    handle = create_study(parse_spec(tiny_spec_dict(name="dash")), url)
    StudyRunner(handle, pool=FakePool()).run()
    handle.close()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "tuning", "dashboard", "--storage", url, "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        body = None
        for _ in range(60):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/studies", timeout=2) as response:
                    body = json.loads(response.read())
                break
            except OSError:
                time.sleep(0.5)
        assert body is not None, "the dashboard never answered"
        assert [s["study_name"] for s in body["study_summaries"]] == ["dash"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.drill
def test_bench_big_db_builds_a_study_through_the_driver_and_times_its_commands(tmp_path):
    """The benchmark's machinery at a tiny size (the big figures are the benchmark's, not a test's)."""
    url = f"sqlite:///{tmp_path}/big.db"
    args = [sys.executable, "-m", "tuning", "bench", "--big-db", "--big-trials", "5", "--big-games", "8",
            "--batch-pairs", "1", "--storage", url, "--json"]
    done = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])["given"]
    assert got["trials"] == got["complete"] == 5 and got["rows"] == 5 * 8
    assert got["status_seconds"] > 0 and got["report_seconds"] > 0 and got["resume_startup_seconds"] > 0
    again = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=600)  # built: timed only
    assert again.returncode == 0 and "already built" in again.stderr
    assert "trials" not in json.loads(again.stdout.strip().splitlines()[-1])["given"]


def test_bench_big_db_refuses_a_tiny_study_in_one_line():
    result = CliRunner().invoke(app, ["bench", "--big-db", "--big-trials", "2"])
    assert result.exit_code != 0 and "--big-trials and --big-games must be at least 4" in result.output
    assert "Traceback" not in result.output


@pytest.mark.drill
def test_a_study_with_auto_batches_runs_on_ray_and_sizes_them_from_its_games(tmp_path, ray_cluster, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "auto.toml").write_text(TINY.replace('name = "tiny"', 'name = "auto"')
                                        .replace("count = 3 }", "count = 40 }")
                                        .replace("batch_pairs = 2", 'batch_pairs = "auto"'))
    _tune("launch", "auto.toml", "--ray-address", ray_cluster, cwd=tmp_path)
    status = _last_json(_tune("status", "auto", "--json", cwd=tmp_path))
    assert status["trials"]["complete"] + status["trials"]["pruned"] == 2
    from tuning.storage.handle import open_study

    handle = open_study("auto", f"sqlite:///{tmp_path}/studies/auto.db")
    try:
        per_pair = handle.games.recent_seconds_per_pair("train")
        assert per_pair is not None and per_pair > 0
        # the in-process bot plays a map in milliseconds: a second of it is every map of the bank
        assert handle.batch_pairs(40) == min(40, round(1 / per_pair))
    finally:
        handle.close()


def test_a_study_database_looked_for_below_the_folder_it_is_in_says_where_and_how_to_reach_it(tmp_path, monkeypatch):
    # issue 49: `cd studies && tune status quick` said "no study database at studies/quick.db"
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    from tuning.storage.handle import create_study
    from tuning.study.spec import parse_spec
    from tests.tuning.fakes import tiny_spec_dict

    folder = tmp_path / "studies"
    folder.mkdir()
    create_study(parse_spec(tiny_spec_dict()), f"sqlite:///{folder}/tiny.db").close()
    lost = _tune("status", "tiny", cwd=folder, check=False)
    assert lost.returncode == 2 and lost.stderr.strip() == (
        f"error: no study database at studies/tiny.db (relative to {folder}, where tune was started); "
        "tiny.db is here: give --storage sqlite:///tiny.db")
    found = _tune("status", "tiny", "--storage", "sqlite:///tiny.db", cwd=folder)
    assert "tiny" in found.stdout


def test_status_without_a_name_lists_the_tests_and_learning_runs_beside_the_studies(tmp_path, monkeypatch):
    # issue 49: `tune status` listed studies only, though `tune status NAME` shows the other two kinds
    from tests.tuning.fakes import tiny_spec_dict
    from tuning.study.testspec import TestOptions
    from tuning.storage.handle import create_study
    from tuning.storage.learnstore import open_learn
    from tuning.storage.teststore import open_test
    from tuning.study.spec import parse_spec

    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "studies").mkdir()
    create_study(parse_spec(tiny_spec_dict()), f"sqlite:///{tmp_path}/studies/tiny.db").close()
    open_test("v2v1", f"sqlite:///{tmp_path}/studies/v2v1.db", TestOptions(new="chaser", base="random")).close()
    learn = open_learn("td1", f"sqlite:///{tmp_path}/studies/td1.db", create=True)
    learn.create_or_check({"games": 100, "epsilon": 0.3, "lam": 0.8}, may_differ=("games",))
    learn.storage.close()
    text = _tune("status", cwd=tmp_path).stdout
    assert text.startswith("tiny  (") and "bot tests (tune test): v2v1  (tune status NAME for one)" in text
    assert "learning runs (tune learn): td1  (tune status NAME for one)" in text
    listing = _last_json(_tune("status", "--json", cwd=tmp_path))
    assert [s["study"] for s in listing["studies"]] == ["tiny"]
    assert listing["tests"] == ["v2v1"] and listing["learning_runs"] == ["td1"]

"""A busy machine never passes for a program that changed (issue 35): a fingerprint game a
frozen program loses to its clock is played again, only clean plays are hashed, and a game
never clean is refused for the clock in one line, never as "not deterministic" or "plays
differently". The program is real: tests/programs/flaky.py, whose lines are deterministic and
which sleeps 3 s on its 3rd turn in chosen games (limits in a fingerprint: 1 s a turn)."""
import sys

import pytest

from ocean.bots import resolve_bot
from ocean.bots.panel import reload_panels
from ocean.fingerprint import FINGERPRINT_PLAYS, FingerprintError, check_frozen
from ocean.freeze import add_program_bot
from tests.programs.build import HERE

# flaky.py's hashed games: share 32 fails seed 11 as player 1 only; share 36 also seed 22 as player 0
ONE_GAME, TWO_GAMES = "32", "36"


def _command(share: str, *extra: str) -> str:
    return " ".join([sys.executable, "flaky.py", "--seed", "{game_seed}", "--share", share, "--fail", "timeout",
                     *extra])


def test_games_lost_to_the_clock_are_replayed_and_only_clean_plays_count(user_panels, tmp_path, unsandboxed):
    marks = tmp_path / "marks"
    marks.mkdir()
    _, frozen = add_program_bot("flaky-v1", _command(TWO_GAMES, "--once", str(marks)), str(HERE))
    # both fingerprint runs agreed (the first one's two timeouts were played again), and the
    # fingerprint is that of the program never late
    assert frozen.deterministic and sorted(p.name for p in marks.iterdir()) == ["11-1", "22-0"]
    reload_panels()
    spec = resolve_bot("flaky-v1")
    # late again in a check (a worker's, a resume's): replayed, and it is still the same program
    for mark in marks.iterdir():
        mark.unlink()
    check_frozen(spec, fresh=True)
    assert sorted(p.name for p in marks.iterdir()) == ["11-1", "22-0"]


def test_a_game_never_clean_is_refused_for_the_clock_not_as_a_changed_program(user_panels, tmp_path):
    busy = tmp_path / "busy"
    command = _command(ONE_GAME, "--switch", str(busy))
    busy.touch()  # the machine is busy when it is frozen: refused, and why
    with pytest.raises(FingerprintError) as refused:
        add_program_bot("flaky-v1", command, str(HERE))
    message = str(refused.value)
    assert "\n" not in message and "clock" in message and f"all {FINGERPRINT_PLAYS} plays" in message
    assert "seed 11" in message and "--time-scale" in message and "deterministic" not in message
    busy.unlink()  # frozen on a quiet machine, checked on a busy one
    add_program_bot("flaky-v1", command, str(HERE))
    reload_panels()
    spec = resolve_bot("flaky-v1")
    busy.touch()
    with pytest.raises(FingerprintError) as refused:
        check_frozen(spec, fresh=True)
    message = str(refused.value)
    assert "flaky-v1" in message and "clock" in message and "plays differently" not in message
    busy.unlink()
    check_frozen(spec, fresh=True)

"""Progress in a log: plain lines when stderr is not a terminal (issue 36: ``tune validate``
wrote nothing to a log file until it ended)."""
from tuning.cli import bars as B


def test_a_log_gets_plain_progress_lines_as_the_work_goes(capsys, monkeypatch):
    monkeypatch.setattr(B, "PLAIN_EVERY_S", 0.0)
    shown, progress = B.counting_bar("quick validation games")
    with shown:
        progress(0, None)
        progress(500, 24500)
        progress(500, 24500)  # nothing new: not said again
        progress(24500, 24500)
    lines = [line.rsplit("  (", 1)[0] for line in capsys.readouterr().err.splitlines()]
    assert lines == ["quick validation games: 0/?", "quick validation games: 500/24,500",
                     "quick validation games: 24,500/24,500"]


def test_a_log_line_comes_at_most_every_few_seconds_and_once_at_the_end(capsys):
    shown = B.Bars()
    task = shown.progress.add_task("games", total=10, note="")
    with shown:
        for done in range(1, 11):
            shown.progress.update(task, completed=done, note=f"best {done}")
    lines = capsys.readouterr().err.splitlines()
    assert [line.rsplit("  (", 1)[0] for line in lines] == ["games: 1/10  best 1", "games: 10/10  best 10"]

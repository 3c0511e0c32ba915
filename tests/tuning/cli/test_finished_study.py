"""`tune resume` (and `tune launch --or-resume`) of a finished study says it is finished and what
comes next, without starting Ray or showing empty progress bars (issue 35)."""
from tests.tuning.fakes import FakePool, tiny_spec_dict
from tuning.cli.study import resume_study
from tuning.driver.runner import StudyRunner
from tuning.storage.handle import create_study
from tuning.study.spec import parse_spec


def test_resuming_a_finished_study_says_so_and_what_is_next(sqlite_url, capsys):
    handle = create_study(parse_spec(tiny_spec_dict()), sqlite_url)
    try:
        StudyRunner(handle, pool=FakePool()).run()
    finally:
        handle.close()
    capsys.readouterr()

    def pool(*_):
        raise AssertionError("a finished study plays nothing")

    resume_study("tiny", storage=sqlite_url, ray_address="nowhere:1", pool=pool)  # never joins Ray
    out, err = capsys.readouterr()
    assert "study tiny is finished: 3 of 3 trials (3 complete, 0 pruned, 0 failed); nothing to resume" in out
    assert "best: trial" in out and "next: tune validate tiny" in out
    assert "0/?" not in out + err and "trials" not in err

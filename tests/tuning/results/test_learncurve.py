"""The learning report's trust steps (issue 32): a checkpoint given two trust steps (two
``--trust-games``) shows each apart, with its own ladder, scale and trusted scores, and says
which one ``--out`` received; pooled, the rows of both gave a scale neither step chose."""
from tuning.results.learncurve import matches_text, trust_table
from tuning.results.learnreport import write_learn_report
from tuning.storage.learnstore import Checkpoint, TrustRow, open_learn


def _two_steps(store):
    store.create_or_check({"games": 60}, may_differ=("games",))
    store.add_checkpoint(Checkpoint(2, 60, {"v3_regret": 0.1}, 0.01, 50, 1.0))
    # a short step (2 maps a rung): x2 wins, x4 loses: x2
    for scale, against, score in ((2.0, 1.0, 0.75), (4.0, 2.0, 0.25)):
        store.add_trust_row(TrustRow(2, 60, scale, f"x{against:g}", 2, score, 0.5, 0.9))
    store.add_trust_row(TrustRow(2, 60, 2.0, "patient-v1", 5, 0.55, 0.45, 0.65))
    # a longer one (4 maps a rung): x2 loses, x4 (against x1) wins: x4
    for scale, against, score in ((2.0, 1.0, 0.375), (4.0, 1.0, 0.625)):
        store.add_trust_row(TrustRow(2, 60, scale, f"x{against:g}", 4, score, 0.3, 0.8))
    store.add_trust_row(TrustRow(2, 60, 4.0, "patient-v1", 5, 0.6, 0.5, 0.7))


def test_a_checkpoint_with_two_trust_steps_shows_each_and_what_out_received(sqlite_url, tmp_path):
    store = open_learn("td", sqlite_url, create=True)
    try:
        _two_steps(store)
        store.note_written(2, 4, "learned.toml")
        short, long = trust_table(store)
        assert (short["round"], short["trust_games"], short["scale"]) == (2, 8, 2.0)
        assert (long["round"], long["trust_games"], long["scale"]) == (2, 16, 4.0)
        assert matches_text(short) == "x2 vs x1 0.750, x4 vs x2 0.250"
        assert matches_text(long) == "x2 vs x1 0.375, x4 vs x1 0.625"
        assert short["patient-v1"]["score"] == 0.55 and long["patient-v1"]["score"] == 0.6  # each its own weights
        assert (short["out"], long["out"]) == (None, "learned.toml")
        assert "written" not in store.definition()  # the settings alone: a carried-on run reads them back
        write_learn_report(store, tmp_path / "learn.html")
        page = (tmp_path / "learn.html").read_text()
        assert page.count("learned.toml received these weights") == 1
        assert "<td>8</td>" in page and "<td>16</td>" in page and "x2 vs x1 0.750" in page
    finally:
        store.storage.close()

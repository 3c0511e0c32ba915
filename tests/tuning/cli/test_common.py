"""What the command line's pieces print."""
import json
import math

from tuning.cli.common import json_text


def _strict(text: str):
    def refuse(constant):
        raise ValueError(constant)

    return json.loads(text, parse_constant=refuse)


def test_json_text_writes_unbounded_numbers_as_null_so_every_reader_takes_it():
    # An opponent never beaten has an Elo interval open on one side (ocean.stats.elo_estimate).
    value = {"elo": 446.0, "elo_high": math.inf, "per": {"random": [1.0, -math.inf, math.nan]}, "n": 3}
    assert json.dumps(value).count("Infinity") == 2  # what Python alone would print
    assert _strict(json_text(value)) == {"elo": 446.0, "elo_high": None, "per": {"random": [1.0, None, None]}, "n": 3}


def test_a_score_reads_the_same_stored_rounded_or_not():
    # issue 49: the defaults read 0.628 in validate (the score) and 0.627 in status (stored to 6 decimals)
    from tuning.cli.common import fmt, interval

    score = 0.627500000013
    assert fmt(score) == fmt(round(score, 6)) == "0.628"
    assert fmt(0.6274999) == "0.627" and fmt(0.1) == "0.100" and fmt(-0.2525) == "-0.253"
    assert fmt(None) == fmt(math.nan) == "-" and fmt(math.inf) == "inf" and fmt(12, 1) == "12.0"
    assert interval(0.831, 0.8149999, 0.8465) == "0.831 [0.815, 0.847]"

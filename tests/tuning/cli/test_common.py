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

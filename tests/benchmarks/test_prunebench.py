"""The pruning rules' simulation: its measures mean what they say on cases whose answer is known."""
import pytest

from benchmarks.prunebench import Rule, main, parse_rules, simulate


def test_rules_are_parsed_with_one_line_errors():
    assert parse_rules("t, sprt-shrunk,wilcoxon") == [Rule("t"), Rule("sprt", True), Rule("wilcoxon")]
    for bad in ("ttest", "t-biased", ""):
        with pytest.raises(ValueError, match="unknown rule|names no rule"):
            parse_rules(bad)


def test_a_rule_that_cannot_look_plays_every_game_and_prunes_nothing():
    out = simulate([Rule("t")], studies=3, trials=6, maps=20, batch_pairs=10, min_pairs=10_000)
    assert out["t"]["games_share"] == 1.0 and out["t"]["pruned_per_study"] == 0.0
    assert out["t"]["wrongly_pruned_per_study"] == 0.0 and out["t"]["equal_or_better_pruned"] == 0.0


def test_the_incumbent_chosen_among_equal_trials_is_biased_up_and_pruning_saves_games_on_unequal_ones():
    equal = simulate([Rule("t")], studies=8, trials=10, maps=40, batch_pairs=20, min_pairs=20, strength_sd=0.0,
                     opponent_sd=0.0, seed=3)
    assert equal["t"]["incumbent_bias"] > 0.005  # the best of ten equal noisy scores sits above the truth
    spread = simulate([Rule("t"), Rule("sprt")], studies=8, trials=10, maps=40, batch_pairs=20, min_pairs=20,
                      strength_sd=1.0, seed=3)
    assert all(r["games_share"] < 0.9 and r["pruned_per_study"] > 1 for r in spread.values())


def test_bad_arguments_are_one_line_errors(capsys):
    assert main(["--rules", "t,nope"]) == 2
    assert "unknown rule 'nope'" in capsys.readouterr().err
    assert main(["--alpha", "0.7"]) == 2
    assert main(["--base", "1,2", "--studies", "1"]) == 2
    assert "--base gives 2 logits for 4 opponents" in capsys.readouterr().err

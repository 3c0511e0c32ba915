"""A head-to-head score of fixed sets on fixed maps does not depend on how the games were batched
or in which order the maps came (issue 49 item 8: a validation's head-to-head figure moved from
0.752 to 0.746 with the trial, its score, the defaults and theta unchanged). Validation plays its
head-to-head games in batches of maps on Ray workers; a study's path only changes which trial is
chosen, so for the same trial the games must be the same."""
from ocean.bots import resolve_bot
from ocean.match import play_pairs


def test_a_head_to_head_of_fixed_sets_on_fixed_maps_is_the_same_however_it_is_batched():
    defaults = resolve_bot("tunable")
    tuned = defaults.with_params({**defaults.params, "stealth_weight": 0.9, "silence_cost": 1.4}, name="tuned")
    seeds = list(range(9000, 9016))

    def by_game(rows):
        return {(r["seed"], r["a_side"]): r for r in rows}

    whole = by_game(play_pairs(tuned, defaults, seeds).rows())
    batches = [seeds[10:], seeds[:3], seeds[3:10]]  # another split, in another order
    split = by_game([row for part in batches for row in play_pairs(tuned, defaults, part).rows()])
    assert split == whole and len(whole) == 2 * len(seeds)
    again = by_game(play_pairs(tuned.with_params(dict(tuned.params), name="again"), defaults, seeds).rows())
    assert again == whole  # the set's name, like a trial's number, plays no part

"""``ocean._aot``'s group modules (issue 49): one module serves several policies, the rules'
kernels and every kernel two policies share compiled once, and each policy loads from it the
functions it would have had from a module of its own, playing the same lines."""
import os

from ocean import _aot
from ocean.bots.registry import POLICIES
from tests.ocean.test_firstanswer import _game_lines


def test_policies_that_share_a_kernel_share_its_export():
    names = _aot._slot_names([POLICIES["tunable"], POLICIES["tunable-v1"], POLICIES["random"]])
    v1, tunable, random = names[POLICIES["tunable-v1"]], names[POLICIES["tunable"]], names[POLICIES["random"]]
    assert v1["turn"] == tunable["turn"] == f"turn_k{POLICIES['tunable-v1']}"  # the same v1 turn, once
    assert v1["start"] != tunable["start"]  # any water cell, the roomy start: two kernels
    assert random["turn"] not in (v1["turn"], tunable["start"]) and random["start"] == v1["start"]  # random_start


def test_a_group_module_serves_each_policy_and_plays_the_same_lines_as_numba():
    kinds = [POLICIES["random"], POLICIES["chaser"]]
    path = _aot.build_group(kinds)
    assert path == _aot.group_path(kinds[::-1]) and os.path.exists(path)
    for kind in kinds:
        assert not os.path.exists(_aot.module_path(kind))  # found in the group, not in a module of its own
        found = _aot.load(kind)
        assert found is not None and int(found.mem_size()) > 0
        assert all(callable(getattr(found, f)) for f in _aot.FUNCTIONS)
    for name, seed in (("random", 51), ("chaser", 52)):
        fast, verdict = _game_lines(seed, ["--name", name, "--seed", "3"], 0)
        before, verdict_before = _game_lines(seed, ["--name", name, "--seed", "3", "--no-aot"], 0)
        assert verdict["turns"] > 10 and fast == before and verdict == verdict_before

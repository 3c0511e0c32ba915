"""The bot registry's contract: one table whose every entry compiles at the slot signatures,
plays whole games against ``random`` through both doors (the compiled games loop and ``ocean
bot``'s text door) with the same lines, writes only the memory it declares, and whose names,
kinds, frozen flags and coefficient registries are what the rest of the lab derives from."""
import subprocess
import sys

import numpy as np
import pytest
from numba.core import types

from ocean.bots import coefficients as C
from ocean.bots import registry, resolve_bot
from ocean.bots._slots import MEM_SIZE, SIGNATURES, load_slots
from ocean.bots.panel import BUILTIN, panel_bots
from ocean.maps import generate_map, map_rows
from ocean.play import play_with_replay
from ocean.program import TextBot

NAMES = [p.name for p in registry.TABLE]
_UNTOUCHED = np.int64(-0x5EED5EED5EED)  # memory a bot never declared: it must never write there


def test_names_and_kinds_are_unique_and_every_list_derives_from_the_table():
    kinds = [p.kind for p in registry.TABLE]
    assert len(set(NAMES)) == len(NAMES) and len(set(kinds)) == len(kinds)
    assert registry.POLICIES == {p.name: p.kind for p in registry.TABLE}
    for p in registry.TABLE:
        assert registry.policy(p.name) is p and registry.policy_of_kind(p.kind) is p
        assert resolve_bot(p.name).kind == p.kind
        assert p.description and "\n" not in p.description
    assert C.TUNABLE_BOTS == registry.TUNABLE_POLICIES == tuple(p.name for p in registry.TABLE if p.tunable)
    assert set(registry.STUDY_POLICIES) <= set(registry.TUNABLE_POLICIES)
    assert set(registry.WARMUP_POLICIES) == {p.name for p in registry.TABLE if p.warmup}


def test_unknown_policies_and_kinds_are_refused_in_one_line_naming_the_choices():
    with pytest.raises(ValueError, match=r"^unknown policy 'nobody'; policies: random, chaser, tunable"):
        registry.policy("nobody")
    with pytest.raises(ValueError, match=r"^no policy has kind 99; kinds: 0 \(random\)"):
        registry.policy_of_kind(99)
    with pytest.raises(ValueError, match="unknown policy"):
        registry.is_frozen("nobody")


def test_frozen_flags_and_the_panel_members_that_guard_them():
    assert {n for n in NAMES if registry.is_frozen(n)} == {"random", "chaser", "tunable", "tunable-v1", "tunable-v2"}
    assert not registry.is_frozen("tunable-v3")
    played = {bot["policy"] for bot in panel_bots().values() if bot["source"] == BUILTIN and bot["fingerprint"]}
    # A frozen policy is played by a built-in panel member whose fingerprint checks it (in
    # test_policies); a policy that still changes is played by none.
    assert {n for n in NAMES if registry.is_frozen(n)} <= played
    assert not {n for n in NAMES if not registry.is_frozen(n)} & played


def test_coefficient_registries_come_from_the_entries():
    for p in registry.TABLE:
        if not p.tunable:
            assert p.coefficient_registry() == ()
            with pytest.raises(C.ParamsError, match="reads no coefficients"):
                C.registry(p.name)
            continue
        coefs = p.coefficient_registry()
        assert C.registry(p.name) is coefs and 0 < len(coefs) <= C.VECTOR_SIZE
        assert len({c.name for c in coefs}) == len(coefs)
        assert all(isinstance(c, C.Coefficient) for c in coefs)
    assert C.registry("tunable-v1") is C.registry("tunable") is C.COEFFICIENTS


def test_every_bots_memory_array_covers_every_entry():
    sizes = {n: registry.mem_size(n) for n in NAMES}
    assert all(size > 0 for size in sizes.values())
    assert MEM_SIZE == registry.mem_size() == max(sizes.values())


def test_naming_a_policy_imports_no_kernel_and_compiles_nothing():
    code = ("import sys\nfrom ocean.bots import registry, resolve_bot\n"
            "for name in registry.POLICIES:\n    registry.policy(name); resolve_bot(name).vector()\n"
            "print(' '.join(sorted(m for m in sys.modules if m == 'numba' or m.startswith('ocean.'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert "numba" not in loaded
    kernel_modules = {ref.partition(":")[0] for p in registry.TABLE for ref in (p.start, p.reset, p.turn)}
    assert not kernel_modules & set(loaded), loaded


def _text_door_answers(name: str, seed: int, me: int, data: dict) -> tuple[list[str], np.ndarray]:
    """``ocean bot``'s answers (start, then every turn) to the input the compiled game showed
    player ``me``, and its memory array afterwards (filled beforehand with _UNTOUCHED)."""
    bot = TextBot(resolve_bot(name), seed)
    bot.mem = np.full(MEM_SIZE, _UNTOUCHED, dtype=np.int64)
    answers = [bot.start([f"15 15 {me}"] + map_rows(generate_map(seed)), warm=True)]
    for turn in data["turns"]:
        if turn["player"] == me:
            answers.append(bot.turn(turn["input"]))
    return answers, bot.mem


@pytest.mark.parametrize("name", NAMES)
def test_every_entry_compiles_at_the_slot_signatures_and_plays_random_through_both_doors(name):
    entry = registry.policy(name)
    for kernel, signature in zip(load_slots(entry.kind), SIGNATURES):
        # a kernel first compiled from inside another kernel (tunable-td's self-play calls v3's
        # reset) may type ``return 0`` as the literal 0: the same int64 in the compiled code
        assert types.unliteral(kernel.get_compile_result(signature).signature.return_type) == types.int64
    declared = registry.mem_size(name)
    for seed, me in ((5, 0), (77, 1)):
        bots = (name, "random") if me == 0 else ("random", name)
        verdict, data = play_with_replay(seed, bots)  # the compiled loop (raises if the rules disagree)
        assert not verdict["disqualified"][me], (name, seed, verdict)
        assert verdict["turns"] > 1
        answers, mem = _text_door_answers(name, seed, me, data)
        assert answers[0] == data["start_output"][me]
        assert answers[1:] == [t["output"] for t in data["turns"] if t["player"] == me], (name, seed)
        assert (mem[declared:] == _UNTOUCHED).all(), f"{name} writes beyond the {declared} words it declares"

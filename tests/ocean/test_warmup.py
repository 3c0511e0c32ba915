"""``ocean warmup`` on an empty cache splits the compile over two processes by naming
kernels and their signatures. A named signature that no caller uses would be compiled for
nothing (and the caller's own would be compiled late, in one process), so each must be the
only one compiled for its kernel, by either process, and the one this process used."""
import json
import os
import subprocess
import sys

import pytest

_CHECK = """
import json
from ocean.bots.registry import FIRST_USE_POLICIES
from ocean.warmup import _main_chain, _side_kernels, _slot_kernels, warm_up

def _text(sig):
    return str(tuple(getattr(sig, "args", sig)))

said = []
spent = warm_up(log=said.append)
from ocean.bots import resolve_bot
from ocean.warmup import program_is_compiled

v3 = resolve_bot("tunable-v3").kind
first_use_before = program_is_compiled(v3)
all_bots = warm_up(all_bots=True)
first_use_after = program_is_compiled(v3)
kernels = []
later = [k for kernels in _slot_kernels(FIRST_USE_POLICIES) for k in kernels]
for d, sig in _main_chain() + _side_kernels() + later:
    cached = sorted(_text(key[0]) for key in d._cache._cache_file._load_index())
    kernels.append([d.py_func.__qualname__, [_text(s) for s in d.signatures], cached, _text(sig)])
print(json.dumps({"spent": spent, "kernels": kernels, "first_use": [first_use_before, first_use_after], "all_bots": all_bots, "said": said}))
"""


@pytest.mark.drill  # a whole cold compile in two processes (about 15 s): CI runs it, the README's command not
def test_an_empty_cache_compiles_in_two_processes_the_signatures_the_callers_use(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", _CHECK], capture_output=True, text=True, check=True, env=env)
    report = json.loads(out.stdout.splitlines()[-1])
    assert "parallel compile" in report["spent"]
    # it says what it compiles as it goes: the plan, then each kernel of this process's share
    said = report["said"]
    assert said[0].startswith("compiling the kernels into the cache") and "helper process" in said[0]
    update = [i for i, line in enumerate(said) if line.startswith("  compiling tracking._driver.observe_from_state (")]
    assert len(update) == 1 and update[0] < next(i for i, line in enumerate(said) if line.startswith("parallel compile"))
    # The v3 bot (compiled on first use) is not part of the cold compile; ``warm_up(all_bots=True)`` adds it.
    assert report["first_use"] == [False, True]
    assert any(name.startswith("bots compiled on first use") for name in report["all_bots"])
    # Both processes wrote the one folder of this source digest, nothing beside it.
    assert [p.name for p in tmp_path.iterdir()] == ["cache"]
    assert len(list((tmp_path / "cache").iterdir())) == 1
    for name, used, cached, named in report["kernels"]:
        # Compiled by either process at the named signature only, once (a caller typed with
        # another one would have compiled and cached that one too; a slot kernel asked for
        # by its argument types alone, beside the slot's full signature, would be twice) ...
        assert cached == [named], (name, cached, named)
        # ... and, where this process called or linked it, at that signature.
        assert used in ([], [named]), (name, used, named)


def test_warmup_writes_the_bytecode_ocean_bot_would_otherwise_compile_at_each_start():
    # An editable install writes no bytecode, nor does Python with PYTHONDONTWRITEBYTECODE set:
    # without warmup's, each `ocean bot` start compiled its modules again.
    import importlib.util

    import ocean.program
    from ocean.warmup import _byte_compile

    cached = importlib.util.cache_from_source(ocean.program.__file__)
    if os.path.exists(cached):
        os.remove(cached)
    _byte_compile()
    assert os.path.exists(cached)
    source_mtime = int(os.stat(ocean.program.__file__).st_mtime)
    with open(cached, "rb") as fh:
        header = fh.read(16)
    if int.from_bytes(header[4:8], "little") == 0:  # a timestamp pyc (SOURCE_DATE_EPOCH makes hash ones)
        assert int.from_bytes(header[8:12], "little") == source_mtime  # current, not stale


def test_kernels_cached_says_whether_a_kernel_is_in_this_versions_cache(tmp_path):
    # what `tune learn` asks before its first games, to say it compiles tunable-td (issue 49)
    probe = ("from ocean.warmup import kernels_cached\n"
             "from ocean.bots._baselines import seed_rng\n"
             "import numpy as np\n"
             "ref = 'ocean.bots._baselines:seed_rng'\n"
             "before = kernels_cached(ref)\n"
             "seed_rng(np.ones(1, dtype=np.uint64), np.int64(1))\n"
             "print(before, kernels_cached(ref), kernels_cached(ref, 'ocean.bots.td._selfplay:learn_games'))")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env, timeout=600)
    assert out.stdout.split() == ["False", "True", "False"]


def test_a_silent_step_is_named_again_with_its_time_so_far():
    # issue 49: under load a kernel's compile took minutes with no line; a heartbeat repeats it
    import time

    from ocean.warmup import _Heartbeat

    said = []
    with _Heartbeat(said.append, every=0.2) as log:
        log("  compiling bots.v2._turn.v2_turn (19/21)")
        deadline = time.monotonic() + 60  # a guard: the beat comes within 0.2 s on an idle machine
        while len(said) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    assert said[0] == "  compiling bots.v2._turn.v2_turn (19/21)"
    assert said[1].startswith("  ... compiling bots.v2._turn.v2_turn (19/21) (") and said[1].endswith(" s so far)")
    count = len(said)
    time.sleep(0.5)
    assert len(said) == count  # silent once the step is over

"""``ocean warmup`` on an empty cache splits the compile over two processes by naming
kernels and their signatures. A named signature that no caller uses would be compiled for
nothing (and the caller's own would be compiled late, in one process), so each must be the
one the compiled callers and the families really use."""
import json
import os
import subprocess
import sys

_CHECK = """
import json
from ocean.warmup import _main_chain, _side_kernels, warm_up
spent = warm_up()
print(json.dumps({"spent": spent, "kernels": [[d.py_func.__qualname__, [str(s) for s in d.signatures], str(tuple(sig))]
                                              for d, sig in _main_chain() + _side_kernels()]}))
"""


def test_an_empty_cache_compiles_in_two_processes_the_signatures_the_callers_use(tmp_path):
    # An empty cache of its own: this process compiles the callers and loads the helper
    # process's kernels at the signatures the callers ask for.
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", _CHECK], capture_output=True, text=True, check=True, env=env)
    report = json.loads(out.stdout.splitlines()[-1])
    assert "parallel compile" in report["spent"]
    for name, used, named in report["kernels"]:
        assert used == [named], (name, used, named)

"""Compiled kernels are cached per version of the package source."""
import os
import subprocess
import sys

import numba

from ocean._cache import _source_digest, configure_cache


def test_the_cache_folder_is_keyed_by_the_source_digest(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    before = numba.config.CACHE_DIR
    try:
        folder = configure_cache()
        assert folder == os.path.join(str(tmp_path), f"ocean-{_source_digest()}")
        assert numba.config.CACHE_DIR == folder
    finally:
        numba.config.CACHE_DIR = before
    assert _source_digest() == _source_digest()


def test_a_fresh_process_caches_where_configured(tmp_path):
    code = ("import numpy as np, ocean; from ocean.maps import generate_island_kernel; "
            "generate_island_kernel(np.int64(1))")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    (folder,) = tmp_path.iterdir()
    assert folder.name == f"ocean-{_source_digest()}"
    assert any(p.suffix == ".nbi" for p in folder.rglob("*"))

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


def test_warmup_removes_other_versions_folders_unused_for_long_and_keeps_the_rest(tmp_path, monkeypatch):
    import time

    from ocean._cache import LAST_USED, STALE_DAYS, remove_stale

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    old, recent, mine = (tmp_path / f"ocean-{d}" for d in ("0" * 16, "1" * 16, _source_digest()))
    for folder in (old, recent, mine):
        (folder / "x").mkdir(parents=True)
        (folder / LAST_USED).touch()
    (tmp_path / "not-ours").mkdir()
    long_ago = time.time() - (STALE_DAYS + 1) * 86400
    for folder in (old, mine, tmp_path / "not-ours"):
        os.utime(folder / LAST_USED if (folder / LAST_USED).exists() else folder, (long_ago, long_ago))
    assert remove_stale() == [old.name]
    assert not old.exists() and recent.exists() and mine.exists() and (tmp_path / "not-ours").exists()


def test_each_process_marks_its_folder_used(tmp_path, monkeypatch):
    from ocean._cache import LAST_USED

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    before = numba.config.CACHE_DIR
    try:
        folder = configure_cache()
    finally:
        numba.config.CACHE_DIR = before
    assert os.path.exists(os.path.join(folder, LAST_USED))

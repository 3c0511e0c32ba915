"""Where compiled kernels are cached, keyed by the source of the whole package.

Numba invalidates a cached function only when its own file changes, not when a kernel it
calls in another file does; after an upgrade that would silently run stale rules. So every
version of the package's source gets a cache folder of its own. Each process that uses a
folder marks it used (``LAST_USED``), and ``ocean warmup`` removes the folders of other versions
not used for ``STALE_DAYS`` (``remove_stale``): upgrades do not pile up compiled code forever,
and two versions in use side by side (two checkouts) keep theirs.
"""
import hashlib
import os
import re
import time
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=None)
def _source_digest() -> str:
    # Once a process, the folder of the source it started with: a start of ``ocean bot`` asks
    # for its folder three times, and each reading and hashing of the source is 5 ms.
    digest = hashlib.sha256()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


LAST_USED = "last-used"  # a file in a version's folder, touched by every process using it
STALE_DAYS = 14.0  # a folder of another version unused this long is removed by ocean warmup
_FOLDER = re.compile(r"ocean-[0-9a-f]{16}")


def _root() -> str:
    return os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "ocean-lab")


def cache_folder() -> str:
    """``<root>/ocean-<digest>``: this version's folder (no Numba imported: ``ocean._aot`` keeps
    ``ocean bot``'s compiled modules there too)."""
    return os.path.join(_root(), f"ocean-{_source_digest()}")


def configure_cache() -> str:
    """Point Numba's cache at ``<root>/ocean-<digest>``; root is NUMBA_CACHE_DIR if set,
    else the user's cache folder; mark the folder used now. Returns the folder."""
    import numba

    folder = cache_folder()
    numba.config.CACHE_DIR = folder
    try:
        os.makedirs(folder, exist_ok=True)
        Path(folder, LAST_USED).touch()
    except OSError:
        pass  # a read-only cache (a baked image): Numba reads it all the same
    return folder


def remove_stale(*, days: float = STALE_DAYS, now: float | None = None) -> list[str]:
    """Remove the cache folders of other versions of the package not used for ``days`` (by
    their ``LAST_USED`` mark, else the folder's own time); the removed folders' names."""
    root, current = Path(_root()), f"ocean-{_source_digest()}"
    if not root.is_dir():
        return []
    cutoff = (time.time() if now is None else now) - days * 86400.0
    removed = []
    for folder in sorted(root.iterdir()):
        if folder.name == current or not folder.is_dir() or not _FOLDER.fullmatch(folder.name):
            continue
        mark = folder / LAST_USED
        try:
            used = (mark if mark.exists() else folder).stat().st_mtime
        except OSError:
            continue
        if used < cutoff:
            import shutil  # here: ``ocean bot`` imports this module, and never removes a folder

            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder.name)
    return removed

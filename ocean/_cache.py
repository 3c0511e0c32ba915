"""Where compiled kernels are cached, keyed by the source of the whole package.

Numba invalidates a cached function only when its own file changes, not when a kernel it
calls in another file does; after an upgrade that would silently run stale rules. So every
version of the package's source gets a cache folder of its own.
"""
import hashlib
import os
from pathlib import Path

import numba


def _source_digest() -> str:
    digest = hashlib.sha256()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def configure_cache() -> str:
    """Point Numba's cache at ``<root>/ocean-<digest>``; root is NUMBA_CACHE_DIR if set,
    else the user's cache folder. Returns the folder."""
    root = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "ocean-lab")
    folder = os.path.join(root, f"ocean-{_source_digest()}")
    numba.config.CACHE_DIR = folder
    return folder

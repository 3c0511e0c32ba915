"""What code played a study's games: the installed package's version (stored with studies,
tests and exports)."""
from __future__ import annotations

from importlib import metadata

__all__ = ["package_version"]


def package_version() -> str:
    """The installed ``ocean-tuning-lab`` version ("unknown" when run from a bare checkout)."""
    try:
        return metadata.version("ocean-tuning-lab")
    except metadata.PackageNotFoundError:
        return "unknown"

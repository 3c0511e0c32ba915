"""How every kernel is compiled, in one place: cached on disk (in a folder per version of
the package source, set here before any kernel exists), and with NumPy's error model (no
zero-division checks on integer division, which the rules never divide by)."""
from ocean._cache import configure_cache

configure_cache()

from numba import njit  # noqa: E402

kernel = njit(cache=True, error_model="numpy")
inline_kernel = njit(cache=True, error_model="numpy", inline="always")  # hot paths only

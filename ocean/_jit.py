"""How every kernel is compiled, in one place: cached on disk, and with NumPy's error model
(no zero-division checks on integer division, which the rules never divide by)."""
from numba import njit

kernel = njit(cache=True, error_model="numpy")
inline_kernel = njit(cache=True, error_model="numpy", inline="always")  # hot paths only

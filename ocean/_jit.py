"""How every kernel is compiled, in one place: cached on disk (in a folder per version of
the package source, set here before any kernel exists), and with NumPy's error model (no
zero-division checks on integer division, which the rules never divide by).

A kernel called from another kernel is compiled once per type signature of the call, and
Numba types a constant argument as its literal value (``emit_action(out, n, ACT_MOVE, d, 0)``
is ``Literal[int](1)``, ``Literal[int](0)``): left alone, every distinct constant would be a
separate compilation of the callee, linked into every caller above it (it was 70 of them,
a tenth of the cold compile). Our kernels never need a literal argument, so calls between
them are typed with the plain types (int64, bool); after LLVM inlines the small callees the
constants are folded just the same.
"""
import warnings

from ocean._cache import configure_cache

configure_cache()

from numba.core import types  # noqa: E402
from numba.core.errors import NumbaExperimentalFeatureWarning  # noqa: E402
from numba.core.registry import CPUDispatcher  # noqa: E402

# The games loop reaches every bot through function pointers (bots/_slots.py), a Numba
# feature still called experimental; its warning at every compile of the loop would only worry
# a user who ran `ocean warmup`. The feature is pinned by the tests that play games.
warnings.filterwarnings("ignore", message="First-class function type feature is experimental",
                        category=NumbaExperimentalFeatureWarning)


class _Kernel(CPUDispatcher):
    """A CPU dispatcher whose calls from compiled code never specialise on literal values."""

    def get_call_template(self, args, kws):
        args = tuple(types.unliteral(a) for a in args)
        kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


def _compiler(**options):
    def wrap(func):
        dispatcher = _Kernel(py_func=func, locals={},
                             targetoptions=dict(nopython=True, boundscheck=None, error_model="numpy", **options))
        dispatcher.enable_caching()
        return dispatcher
    return wrap


kernel = _compiler()
inline_kernel = _compiler(inline="always")  # hot paths only


@kernel
def copy_into(dst, src):
    """``dst[:len(src)] = src[:]`` element by element. Kernels copy arrays with this rather
    than by slice assignment: Numba compiles, in every process, the shape-mismatch error
    of the first array-to-array slice assignment (about 3 s: string formatting) and links it
    into every kernel that assigns a slice. Rows never overlap partially here (a row onto
    itself or onto an earlier row)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]

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

The cache may be read-only: a program run in the sandbox (``ocean.sandbox``) that runs ``ocean
bot`` sees the lab's cache but may not write to it (a program must never plant code the lab
loads later), as may a baked image. Numba's own locators then give up on the folder and compile
every kernel again (over a minute per game start); ours loads what is there and keeps a kernel
it had to compile in memory only.
"""
import os
import warnings

from ocean._cache import configure_cache

configure_cache()

from numba.core import config, types  # noqa: E402
from numba.core.caching import CompileResultCacheImpl, FunctionCache, UserProvidedCacheLocator  # noqa: E402
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


class _ReadableLocator(UserProvidedCacheLocator):
    """The lab's cache folder (``numba.config.CACHE_DIR``), taken when it exists even if this
    process may not write to it (Numba's locator requires a writable folder)."""

    @classmethod
    def from_function(cls, py_func, py_file):
        if not config.CACHE_DIR or not os.path.exists(py_file):
            return None
        locator = cls(py_func, py_file)
        try:
            os.makedirs(locator.get_cache_path(), exist_ok=True)
        except OSError:
            if not os.path.isdir(locator.get_cache_path()):
                return None
        return locator


class _LabCacheImpl(CompileResultCacheImpl):
    _locator_classes = [_ReadableLocator, *CompileResultCacheImpl._locator_classes]


class _LabCache(FunctionCache):
    """Numba's function cache on the lab's folder, read-only or not."""

    _impl_class = _LabCacheImpl

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        except OSError:
            pass  # a read-only cache: the kernel compiled here lives in this process only


def _compiler(**options):
    def wrap(func):
        dispatcher = _Kernel(py_func=func, locals={},
                             targetoptions=dict(nopython=True, boundscheck=None, error_model="numpy", **options))
        dispatcher._cache = _LabCache(func)  # what enable_caching() does, with our cache class
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

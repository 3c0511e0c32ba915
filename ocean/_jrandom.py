"""java.util.Random, bit-exact, as compiled kernels.

The whole generator state is one int64 holding the 48-bit seed; int64 products wrap
modulo 2**64, which leaves the low 48 bits exact, so no big integers are needed.
"""
from ocean._jit import kernel

_MULTIPLIER = 0x5DEECE66D
_ADDEND = 0xB
_MASK = (1 << 48) - 1


@kernel
def java_seed(seed):
    """Initial 48-bit state of ``new java.util.Random(seed)`` for a signed 64-bit seed."""
    return (seed ^ _MULTIPLIER) & _MASK


@kernel
def java_next(state, bits):
    """``Random.next(bits)``: returns (new_state, value) with value as Java's signed int."""
    state = (state * _MULTIPLIER + _ADDEND) & _MASK
    value = state >> (48 - bits)
    if value >= 0x80000000:  # Java casts to a signed 32-bit int
        value -= 0x100000000
    return state, value


@kernel
def java_next_int(state, bound):
    """``Random.nextInt(bound)`` for bound > 0: returns (new_state, value)."""
    if bound & -bound == bound:
        state, bits = java_next(state, 31)
        return state, (bound * bits) >> 31
    while True:
        state, bits = java_next(state, 31)
        value = bits % bound
        # Java rejects draws whose bucket would overflow a signed 32-bit int.
        if bits - value + (bound - 1) < 0x80000000:
            return state, value

"""The ``ocean`` command's entry point: ``ocean bot`` with a compiled module goes straight to
the game, everything else to the command line (``ocean.cli``).

A bot program has 1000 ms for its first answer, and the command line alone (Typer, Rich and
the imports of every command) took a quarter of a second before a game began. So ``ocean bot``
with only ``--params``/``--name``/``--seed``/``--turn-ms`` (or none) imports NumPy, the bot's coefficients and
its policy's ahead-of-time module (``ocean._aot``, built by ``ocean warmup``), and plays; a
policy without one loads its kernels through Numba, still without the command line, if they are
in the cache. ``--turn-ms`` is the time per answer a clocked search (``tunable-v4``) stops on;
its kernels are in its policy's module too. Anything else (``--help``, a mistake, kernels to compile first, an external
program) goes to ``ocean.cli`` as before, which says what is wrong in one line.

On this path NumPy is most of a start's CPU (issue 49: 168 ms a start, 80 ms wanted, so that a
busy machine's first answer stays inside 1000 ms): what it imports besides is what a policy by
name needs (``ocean.bots`` loads the panels' file, external programs, TOML and "did you mean"
only for a name or a file that needs them; ``ocean._cache`` hashes the source once).
"""
from __future__ import annotations

import os
import sys

__all__ = ["main", "fast_bot"]

_OPTIONS = ("--params", "--name", "--seed", "--turn-ms")


def _bot_options(args: list[str]) -> dict | None:
    """``--params``/``--name``/``--seed``/``--turn-ms`` values of ``ocean bot``'s arguments, or
    None for anything the command line should handle (other options, a value missing or
    malformed, a time that is not positive)."""
    values: dict[str, str] = {}
    i = 0
    while i < len(args):
        option, eq, value = args[i].partition("=")
        if option not in _OPTIONS or option in values:
            return None
        if not eq:
            if i + 1 >= len(args):
                return None
            i += 1
            value = args[i]
        values[option] = value
        i += 1
    if "--params" in values and "--name" in values:
        return None
    try:
        values["--seed"] = int(values.get("--seed", "0"))
        if "--turn-ms" in values:
            values["--turn-ms"] = int(values["--turn-ms"])
    except ValueError:
        return None
    if values.get("--turn-ms", 1) <= 0:
        return None  # ocean.cli's message
    return values


def fast_bot(args: list[str]) -> bool:
    """Play ``ocean bot ARGS`` without the command line if it can (True once played)."""
    options = _bot_options(args)
    if options is None:
        return False
    # NumPy's OpenBLAS starts a thread per core when NumPy is imported, a fifth of the import's
    # time; a bot never does linear algebra (its kernels are compiled code).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from ocean.bots import resolve_bot
    from ocean.program import TextBot, run_program

    try:
        params = options.get("--params")
        spec = resolve_bot(f"params:{params}" if params is not None else options.get("--name", "tunable"))
        if spec.is_program:
            return False
        try:
            bot = TextBot(spec, options["--seed"], options.get("--turn-ms"), aot=True)
        except ValueError:  # no module: Numba's kernels if they are compiled (else ocean.cli says so)
            sys.modules.setdefault("scipy", None)  # as ocean.cli: Numba's import probes SciPy's BLAS
            from ocean.warmup import program_is_compiled

            if not program_is_compiled(spec.kind):
                return False
            bot = TextBot(spec, options["--seed"], options.get("--turn-ms"), aot=False)
    except (ValueError, OSError):
        return False  # the command line says what is wrong
    try:
        run_program(spec, options["--seed"], bot=bot)
    except (ValueError, IndexError) as exc:
        print(f"error: unexpected input from the referee: {exc}", file=sys.stderr)  # as ocean.cli's
        raise SystemExit(2) from None
    except BrokenPipeError:
        pass
    return True


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["bot"] and fast_bot(args[1:]):
        return
    from ocean.cli import app

    app(prog_name="ocean")

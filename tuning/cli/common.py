"""What every ``tune`` command shares: one line and exit code 2 for a user's mistake (a
``TuningError``, a bad coefficient file), quiet libraries, the help of the common options, and
how scores, intervals and figures print."""
from __future__ import annotations

import functools
import json
import logging
import math
from typing import Callable, Optional

import typer

__all__ = ["STORAGE_HELP", "RAY_HELP", "fail", "user_errors", "connect_said", "fmt", "interval", "elo_text", "print_figures",
           "figures_line", "browser_line",
           "json_text"]

STORAGE_HELP = ("Study database URL (default: $OCEAN_STORAGE, else the study file's `storage` key, remembered at "
                "launch for the commands that take a NAME, else sqlite:///studies/NAME.db under the current folder).")
RAY_HELP = "Join this Ray cluster (host:port or 'auto'; default: a local Ray on every core, or $RAY_ADDRESS)."


def fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def user_errors(fn: Callable) -> Callable:
    """Turn the service's user-facing errors into one line on stderr and exit code 2."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from ocean.bots.coefficients import ParamsError
        from tuning.errors import TuningError
        from tuning.storage.database import hide_passwords_in_argv

        hide_passwords_in_argv()  # before Ray copies our command line into its job table
        _quiet_libraries()
        try:
            return fn(*args, **kwargs)
        except (TuningError, ParamsError) as exc:
            fail(str(exc))

    return wrapper


def open_named(name: str, storage: Optional[str], opener: Callable):
    """``opener(name, url)`` on the database NAME's commands use (``--storage``, else its
    default), if that database exists and the opener finds NAME there; else None (NAME may be
    another kind of thing: a study, a test, a learning run). Never creates a database."""
    from pathlib import Path

    from tuning.errors import TuningError
    from tuning.storage.database import parse_url, resolve_url

    url = resolve_url(name, option=storage)
    parsed = parse_url(url)
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database).exists():
        return None
    try:
        return opener(name, url)
    except TuningError:
        return None


def write_page(out, write: Callable[[], dict], close: Callable[[], None]) -> dict:
    """``write()`` a report page to ``out`` and what it wrote; ``close()`` after, whatever
    happens; a file that cannot be written is one line."""
    from tuning.errors import TuningError

    try:
        return write()
    except OSError as exc:
        raise TuningError(f"cannot write {out}: {exc.strerror}") from None
    finally:
        close()


def figures_line(out, pngs) -> str:
    """The line saying a report page was written and where its figures went, and the line
    saying how to look at it."""
    if not pngs:
        return f"{out} written\n{browser_line(out)}"
    folder = pngs[0].parent
    return (f"{out} written, with {len(pngs)} figures in {folder}/: " + ", ".join(p.name for p in pngs)
            + f"\n{browser_line(out)}")


def browser_line(out) -> str:
    """``open it in a browser: file:///...``: the page's address, to click or paste."""
    from pathlib import Path

    return f"open it in a browser: {Path(out).resolve().as_uri()}"


def _quiet_libraries() -> None:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)


def fmt(x: Optional[float], digits: int = 3) -> str:
    """``x`` to ``digits`` decimals, halves up from its shortest decimal form: a score stored
    rounded to 6 decimals (0.6275) reads as the unrounded one (0.627500001) does, 0.628, where
    binary rounding printed 0.627 for one and 0.628 for the other (issue 49)."""
    from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    try:
        return str(Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))
    except InvalidOperation:  # infinite, or too many digits for a decimal
        return f"{x:.{digits}f}"


def interval(score, low, high) -> str:
    return f"{fmt(score)} [{fmt(low)}, {fmt(high)}]"


def elo_text(mean, low, high) -> str:
    """An Elo difference with its interval: +123 [+98, +150] (``ocean.stats.format_elo``)."""
    from ocean.stats import format_elo

    return format_elo(mean, low, high)


def json_text(value) -> str:
    """``value`` as strict JSON on one line: a number without a finite value (an Elo bound of an
    opponent never beaten, or always beaten) becomes null, which every JSON reader takes, where
    Python's own ``Infinity`` and ``NaN`` are not JSON."""
    return json.dumps(_finite(value), allow_nan=False)


def _finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def print_figures(figures: dict, as_json: bool) -> None:
    """A benchmark's figures: one JSON object, or one ``key: value`` line each."""
    if as_json:
        typer.echo(json_text(figures))
    else:
        for key, value in figures.items():
            typer.echo(f"{key}: {value}")


def connect_said(address: Optional[str]) -> int:
    """Start or join Ray (``tuning.driver.cluster.connect``), saying so (a minute on a busy
    machine) and how long it took; nothing when this process has joined already."""
    import os
    import time

    import ray

    from tuning.driver.cluster import connect

    if ray.is_initialized():
        return connect(address)
    where = address or os.environ.get("RAY_ADDRESS")
    typer.echo(f"joining the Ray cluster at {where}..." if where else "starting Ray (a local instance)...", err=True)
    start = time.perf_counter()
    workers = connect(address)
    typer.echo(f"Ray ready: {workers} CPUs in {time.perf_counter() - start:.1f} s", err=True)
    return workers

"""``ocean``: the engine's command line (maps, referee, in-process games, benchmark)."""
from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Ocean of Code: the exact engine, a referee for programs, in-process games, benchmarks.")

_SEED_HELP = "Map seed: a signed 64-bit integer, as the referee's java.util.Random takes it."


def _fail(message: str) -> None:
    """One clear line on stderr and exit code 2: a user mistake, never a traceback."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _check_seed(seed: int) -> int:
    from ocean.maps import validate_seed

    try:
        return validate_seed(seed)
    except ValueError as exc:
        _fail(str(exc))


@app.command("map")
def map_command(
    seed: int = typer.Option(..., "--seed", help=_SEED_HELP),
    count: Optional[int] = typer.Option(None, "--count", help="Print N lines '<seed> <225 chars>' for seeds S..S+N-1."),
) -> None:
    """Print the referee's map for a seed ('x' island, '.' water)."""
    from ocean.maps import generate_map, map_rows

    seed = _check_seed(seed)
    if count is None:
        typer.echo("\n".join(map_rows(generate_map(seed))))
        return
    if count < 1:
        _fail(f"--count must be at least 1, got {count}")
    _check_seed(seed + count - 1)
    out = sys.stdout
    for s in range(seed, seed + count):
        out.write(f"{s} {''.join(map_rows(generate_map(s)))}\n")


def _write_replay(path: Optional[Path], data: dict) -> None:
    if path is None:
        return
    try:
        path.write_text(json.dumps(data, separators=(",", ":")))
    except OSError as exc:
        _fail(f"cannot write the replay to {path}: {exc.strerror}")


def _print_verdict(verdict: dict, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(verdict))
        return
    winner = verdict["winner"]
    outcome = "draw" if winner == -1 else f"player {winner} wins"
    typer.echo(f"{outcome}: scores {verdict['scores'][0]}-{verdict['scores'][1]}, "
               f"{verdict['reason']} after {verdict['turns']} turns")
    for p, why in enumerate(verdict["disqualified"]):
        if why:
            typer.echo(f"player {p} disqualified: {why}")


@app.command()
def referee(
    seed: int = typer.Option(..., "--seed", help=_SEED_HELP),
    p0: str = typer.Option(..., "--p0", help="Command of player 0 (split like a shell would, run without one)."),
    p1: str = typer.Option(..., "--p1", help="Command of player 1."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as one JSON object on the last line."),
    replay: Optional[Path] = typer.Option(None, "--replay", help="Write the whole game as JSON to this file."),
    first_timeout: int = typer.Option(1000, "--first-timeout", help="Milliseconds allowed for the first answer."),
    timeout: int = typer.Option(50, "--timeout", help="Milliseconds allowed for every later answer."),
) -> None:
    """Play two CodinGame programs against each other with the exact rules."""
    from ocean.referee import referee_game

    seed = _check_seed(seed)
    if first_timeout <= 0 or timeout <= 0:
        _fail("--first-timeout and --timeout are milliseconds and must be positive")
    for name, command in (("--p0", p0), ("--p1", p1)):
        try:
            if not shlex.split(command):
                _fail(f"{name} is empty; give the command that runs the program")
        except ValueError as exc:
            _fail(f"{name} cannot be split into words ({exc}); check its quotes")
    try:
        verdict, data = referee_game(seed, (p0, p1), first_timeout_ms=first_timeout, timeout_ms=timeout)
    except (FileNotFoundError, PermissionError, ValueError) as exc:
        _fail(str(exc))
    _write_replay(replay, data)
    _print_verdict(verdict, as_json)


@app.command()
def play(
    seed: int = typer.Option(..., "--seed", help=_SEED_HELP),
    p0: str = typer.Option("random", "--p0", help="In-process bot of player 0: random or chaser."),
    p1: str = typer.Option("chaser", "--p1", help="In-process bot of player 1: random or chaser."),
    game_seed: Optional[int] = typer.Option(None, "--game-seed", help="Seed of the bots' randomness (default: the map seed)."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as one JSON object on the last line."),
    replay: Optional[Path] = typer.Option(None, "--replay", help="Write the whole game as JSON to this file."),
) -> None:
    """Play a game between two in-process bots."""
    from ocean.bots import bot_kind
    from ocean.play import play_with_replay

    seed = _check_seed(seed)
    if game_seed is not None:
        _check_seed(game_seed)
    for name in (p0, p1):
        try:
            bot_kind(name)
        except ValueError as exc:
            _fail(str(exc))
    verdict, data = play_with_replay(seed, (p0, p1), game_seed)
    _write_replay(replay, data)
    _print_verdict(verdict, as_json)


@app.command()
def bench(
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object on the last line."),
    games: int = typer.Option(20000, "--games", help="Games to play for the throughput figures."),
    skip_startup: bool = typer.Option(False, "--skip-startup", help="Do not measure cold compile and warm start."),
) -> None:
    """Measure the engine: player-turns and games per second on one core with random
    legal bots, map generation rate, cold compile time and warm start time."""
    from ocean.bench import run_bench

    if games < 10:
        _fail(f"--games must be at least 10, got {games}")
    figures = run_bench(games=games, startup=not skip_startup, progress=not as_json)
    if as_json:
        typer.echo(json.dumps(figures))
        return
    for key, value in figures.items():
        typer.echo(f"{key:>28}: {value}")


def main() -> None:  # pragma: no cover - console entry point
    app()

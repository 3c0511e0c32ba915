"""``tune learn``: learn the ``tunable-td`` bot's weights by TD(lambda) self-play on Ray, every
checkpoint stored, resumable, with its learning curve against the yardstick bots.

``COMMANDS`` holds the command (``tuning.cli.main`` adds it to the app)."""
from __future__ import annotations

from typing import Optional

import typer

from tuning.cli.common import RAY_HELP, STORAGE_HELP, fail, fmt, json_text, user_errors

__all__ = ["COMMANDS", "learn"]


class _Bar:
    """One rich progress line on stderr: self-play games, the round's TD error, the last score."""

    def __init__(self, name: str, total: int, done: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(TextColumn("{task.description}"), BarColumn(bar_width=24), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TextColumn("{task.fields[note]}"), console=Console(stderr=True))
        self.task = self.progress.add_task(f"{name} self-play games", total=total, completed=done, note="")
        self.score = ""

    def __enter__(self):
        self.progress.start()
        return self

    def __exit__(self, *exc):
        self.progress.stop()

    def on_round(self, cp) -> None:
        self.progress.update(self.task, completed=cp.games,
                             note=f"round {cp.round}  TD error {cp.td_error:.4f}/turn  {self.score}")

    def on_score(self, s) -> None:
        self.score = f"{s.opponent} {s.score:.3f} at {s.games:,}"
        self.progress.update(self.task, note=self.score)


def _print_curve(store, as_json: bool) -> None:
    from tuning.results.learncurve import curve_table

    rows = curve_table(store)
    if as_json:
        typer.echo(json_text({"run": store.name, "curve": rows}))
        return
    names = sorted({k for r in rows for k in r if k not in ("round", "games")})
    typer.echo(f"{'games':>10}  " + "  ".join(f"{'vs ' + n:>26}" for n in names))
    for r in rows:
        cells = [f"{fmt(r[n]['score'])} [{fmt(r[n]['low'])}, {fmt(r[n]['high'])}]" if n in r else "-" for n in names]
        typer.echo(f"{r['games']:>10,}  " + "  ".join(f"{c:>26}" for c in cells))


@user_errors
def learn(
    name: str = typer.Argument(..., help="Name of the learning run (its checkpoints are stored under it)."),
    games: Optional[int] = typer.Option(None, help="Self-play games to reach (a run carried on goes on to this)."),
    out: Optional[str] = typer.Option(None, help="Write the learned weights here as a coefficient file "
                                                 "(ocean bot --params FILE, params:FILE)."),
    storage: Optional[str] = typer.Option(None, help=STORAGE_HELP),
    epsilon: float = typer.Option(0.3, help="Chance of a random line instead of the best one (exploration)."),
    lam: float = typer.Option(0.8, "--lambda", help="TD(lambda)'s trace decay: 0 looks one turn ahead, 1 to the result."),
    learning_rate: float = typer.Option(0.005, help="Step size of the TD update."),
    schedule: str = typer.Option("harmonic", help="constant, or harmonic: rate / (1 + games / --decay-games)."),
    decay_games: int = typer.Option(50_000, help="Games after which a harmonic rate has halved."),
    start: str = typer.Option("zero", help="Starting weights: zero, or a tunable-td coefficient file."),
    opponents: str = typer.Option("self", help="Comma-separated, taken in turn game by game: self (both sides "
                                               "learn), tunable-v3 (its defaults; only our side learns)."),
    round_games: int = typer.Option(1000, help="Games per round: a checkpoint of weights after each."),
    batches: int = typer.Option(2, help="Ray tasks per round, each learning from the round's weights; the "
                                        "driver averages them (part of the run's definition: results never "
                                        "depend on the cores)."),
    seed: int = typer.Option(0, help="Which learning maps (0-99): runs with other seeds see other maps."),
    score_every: int = typer.Option(10_000, help="Score a checkpoint against the yardsticks every this many "
                                                 "games (0: never)."),
    score_maps: int = typer.Option(100, help="Held-out maps per yardstick score (each played twice)."),
    report: bool = typer.Option(False, help="Print the run's learning curve (no games played)."),
    plot: Optional[str] = typer.Option(None, help="With --report: draw the curve into this PNG file."),
    as_json: bool = typer.Option(False, "--json", help="With --report: the curve as one JSON object."),
    ray_address: Optional[str] = typer.Option(None, help=RAY_HELP),
) -> None:
    """Learn the tunable-td bot's weights by TD(lambda) self-play (seed 003), resumable."""
    from tuning.driver.learn import LearnOptions, starting_weights
    from tuning.storage.database import resolve_url
    from tuning.storage.learnstore import open_learn

    url = resolve_url(name, option=storage)
    if report:
        store = open_learn(name, url, create=False)
        try:
            _print_curve(store, as_json)
            if plot:
                from tuning.results.learncurve import draw_curve

                typer.echo(f"curve: {draw_curve(store, plot)}", err=as_json)
        finally:
            store.storage.close()
        return
    if games is None or out is None:
        fail("give --games N (self-play games to reach) and --out FILE (where the weights go), or --report")
    options = LearnOptions(games=games, epsilon=epsilon, lam=lam, learning_rate=learning_rate, schedule=schedule,
                           decay_games=decay_games, start={}, opponents=tuple(o.strip() for o in opponents.split(",")),
                           round_games=round_games, batches=batches, seed=seed, score_every=score_every,
                           score_maps=score_maps)
    options.check()
    from dataclasses import replace

    options = replace(options, start=starting_weights(start))
    _learn_and_write(name, url, options, out, ray_address)


def _learn_and_write(name, url, options, out, ray_address) -> None:
    from ocean.bots.coefficients import save_params
    from tuning.driver.cluster import connect
    from tuning.driver.learn import POLICY, LearnOptions, run_learn
    from tuning.storage.learnstore import open_learn

    store = open_learn(name, url, create=True)
    try:
        stored, created = store.create_or_check(options.definition(), may_differ=("games",))
        if not created:  # the stored run's options, with the new target
            stored = dict(stored, games=options.games, opponents=tuple(stored["opponents"]),
                          yardsticks=tuple(stored["yardsticks"]))
            options = LearnOptions(**stored)
        cpus = connect(ray_address)
        last = store.last_checkpoint()
        with _Bar(name, options.games, last.games if last else 0) as bar:
            cp = run_learn(store, options, parallel=cpus, on_round=bar.on_round, on_score=bar.on_score)
        save_params(cp.weights, out, {"learned_by": f"tune learn {name}", "storage": store.storage.masked,
                                      "self_play_games": cp.games, "round": cp.round}, policy=POLICY)
        typer.echo(f"{name}: {cp.games:,} self-play games, {cp.round} rounds; weights written to {out} "
                   f"(ocean bot --params {out})")
        scores = [s for s in store.scores() if s.round == cp.round]
        for s in scores:
            typer.echo(f"  vs {s.opponent}: {s.score:.3f} [{s.low:.3f}, {s.high:.3f}] on {s.maps} held-out maps x 2")
    finally:
        store.storage.close()


COMMANDS = (learn,)

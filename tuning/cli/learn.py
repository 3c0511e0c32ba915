"""``tune learn``: learn the ``tunable-td`` bot's weights by TD(lambda) self-play on Ray, every
checkpoint stored, resumable, with its learning curve against the yardstick bots.

``COMMANDS`` holds the command (``tuning.cli.main`` adds it to the app)."""
from __future__ import annotations

from typing import Optional

import typer

from tuning.cli.bars import Bars
from tuning.cli.common import (RAY_HELP, STORAGE_HELP, browser_line, fail, fmt, json_text, open_named, user_errors,
                               write_page)

__all__ = ["COMMANDS", "learn"]

_TRUST_GAMES = 4000  # --trust-games by default


class _Bar(Bars):
    """One rich progress line on stderr: self-play games, the round's TD error, the last score."""

    def __init__(self, name: str, total: int, done: int) -> None:
        super().__init__(bar_width=24)
        self.task = self.progress.add_task(f"{name} self-play games", total=total, completed=done, note="")
        self.score = ""

    def on_round(self, cp) -> None:
        self.progress.update(self.task, completed=cp.games,
                             note=f"round {cp.round}  TD error {cp.td_error:.4f}/turn  {self.score}")

    def on_score(self, s) -> None:
        self.score = f"{s.opponent} {s.score:.3f} at {s.games:,}"
        self.progress.update(self.task, note=self.score)


class _TrustBar(Bars):
    """The trust step's matches on one rich progress line."""

    def __init__(self, name: str, trust_games: int) -> None:
        from tuning.driver.trust import SCALES, trust_maps

        super().__init__(bar_width=24)
        self.task = self.progress.add_task(f"{name} trust step", total=len(SCALES) - 1, completed=0,
                                           note=f"{trust_maps(trust_games)} maps a match")

    def on_match(self, row) -> None:
        if row.rung:
            self.progress.update(self.task, advance=1,
                                 note=f"x{row.scale:g} vs {row.opponent}: {row.score:.3f}")


def _print_curve(store, as_json: bool) -> None:
    from tuning.results.learncurve import curve_table, matches_text, trust_table

    rows, trust = curve_table(store), trust_table(store)
    if as_json:
        typer.echo(json_text({"run": store.name, "curve": rows, "trust": trust}))
        return
    names = sorted({k for r in rows for k in r if k not in ("round", "games")})
    typer.echo(f"{'games':>10}  " + "  ".join(f"{'vs ' + n:>26}" for n in names))
    for r in rows:
        cells = [f"{fmt(r[n]['score'])} [{fmt(r[n]['low'])}, {fmt(r[n]['high'])}]" if n in r else "-" for n in names]
        typer.echo(f"{r['games']:>10,}  " + "  ".join(f"{c:>26}" for c in cells))
    for r in trust:
        to = f"; {r['out']} (--out) received it" if r["out"] else ""
        typer.echo(f"trust step after {r['games']:,} games, {r['trust_games']:,} self-play games: v3_regret "
                   f"x{r['scale']:g} ({matches_text(r)}){to}")
        for n in names:
            if n in r:
                typer.echo(f"  trusted vs {n}: {fmt(r[n]['score'])} [{fmt(r[n]['low'])}, {fmt(r[n]['high'])}]")


def write_report(name: str, storage: Optional[str], out) -> bool:
    """``tune report NAME`` for a learning run (``out`` already checked); False if NAME is no
    learning run there (it may be a study)."""
    from tuning.results.learnreport import write_learn_report
    from tuning.storage.learnstore import open_learn

    store = open_named(name, storage, lambda n, url: open_learn(n, url, create=False))
    if store is None:
        return False
    written = write_page(out, lambda: write_learn_report(store, out), store.storage.close)
    typer.echo(f"{out} written" + (f", with its curve beside it: {written['pngs'][0].name}" if written["pngs"]
                                   else " (no checkpoint scored yet: no curve)"))
    typer.echo(browser_line(out))
    return True


@user_errors
def learn(
    name: str = typer.Argument(..., help="Name of the learning run (its checkpoints are stored under it)."),
    games: Optional[int] = typer.Option(None, help="Self-play games to reach (a run carried on goes on to this)."),
    out: Optional[str] = typer.Option(None, help="Write the learned weights here as a coefficient file "
                                                 "(ocean bot --params FILE, params:FILE)."),
    storage: Optional[str] = typer.Option(None, help=STORAGE_HELP),
    epsilon: Optional[float] = typer.Option(None, help="Chance of a random line instead of the best one "
                                                       "(exploration; default 0.3)."),
    lam: Optional[float] = typer.Option(None, "--lambda", help="TD(lambda)'s trace decay: 0 looks one turn ahead, "
                                                               "1 to the result (default 0.8)."),
    learning_rate: Optional[float] = typer.Option(None, help="Step size of the TD update (default 0.005)."),
    schedule: Optional[str] = typer.Option(None, help="constant, or harmonic (the default): rate / (1 + games / "
                                                      "--decay-games)."),
    decay_games: Optional[int] = typer.Option(None, help="Games after which a harmonic rate has halved (50,000)."),
    start: Optional[str] = typer.Option(None, help="Starting weights: zero (the default), or a tunable-td "
                                                   "coefficient file."),
    opponents: Optional[str] = typer.Option(None, help="Comma-separated, taken in turn game by game: self (the "
                                                       "default; both sides learn), tunable-v3 (its defaults; only "
                                                       "our side learns)."),
    round_games: Optional[int] = typer.Option(None, help="Games per round: a checkpoint of weights after each "
                                                         "(1,000)."),
    batches: Optional[int] = typer.Option(None, help="Ray tasks per round, each learning from the round's weights; "
                                                     "the driver averages them (2; part of the run's definition: "
                                                     "results never depend on the cores)."),
    seed: Optional[int] = typer.Option(None, help="Which learning maps (0-99, default 0): runs with other seeds "
                                                  "see other maps."),
    score_every: Optional[int] = typer.Option(None, help="Score a checkpoint against the yardsticks every this "
                                                         "many games (10,000; 0: never)."),
    score_maps: Optional[int] = typer.Option(None, help="Held-out maps per yardstick score, each played twice "
                                                        "(100)."),
    trust_games: int = typer.Option(_TRUST_GAMES, help="Self-play games of the trust step after TD: how far to trust "
                                               "v3's ranking, learned by matches of the learner against itself "
                                               "(0: none; docs/learning.md)."),
    report: bool = typer.Option(False, help="Print the run's learning curve (no games played)."),
    plot: Optional[str] = typer.Option(None, help="With --report: draw the curve into this PNG file."),
    as_json: bool = typer.Option(False, "--json", help="With --report: the curve as one JSON object."),
    ray_address: Optional[str] = typer.Option(None, help=RAY_HELP),
    allow_code_change: bool = typer.Option(False, "--allow-code-change", help="Carry the run on although the code "
                                           "(ocean/ and tuning/) differs from the one its games were played under."),
) -> None:
    """Learn the tunable-td bot's weights by TD(lambda) self-play (seed 003), resumable."""
    from tuning.driver.learn import LearnOptions, starting_weights
    from tuning.driver.trust import trust_maps
    from tuning.storage.database import resolve_url
    from tuning.study.names import plain_name
    from tuning.storage.learnstore import open_learn

    url = resolve_url(plain_name(name, "learning run name"), option=storage)
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
    given = {key: value for key, value in dict(
        epsilon=epsilon, lam=lam, learning_rate=learning_rate, schedule=schedule, decay_games=decay_games,
        opponents=None if opponents is None else tuple(o.strip() for o in opponents.split(",")),
        round_games=round_games, batches=batches, seed=seed, score_every=score_every, score_maps=score_maps,
    ).items() if value is not None}
    LearnOptions(games=games, **given).check()  # every mistake is found before a file is written
    trust_maps(trust_games)
    start_weights = None if start is None else starting_weights(start)
    carry_on = _carry_on(name, games, out, storage, trust_games)
    _learn_and_write(name, url, games, given, start_weights, out, ray_address, trust_games, allow_code_change,
                     carry_on)


def _carry_on(name: str, games: int, out: str, storage: Optional[str], trust_games: int) -> str:
    """The command that carries this run on (after Ctrl-C or a database outage): the options it
    cannot do without, and those given that change what it does (a password masked)."""
    from tuning.storage.database import mask

    command = f"tune learn {name} --games {games} --out {out}"
    if storage:
        command += f" --storage {mask(storage)}"
    if trust_games != _TRUST_GAMES:
        command += f" --trust-games {trust_games}"
    return command


def _learn_and_write(name, url, games, given, start_weights, out, ray_address, trust_games,
                     allow_code_change=False, carry_on=None) -> None:
    """Create the run from the options given (the rest: defaults), or carry the stored one on:
    options not given are the stored ones, options given must match them."""
    from ocean.bots.coefficients import save_params
    from ocean.warmup import kernels_cached
    from tuning.cli.common import connect_said
    from tuning.driver.cluster import connect
    from tuning.driver.learn import POLICY, LearnOptions, run_learn, starting_weights
    from tuning.driver.trust import TRUSTED, run_trust, trust_maps
    from tuning.errors import TuningError
    from tuning.storage.learnstore import open_learn

    carry_on = carry_on or f"tune learn {name} --games {games} --out {out}"
    store = open_learn(name, url, create=True, resume=carry_on)  # a database outage's message names it
    try:
        stored = store.definition()
        if stored is None:
            options = LearnOptions(games=games, start=start_weights or starting_weights("zero"), **given)
            stored, _ = store.create_or_check(options.definition(), may_differ=("games",))
        wanted = dict(given, **({} if start_weights is None else {"start": start_weights}))
        differ = [f"--{key.replace('_', '-') if key != 'lam' else 'lambda'} {_text(value)} (the run has "
                  f"{_text(stored[key])})" for key, value in wanted.items()
                  if not _same(stored.get(key), value)]
        if differ:
            raise TuningError(f"learning run {name!r} exists with other settings: {'; '.join(differ)}; carry it on "
                              f"without them (tune learn {name} --games N --out FILE) or give a new run another name")
        store.check_code(allow_change=allow_code_change)
        options = LearnOptions(**dict(stored, games=games, opponents=tuple(stored["opponents"]),
                                      yardsticks=tuple(stored["yardsticks"])))
        last = store.last_checkpoint()
        cpus = None
        if last is not None and last.games > games:
            # Past the target: the checkpoint reached at it (the learning curve's points), nothing played.
            cp = [c for c in store.checkpoints() if c.games <= games][-1]
        else:
            cpus = connect_said(ray_address)
            if not kernels_cached("ocean.bots.td._selfplay:learn_games"):
                typer.echo(f"compiling {POLICY}'s self-play kernels (once per installed version: a minute or more, "
                           "longer on a busy machine; ocean warmup --all does it ahead)...", err=True)
            try:
                with _Bar(name, options.games, last.games if last else 0) as bar:
                    cp = run_learn(store, options, parallel=cpus, on_round=bar.on_round, on_score=bar.on_score)
            except KeyboardInterrupt:
                _stopped(store, carry_on, out, "during self-play")
        weights, provenance, step = cp.weights, {}, None
        if trust_games:
            cpus = cpus or connect(ray_address)
            try:
                with _TrustBar(name, trust_games) as bar:
                    step = run_trust(store, options, cp, trust_games, parallel=cpus, on_match=bar.on_match)
            except KeyboardInterrupt:
                _stopped(store, carry_on, out, "during the trust step")
            weights = step.weights
            provenance = {"trust_scale": step.scale, "trust_games": step.games}
        save_params(weights, out, {"learned_by": f"tune learn {name}", "storage": store.storage.masked,
                                   "self_play_games": cp.games, "round": cp.round, **provenance}, policy=POLICY)
        store.note_written(cp.round, trust_maps(trust_games) if step is not None else None, out)
        typer.echo(f"{name}: {cp.games:,} self-play games, {cp.round} rounds; weights written to {out} "
                   f"(ocean bot --params {out})")
        for s in store.scores():
            if s.round == cp.round:
                typer.echo(f"  TD vs {s.opponent}: {s.score:.3f} [{s.low:.3f}, {s.high:.3f}] on {s.maps} held-out "
                           "maps x 2")
        if step is not None:
            typer.echo(f"  trust step: {step.games:,} self-play games chose v3_regret x{step.scale:g} "
                       f"({TRUSTED} {cp.weights[TRUSTED]:.4g} -> {weights[TRUSTED]:.4g})")
            for row in step.rows:
                if not row.rung:
                    typer.echo(f"  trusted vs {row.opponent}: {row.score:.3f} [{row.low:.3f}, {row.high:.3f}] on "
                               f"{row.maps} held-out maps x 2")
    finally:
        store.storage.close()


def _stopped(store, command: str, out: str, when: str) -> None:
    """Ctrl-C: say what was kept and how to carry on, write ``out`` from the last checkpoint
    (its TD weights as they stood, without the trust step), and exit with code 130."""
    from ocean.bots.coefficients import save_params
    from tuning.driver.learn import POLICY

    cp = store.last_checkpoint()
    carry_on = f"carry on with  {command}"
    if cp is None or cp.round == 0:
        typer.echo(f"interrupted {when}: no checkpoint yet, nothing learned kept; {carry_on}", err=True)
        raise typer.Exit(130)
    save_params(cp.weights, out, {"learned_by": f"tune learn {store.name}", "storage": store.storage.masked,
                                  "self_play_games": cp.games, "round": cp.round,
                                  "interrupted": f"Ctrl-C {when}, before the trust step" if "self-play" in when
                                  else f"Ctrl-C {when}: its TD weights, not trusted"}, policy=POLICY)
    typer.echo(f"interrupted {when}: kept {cp.games:,} self-play games, {cp.round} rounds (every checkpoint, "
               f"in {store.storage.masked}); the last checkpoint's weights written to {out} (without the trust "
               f"step); {carry_on}", err=True)
    raise typer.Exit(130)


def _same(stored, given) -> bool:
    return stored == given if isinstance(given, dict) else _text(stored) == _text(given)


def _text(value) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    if isinstance(value, dict):
        return "the weights of that file" if any(value.values()) else "zero"
    return str(value)


COMMANDS = (learn,)

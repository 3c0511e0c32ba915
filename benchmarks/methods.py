"""Which sampler, budget and pruning find the strongest validated bot with the fewest games.

    python -m benchmarks.methods [--study studies/quick.toml] [--methods tpe,cmaes,random,tpe-noprune]
                             [--budgets 20,40] [--repeats 3] [--out bench-methods] [--json]

For each method (a sampler kind, with the study file's pruning or ``-noprune``; ``spsa-h2h``: SPSA
scored head to head, theta+ against theta-, instead of against the panel), each budget (a
number of trials) and each repetition (the sampler seed), the real study loop runs: the study
file with those settings, ``StudyRunner`` on Ray into a SQLite file of its own. Each run then
chooses its best as a user's study does (``validate_study``: the defaults and the top K by
training score on the first half of the study file's held-out maps; best validated wins), and
that choice is scored once more on the second half, maps nothing was chosen on: the reported
score carries no winner's curse from the choice. It also plays the study's defaults there, head to
head (``h2h_score``: above one half, it beats them): against a panel of weaker bots every nearby
set scores alike, and only the duel shows what a strong bot gained. Every run's figures go to ``runs.jsonl`` in the
output folder as they finish, so an interrupted benchmark carries on where it stopped.

The summary gives, per method and budget, the training games spent (mean over repetitions), the
reported score (mean, min and max), the games needed to reach 95% of the best mean score any
method reached, and a figure (``methods.png``): reported score against games, one line per
method with its min-max band.
"""
from __future__ import annotations

import json
import math
import statistics
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

__all__ = ["Method", "parse_methods", "run_methods", "summarize_runs", "rescore_pruned"]

_REPORT_PHASE = "report"


_SAMPLERS = ("tpe", "cmaes", "gp", "random", "spsa")
_H2H = "h2h"  # the suffix of SPSA scored head to head: spsa-h2h


@dataclass(frozen=True)
class Method:
    """A sampler kind with the study file's pruning, or with pruning off, and optionally its own
    number of startup trials (``-sN``) instead of the study file's; ``head_to_head``: SPSA scored
    theta+ against theta- (``-h2h``)."""

    sampler: str
    pruning: bool = True
    startup: int | None = None
    head_to_head: bool = False

    @property
    def name(self) -> str:
        return self.sampler + (f"-{_H2H}" if self.head_to_head else "") + \
            ("" if self.startup is None else f"-s{self.startup}") + ("" if self.pruning else "-noprune")


def parse_methods(text: str) -> list[Method]:
    """``"tpe,cmaes-s4,random-noprune"`` -> methods; one-line ValueError for an unknown name."""
    out = []
    for word in (w.strip() for w in text.split(",") if w.strip()):
        sampler, *suffixes = word.split("-")
        pruning, startup, h2h = True, None, False
        for suffix in suffixes:
            if suffix == "noprune" and pruning:
                pruning = False
            elif suffix == _H2H and sampler == "spsa" and not h2h:
                h2h = True
            elif suffix[:1] == "s" and suffix[1:].isdigit() and startup is None:
                startup = int(suffix[1:])
            else:
                sampler = ""
        if sampler not in _SAMPLERS:
            raise ValueError(f"unknown method {word!r}: use {', '.join(_SAMPLERS)}, optionally followed by -sN "
                             "(N startup trials) and -noprune, e.g. cmaes-s4-noprune; spsa-h2h scores SPSA head "
                             "to head")
        out.append(Method(sampler, pruning=pruning, startup=startup, head_to_head=h2h))
    if not out:
        raise ValueError("--methods names no method")
    return out


def _run_spec(base: dict, method: Method, trials: int, repeat: int, choose: dict) -> dict:
    data = json.loads(json.dumps(base))  # a deep copy of plain TOML data
    data["name"] = f"m-{method.name}-{trials}-{repeat}"
    data["n_trials"] = trials
    data["sampler"] = {**data.get("sampler", {}), "kind": method.sampler, "seed": repeat}
    data["sampler"].pop("scoring", None)
    if method.head_to_head:
        data["sampler"]["scoring"] = "head-to-head"
    if method.startup is not None:
        data["sampler"]["startup_trials"] = method.startup
    data["pruning"] = {**data.get("pruning", {}), "enabled": method.pruning and data.get("pruning", {}).get(
        "enabled", True)}
    data["validation"] = {**data.get("validation", {}), **choose}
    return data


def _held_out_halves(base: dict, games: int | None) -> tuple[dict, list[int], int]:
    """The study file's held-out maps split in two: the first half to choose on (as a
    ``[validation]`` table), the second half to report on (seeds), and the games per opponent."""
    from tuning.study.spec import parse_spec

    validation = parse_spec({"n_trials": 1, **base}).validation
    half = validation.seeds.count // 2
    games = min(games or validation.games, 2 * half)
    if half < 1 or games < 2:
        raise ValueError("the study file's [validation] seeds are too few to split in two halves")
    games -= games % 2
    choose = {"seeds": {"start": validation.seeds.start, "count": half}, "games": games}
    duel = base.get("validation", {}).get("head_to_head_games")
    if duel is not None:  # the study file's duel, cut to the halved maps as --games cuts the rest
        choose["head_to_head_games"] = min(duel, games)
    report = list(range(validation.seeds.start + half, validation.seeds.start + half + games // 2))
    return choose, report, games


def _score_on(pool, handle, params: dict, seeds: Sequence[int], panel: Sequence | None = None) -> dict:
    """Play ``params`` against the training panel (or ``panel``) on ``seeds``: the mean score
    and its interval."""
    from tuning.driver.evaluation import pair_scores_of_rows, plan_batches, summarize

    panel = handle.panel if panel is None else panel
    opponents = [b.name for b in panel]
    pending = plan_batches(trial=-1, phase=_REPORT_PHASE, panel=panel, seeds=seeds,
                           batch_pairs=handle.batch_pairs(len(seeds)), done={}, replay_opponent=False)
    scores: dict = {}
    while pending or len(pool):
        while pending and not pool.full:
            pool.submit(pending.pop(0), params)
        for batch, result in pool.wait(timeout=10.0):
            if isinstance(result, Exception):
                raise RuntimeError(f"report games against {batch.opponent.name} failed: {result}")
            scores.update(pair_scores_of_rows(batch.opponent.name, result.rows))
    estimate, _ = summarize(scores, opponents)
    return {"score": estimate.mean, "low": estimate.low, "high": estimate.high}


def _one_run(base: dict, method: Method, trials: int, repeat: int, choose: dict, report_seeds: list[int],
             top_k: int | None, folder: Path, pool, study_dir: Path) -> dict:
    from tuning.driver.runner import StudyRunner
    from tuning.results.validation import validate_study
    from tuning.storage.handle import create_study
    from tuning.study.spec import parse_spec

    spec = parse_spec(_run_spec(base, method, trials, repeat, choose), base=study_dir)
    db = folder / f"{spec.name}.db"
    db.unlink(missing_ok=True)  # a run cut short is run again from the start
    handle = create_study(spec, f"sqlite:///{db}")
    try:
        start = time.perf_counter()
        ran = StudyRunner(handle, pool=pool, log=lambda line: None).run()
        validated = validate_study(handle, top_k=top_k, pool=pool)
        best = validated[0]
        reported = _score_on(pool, handle, best.params, report_seeds)
        defaults = handle.bot.with_params(handle.bot.params, name="defaults")
        duel = _score_on(pool, handle, best.params, report_seeds, panel=[defaults])
        reported.update(h2h_score=duel["score"], h2h_low=duel["low"], h2h_high=duel["high"])
        return {"method": method.name, "trials": trials, "repeat": repeat,
                "train_games": ran.games + ran.games_wasted, "games_saved": ran.games_saved,
                "complete": ran.complete, "pruned": ran.pruned, "failed": ran.failed,
                "validation_games": handle.games.count_games(phase="validate"),
                "chosen_trial": best.trial, "chosen_validated": best.estimate.mean, **reported,
                "seconds": round(time.perf_counter() - start, 1)}
    finally:
        handle.close()


def _done_runs(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_methods(*, study: Path, methods: Sequence[Method], budgets: Sequence[int], repeats: int, out: Path,
                games: int | None = None, top_k: int | None = None, ray_address: str | None = None,
                log: Callable[[str], None] = print) -> dict:
    """Run every (method, budget, repetition) not yet in ``out/runs.jsonl``; returns the summary."""
    from tuning.driver.cluster import connect
    from tuning.driver.pool import BatchPool
    from tuning.study.opponents import study_bot
    from tuning.study.spec import parse_spec

    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)  # one line per run is ours to print
    base = tomllib.loads(study.read_text())
    base_spec = parse_spec({"n_trials": 1, **base}, source=str(study), base=study.parent)  # n_trials: each run's
    choose, report_seeds, games = _held_out_halves(base, games)
    out.mkdir(parents=True, exist_ok=True)
    (out / "studies").mkdir(exist_ok=True)
    runs_file = out / "runs.jsonl"
    done = {(r["method"], r["trials"], r["repeat"]) for r in _done_runs(runs_file)}
    cpus = connect(ray_address)
    pool = BatchPool(cpus + 1, bot=study_bot(base_spec), time_control=base_spec.time_control)
    plan = [(m, b, r) for b in budgets for r in range(1, repeats + 1) for m in methods
            if (m.name, b, r) not in done]
    log(f"{len(plan)} runs to play ({len(done)} already in {runs_file}); choosing on {choose['seeds']['count']} "
        f"held-out maps, reporting on {len(report_seeds)} others, {games} games per opponent each")
    defaults = _score_on(pool, _panel_handle(base_spec), dict(study_bot(base_spec).params), report_seeds) \
        if not (out / "defaults.json").exists() else json.loads((out / "defaults.json").read_text())
    (out / "defaults.json").write_text(json.dumps(defaults))
    for i, (method, budget, repeat) in enumerate(plan, 1):
        row = _one_run(base, method, budget, repeat, choose, report_seeds, top_k, out / "studies", pool, study.parent)
        with runs_file.open("a") as f:
            f.write(json.dumps(row) + "\n")
        log(f"[{i}/{len(plan)}] {method.name} {budget} trials, seed {repeat}: {row['train_games']:,} training games, "
            f"chose trial {row['chosen_trial']}, reported {row['score']:.3f} [{row['low']:.3f}, {row['high']:.3f}] "
            f"({row['seconds']:.0f} s)")
    summary = summarize_runs(_done_runs(runs_file), defaults)
    _figure(summary, out / "methods.png")
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def rescore_pruned(*, study: Path, out: Path, per_run: int, games: int | None = None,
                   ray_address: str | None = None, log: Callable[[str], None] = print) -> dict:
    """Good trials wrongly pruned, measured: in every run with pruning of ``out/runs.jsonl``,
    the ``per_run`` pruned trials with the best score when pruned are played in full on the
    report maps (the maps the run's chosen best was scored on); a pruned trial scoring above
    the run's chosen best was a good trial wrongly pruned (within the noise of both scores,
    which the summary gives). Results go to ``out/pruned.jsonl`` (resumable)."""
    import optuna
    from optuna.trial import TrialState

    from tuning.driver.cluster import connect
    from tuning.driver.pool import BatchPool
    from tuning.storage.handle import open_study
    from tuning.study.opponents import study_bot
    from tuning.study.spec import parse_spec

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    base = tomllib.loads(study.read_text())
    base_spec = parse_spec({"n_trials": 1, **base}, source=str(study), base=study.parent)
    _, report_seeds, _ = _held_out_halves(base, games)
    path = out / "pruned.jsonl"
    done = {(r["run"], r["trial"]) for r in _done_runs(path)}
    pool = BatchPool(connect(ray_address) + 1, bot=study_bot(base_spec), time_control=base_spec.time_control)
    for run in _done_runs(out / "runs.jsonl"):
        if run["method"].endswith("-noprune") or not run.get("pruned"):
            continue
        name = f"m-{run['method']}-{run['trials']}-{run['repeat']}"
        handle = open_study(name, f"sqlite:///{out / 'studies' / name}.db")
        try:
            pruned = sorted((t for t in handle.trials(TrialState.PRUNED) if t.intermediate_values),
                            key=lambda t: -t.intermediate_values[max(t.intermediate_values)])[:per_run]
            for t in pruned:
                if (name, t.number) in done:
                    continue
                scored = _score_on(pool, handle, handle.space.full_params(t.params), report_seeds)
                row = {"run": name, "trial": t.number, "when_pruned": t.intermediate_values[max(t.intermediate_values)],
                       "games_when_pruned": max(t.intermediate_values), **scored, "run_best": run["score"],
                       "run_best_low": run["low"], "run_best_high": run["high"]}
                with path.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                log(f"{name} trial {t.number}: pruned at {row['when_pruned']:.3f}, in full {row['score']:.3f} "
                    f"(the run's best {run['score']:.3f})")
        finally:
            handle.close()
    rows = _done_runs(path)
    above = [r for r in rows if r["score"] > r["run_best"]]
    clearly = [r for r in rows if r["low"] > r["run_best_high"]]
    return {"rescored": len(rows), "above_best": len(above), "clearly_above_best": len(clearly),
            "runs": len({r["run"] for r in rows}),
            "mean_gap": statistics.fmean(r["score"] - r["run_best"] for r in rows) if rows else None}


@dataclass(frozen=True)
class _PanelOnly:
    """What ``_score_on`` needs of a study: its panel and batch size."""

    panel: list
    spec: object

    def batch_pairs(self, available: int) -> int:
        """The study file's batch size; with ``"auto"`` the first guess (no game timed here)."""
        from tuning.study.batching import BatchSizer

        return BatchSizer(self.spec.batch_pairs).pairs(available)


def _panel_handle(spec) -> _PanelOnly:
    from tuning.study.opponents import resolve_panel

    return _PanelOnly(resolve_panel(spec.panel), spec)


def summarize_runs(runs: Sequence[dict], defaults: dict | None = None) -> dict:
    """Per (method, budget): games and reported score over repetitions; per method: the fewest
    games at which its mean score reached 95% of the best mean score of any method and budget."""
    cells: dict[tuple[str, int], list[dict]] = {}
    for r in runs:
        cells.setdefault((r["method"], r["trials"]), []).append(r)
    table = []
    for (method, trials), rs in sorted(cells.items()):
        scores = [r["score"] for r in rs]
        table.append({"method": method, "trials": trials, "repeats": len(rs),
                      "train_games": statistics.fmean(r["train_games"] for r in rs),
                      "score": statistics.fmean(scores), "score_median": statistics.median(scores),
                      "score_min": min(scores), "score_max": max(scores),
                      "score_sd": statistics.stdev(scores) if len(scores) > 1 else 0.0,
                      **_h2h_cell([r["h2h_score"] for r in rs if r.get("h2h_score") is not None])})
    best = max((row["score"] for row in table), default=math.nan)
    target = 0.95 * best
    reach = {}
    for method in sorted({row["method"] for row in table}):
        hits = [row["train_games"] for row in table if row["method"] == method and row["score"] >= target]
        reach[method] = min(hits) if hits else None
    # The chosen best's score on the maps it was chosen on, less its score on fresh maps: the
    # winner's curse left in a best validated score (validation picks the max of K+1 noisy scores).
    curse = [r["chosen_validated"] - r["score"] for r in runs if "chosen_validated" in r]
    return {"table": table, "best_mean_score": best, "target_95": target, "games_to_95": reach,
            "defaults": defaults, "choice_bias": statistics.fmean(curse) if curse else None,
            "choice_bias_sd": statistics.stdev(curse) if len(curse) > 1 else None, "choice_bias_runs": len(curse)}


def _h2h_cell(scores: list[float]) -> dict:
    """The cell's head-to-head scores against the defaults (runs from before they were measured
    have none)."""
    if not scores:
        return {}
    return {"h2h_score": statistics.fmean(scores), "h2h_min": min(scores), "h2h_max": max(scores)}


def _figure(summary: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    duels = any("h2h_score" in r for r in summary["table"])
    fig, axes = plt.subplots(1, 2 if duels else 1, figsize=(12 if duels else 7, 4.5), squeeze=False)
    panels = [("score", "score_min", "score_max", "against the panel, on maps nobody chose on")]
    if duels:
        panels.append(("h2h_score", "h2h_min", "h2h_max", "head to head against the defaults, same maps"))
    for ax, (key, low, high, label) in zip(axes[0], panels):
        for method in sorted({row["method"] for row in summary["table"]}):
            rows = sorted((r for r in summary["table"] if r["method"] == method and key in r),
                          key=lambda r: r["train_games"])
            x = [r["train_games"] for r in rows]
            ax.plot(x, [r[key] for r in rows], marker="o", label=method)
            ax.fill_between(x, [r[low] for r in rows], [r[high] for r in rows], alpha=0.15)
        if key == "score" and summary.get("defaults"):
            ax.axhline(summary["defaults"]["score"], color="grey", linestyle=":", label="defaults")
        if key == "h2h_score":
            ax.axhline(0.5, color="grey", linestyle=":", label="as strong as the defaults")
        ax.set_xlabel("training games spent (mean over repetitions)")
        ax.set_ylabel(f"chosen best's score {label}")
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _markdown(summary: dict) -> str:
    lines = ["| method | trials | repeats | training games (mean) | score (mean) | median | min | max | "
             "head to head vs defaults (mean, min-max) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in summary["table"]:
        duel = f"{r['h2h_score']:.3f} ({r['h2h_min']:.3f}-{r['h2h_max']:.3f})" if "h2h_score" in r else "-"
        lines.append(f"| {r['method']} | {r['trials']} | {r['repeats']} | {r['train_games']:,.0f} | "
                     f"{r['score']:.3f} | {r['score_median']:.3f} | {r['score_min']:.3f} | {r['score_max']:.3f} | "
                     f"{duel} |")
    lines.append("")
    lines.append(f"95% of the best mean score ({summary['best_mean_score']:.3f}) = {summary['target_95']:.3f}; "
                 "training games to reach it: " + ", ".join(
                     f"{m} {'not reached' if g is None else f'{g:,.0f}'}" for m, g in summary["games_to_95"].items()))
    if summary.get("choice_bias") is not None:
        lines.append(f"the chosen best's validated score exceeded its score on fresh maps by {summary['choice_bias']:+.3f} "
                     f"on average ({summary['choice_bias_runs']} runs)")
    if summary.get("defaults"):
        d = summary["defaults"]
        lines.append(f"defaults on the same maps: {d['score']:.3f} [{d['low']:.3f}, {d['high']:.3f}]")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.methods", description=__doc__.split("\n\n")[0])
    parser.add_argument("--study", default="studies/quick.toml", help="base study file")
    parser.add_argument("--methods", default="tpe,cmaes,random,tpe-noprune", help="comma-separated")
    parser.add_argument("--budgets", default="20,40", help="trials per run, comma-separated")
    parser.add_argument("--repeats", type=int, default=3, help="repetitions (sampler seeds 1..R)")
    parser.add_argument("--games", type=int, default=None, help="games per opponent to choose and to report on")
    parser.add_argument("--top", type=int, default=None, help="trials validated to choose the best")
    parser.add_argument("--out", default="bench-methods", help="folder for runs.jsonl, the summary and the figure")
    parser.add_argument("--ray-address", default=None)
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON line last")
    parser.add_argument("--rescore-pruned", type=int, default=None, metavar="K",
                        help="instead: play in full the K best pruned trials of every run in --out")
    args = parser.parse_args(argv)
    if args.rescore_pruned is not None:
        if args.rescore_pruned < 1 or not (Path(args.out) / "runs.jsonl").is_file():
            print(f"error: --rescore-pruned needs a positive K and the runs of a benchmark in --out "
                  f"({args.out}/runs.jsonl)", file=sys.stderr)
            return 2
        result = rescore_pruned(study=Path(args.study), out=Path(args.out), per_run=args.rescore_pruned,
                                games=args.games, ray_address=args.ray_address,
                                log=lambda line: print(line, file=sys.stderr, flush=True))
        print(json.dumps(result))
        return 0
    try:
        methods = parse_methods(args.methods)
        budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
        if not budgets or min(budgets) < 1 or args.repeats < 1:
            raise ValueError("--budgets and --repeats must be positive")
        if not Path(args.study).is_file():
            raise ValueError(f"{args.study}: no such study file")
        summary = run_methods(study=Path(args.study), methods=methods, budgets=budgets, repeats=args.repeats,
                              out=Path(args.out), games=args.games, top_k=args.top, ray_address=args.ray_address,
                              log=lambda line: print(line, file=sys.stderr, flush=True))
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # user errors of the study machinery are one line too
        from tuning.errors import TuningError

        if isinstance(exc, TuningError):
            print(f"error: {exc}", file=sys.stderr)
            return 2
        raise
    print(_markdown(summary))
    if args.json:
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())

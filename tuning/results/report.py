"""``tune report``: a study as one self-contained HTML page, with its figures also written as PNG
files beside it. Everything comes from the study database (Optuna's trials and our game rows);
nothing is recomputed by playing.

The page shows: the optimization history with each trial's 95% interval, the running best and
the validated scores; parameter importances; slices of the most important coefficients;
per-opponent scores of the best trials; the duel of the best and of the defaults with each
opponent, both sides (first damage, direct hits, damage per shot, mines, surfaces under fire);
per-game statistics of the study's bot over the trials; games saved by pruning; games per second
over time.
"""
from __future__ import annotations

import base64
import html
import math
import re
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable

from optuna.trial import TrialState

from ocean.timecontrol import TimeControl
from tuning.errors import TuningError
from tuning.results.page import DUEL_NOTE, duel_table, figure_path
from tuning.results.status import study_status
from tuning.results.verdict import HEAD_TO_HEAD, best_verdict_text, point_name
from tuning.storage.handle import StudyHandle
from tuning.study.space import REFERENCE_TRIAL

__all__ = ["TrialPoint", "ReportData", "collect", "write_report"]

_TOP = 5  # best trials shown per opponent
_SLICES = 3  # most important coefficients drawn as slices
_IDLE = 120.0  # seconds without a stored batch that split games/s into separate runs (a pause, a resume)
# The page is tuning/data/report_template.html with these filled in.
_PLACEHOLDER = re.compile(r"__(STUDY|SUMMARY|HISTORY|IMPORTANCE|OPPONENTS_TABLE|OPPONENTS|DUEL|DISQUALIFICATIONS|"
                          r"GAMES|THROUGHPUT)__")


@dataclass(frozen=True)
class TrialPoint:
    """One finished trial: its score (the last running score if pruned) and interval."""

    number: int
    state: str  # "complete" or "pruned"
    score: float
    low: float
    high: float
    params: dict
    per_opponent: dict
    games: int
    games_saved: int
    finished_at: float  # Unix time


@dataclass
class ReportData:
    """What the page shows, read from the database."""

    status: dict
    trials: list[TrialPoint]
    validations: list[dict]
    importances: dict[str, float] | None  # None: too few trials to say
    importance_note: str
    game_stats: dict[int, dict[str, float]]  # trial -> per-game means of the study's bot
    throughput: list[tuple[float, float]]  # (minutes since the first batch, games/s)
    tuned: list[str] = field(default_factory=list)  # coefficients in the search space
    # (trial, opponent) -> {"games", "a": the study bot's duel figures, "b": the opponent's}
    # (ocean.duel), for the best point and the defaults, in ``duel_phase``'s games
    duels: dict = field(default_factory=dict)
    duel_phase: str = "train"


def _finite(x) -> float:
    return float(x) if x is not None and not (isinstance(x, float) and math.isnan(x)) else math.nan


def _trial_points(handle: StudyHandle) -> list[TrialPoint]:
    points = []
    for t in handle.trials():
        if t.state not in (TrialState.COMPLETE, TrialState.PRUNED):
            continue
        if t.state == TrialState.COMPLETE:
            score = t.value
        elif t.intermediate_values:
            score = t.intermediate_values[max(t.intermediate_values)]
        else:
            continue
        a = t.user_attrs
        done = t.datetime_complete.timestamp() if t.datetime_complete else time.time()
        points.append(TrialPoint(t.number, "complete" if t.state == TrialState.COMPLETE else "pruned",
                                 float(score), _finite(a.get("score_low")), _finite(a.get("score_high")),
                                 handle.space.full_params(t.params), dict(a.get("per_opponent", {})),
                                 int(a.get("games", 0)), int(a.get("games_saved", 0)), done))
    return sorted(points, key=lambda p: p.number)


def _importances(handle: StudyHandle) -> tuple[dict[str, float] | None, str]:
    import optuna
    from optuna.importance import PedAnovaImportanceEvaluator

    complete = [t for t in handle.trials(TrialState.COMPLETE) if t.value is not None]
    if len(complete) < 4:
        return None, f"{len(complete)} complete trials: at least 4 are needed to say which coefficients matter."
    try:
        values = optuna.importance.get_param_importances(handle.study, evaluator=PedAnovaImportanceEvaluator())
    except (RuntimeError, ValueError) as exc:
        return None, f"importances could not be computed: {exc}"
    return dict(values), "PED-ANOVA importance (Optuna) over the complete trials."


def _game_stats(handle: StudyHandle) -> tuple[dict[int, dict[str, float]], list[tuple[float, float]]]:
    """Per-trial means of the study bot's per-game statistics, and games/s over time. Summed in
    the database (one row per trial, one per stored batch): a study of millions of games is
    never read row by row."""
    stats = {}
    for trial, t in sorted(handle.games.trial_sums("train").items()):
        n = t["games"]
        stats[trial] = {
            "games": n,
            "surfaces per game": t["a_surfaces"] / n,
            "mine damage taken per game": t["a_mine_damage_taken"] / n,
            "game length (turns)": t["turns"] / n,
            "torpedo hit rate": t["a_torpedo_hits"] / t["a_torpedoes"] if t["a_torpedoes"] else math.nan,
        }
    return stats, _throughput_points(handle.games.batch_times("train"))


def _throughput_points(batches: list[tuple[float, int]]) -> list[tuple[float, float]]:
    """(minutes since the first batch, games/s) from the stored batches' (time, games), in time
    order. Runs separated by more than ``_IDLE`` seconds are binned apart, with a NaN point
    between them so the line breaks: one bin spanning a pause of days would otherwise show a
    rate near zero."""
    if len(batches) < 2:
        return []
    first = batches[0][0]
    runs, start = [], 0
    for i in range(1, len(batches) + 1):
        if i == len(batches) or batches[i][0] - batches[i - 1][0] > _IDLE:
            runs.append(batches[start:i])
            start = i
    points: list[tuple[float, float]] = []
    for run in runs:
        t0, t1 = run[0][0], run[-1][0]
        if t1 <= t0:
            continue  # a single batch: no duration to divide by
        # Games arrive a batch at a time: a bin must hold several batches to show a rate.
        bins = max(1, min(30, len(run) // 8))
        width = (t1 - t0) / bins
        counts = [0] * bins
        for t, games in run:
            counts[min(bins - 1, int((t - t0) / width))] += games
        if points:
            points.append(((t0 - first) / 60.0, math.nan))
        points += [((t0 - first + (i + 0.5) * width) / 60.0, c / width) for i, c in enumerate(counts)]
    return points


def collect(handle: StudyHandle) -> ReportData:
    """Read everything the report shows from the study's database; a study with no finished
    trial is a ``TuningError`` (there is nothing to draw yet)."""
    status = study_status(handle)
    counts = status["trials"]
    if counts["complete"] + counts["pruned"] == 0:
        raise TuningError(f"study {handle.name!r} has no finished trials yet ({counts['running']} running, "
                          f"{counts['failed']} failed): nothing to report; run it (tune resume "
                          f"{handle.name}) or try again once a trial has finished")
    validations = [{"trial": v.trial, "score": v.score, "low": v.low, "high": v.high, "games": v.games,
                    "per_opponent": v.per_opponent, "diff": v.diff, "diff_low": v.diff_low,
                    "diff_high": v.diff_high, "seeds": v.seeds} for v in handle.games.validations()]
    importances, note = _importances(handle)
    stats, throughput = _game_stats(handle)
    duels, phase = _duels(handle, status)
    return ReportData(status, _trial_points(handle), validations, importances, note, stats,
                      throughput, tuned=sorted(handle.space.distributions), duels=duels, duel_phase=phase)


def _duels(handle: StudyHandle, status: dict) -> tuple[dict, str]:
    """Both sides' duel figures, opponent by opponent, for the best point and the defaults: in
    the held-out games when the best is validated, else in the training games."""
    from ocean.duel import duel_figures

    from tuning.results.verdict import validation_phase

    best = status["best"]
    phase = "train"
    if best is not None and best["validated"]:  # at the time control it was validated at
        phase = validation_phase(TimeControl.from_json(best["time_control"]), handle.spec.time_control)
    points = [REFERENCE_TRIAL] if best is None else list(dict.fromkeys([best["trial"], REFERENCE_TRIAL]))
    sums = handle.games.duel_sums(points, phase)
    return {key: {"games": sides["a"]["games"], **{side: duel_figures(s) for side, s in sides.items()}}
            for key, sides in sums.items()}, phase


# --- figures ---------------------------------------------------------------------------------

def _figures(data: ReportData) -> dict[str, object]:
    """name -> matplotlib Figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False})
    figs = {}
    figs["history"] = _history(plt, data)
    if data.importances:
        figs["importances"] = _importance_bars(plt, data.importances)
        figs["slices"] = _slices(plt, data)
    if _best_rows(data):  # none when every finished trial was pruned and nothing was validated
        figs["opponents"] = _opponents(plt, data)
    if data.game_stats:
        best = data.status["best"]
        figs["games"] = _per_game(plt, data.game_stats, None if best is None else best["trial"])
    figs["throughput"] = _throughput(plt, data)
    return figs


def _history(plt, data: ReportData):
    fig, ax = plt.subplots(figsize=(9, 3.6))
    for state, colour, marker in (("complete", "#1f77b4", "o"), ("pruned", "#aaaaaa", "x")):
        pts = [p for p in data.trials if p.state == state]
        if pts:
            x = [p.number for p in pts]
            y = [p.score for p in pts]
            err = [[max(0.0, p.score - p.low) if not math.isnan(p.low) else 0.0 for p in pts],
                   [max(0.0, p.high - p.score) if not math.isnan(p.high) else 0.0 for p in pts]]
            ax.errorbar(x, y, yerr=err, fmt=marker, color=colour, ms=4, elinewidth=0.8, capsize=0,
                        label=f"{state} (95% interval)" if state == "complete" else "pruned (score when pruned)")
    best, xs, ys = -math.inf, [], []
    for p in data.trials:
        if p.state == "complete" and p.score > best:
            best = p.score
        if best > -math.inf:
            xs.append(p.number)
            ys.append(best)
    if xs:
        ax.step(xs, ys, where="post", color="#2ca02c", lw=1.5, label="running best (training)")
    if data.validations:
        v = data.validations
        # An SPSA study's theta (stored as -K) is drawn where the study stands: after its trials.
        after = max((p.number for p in data.trials), default=0) + 1
        at = [r["trial"] if r["trial"] >= 0 else after for r in v]
        ax.errorbar(at, [r["score"] for r in v],
                    yerr=[[r["score"] - r["low"] for r in v], [r["high"] - r["score"] for r in v]],
                    fmt="D", color="#d62728", ms=5, capsize=3, label="validated (held-out maps)")
        top = v[0]  # the store lists validations best first
        ax.plot([at[0]], [top["score"]], "*", color="#d62728", ms=15, mec="white", mew=0.8, zorder=5,
                label=f"best validated: {point_name(top['trial'])}")
    ref = next((p for p in data.trials if p.number == REFERENCE_TRIAL), None)
    if ref is not None:
        ax.axhline(ref.score, color="#555555", ls="--", lw=0.8, label="defaults (trial 0)")
    ax.set_xlabel("trial")
    ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))  # trials are whole numbers
    ax.set_ylabel("mean score over the panel")
    ax.set_title("Optimization history")
    ax.legend(loc="best", fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def _importance_bars(plt, importances: dict[str, float]):
    names = list(importances)[::-1]
    fig, ax = plt.subplots(figsize=(6, 0.3 * len(names) + 1.0))
    ax.barh(names, [importances[n] for n in names], color="#1f77b4")
    ax.set_xlabel("importance")
    ax.set_title("Which coefficients matter")
    fig.tight_layout()
    return fig


def _slices(plt, data: ReportData):
    names = list(data.importances)[:_SLICES]
    pts = [p for p in data.trials if p.state == "complete"]
    fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names) + 1.0, 3.0), squeeze=False,
                             layout="constrained")
    for ax, name in zip(axes[0], names):
        sc = ax.scatter([p.params[name] for p in pts], [p.score for p in pts], c=[p.number for p in pts],
                        cmap="viridis", s=14)
        ax.set_xlabel(name)
        ax.set_ylabel("score")
    fig.colorbar(sc, ax=axes[0].tolist(), label="trial")
    fig.suptitle("Score against the most important coefficients")
    return fig


def _best_rows(data: ReportData) -> list[dict]:
    """The best trials with per-opponent scores: validated ones first (held-out scores),
    else the best complete ones by training score."""
    if data.validations:
        return [{"trial": v["trial"], "label": "validated", "score": v["score"], "per_opponent": v["per_opponent"]}
                for v in data.validations[:_TOP]]
    complete = sorted((p for p in data.trials if p.state == "complete"), key=lambda p: -p.score)[:_TOP]
    return [{"trial": p.number, "label": "training", "score": p.score, "per_opponent": p.per_opponent}
            for p in complete]


def _all_opponents(status: dict) -> list[str]:
    """The training panel, then the held-out opponents (validated only)."""
    panel = list(status["panel"])
    return panel + [o for o in status.get("held_out_panel") or [] if o not in panel]


def _opponents(plt, data: ReportData):
    rows = _best_rows(data)
    opponents = _all_opponents(data.status)
    fig, ax = plt.subplots(figsize=(9, 3.2))
    width = 0.8 / max(1, len(rows))
    for i, row in enumerate(rows):
        means, lows, highs = [], [], []
        for name in opponents:
            e = row["per_opponent"].get(name) or {}
            m = e.get("mean")
            means.append(m if m is not None else math.nan)
            lows.append(max(0.0, m - e["low"]) if m is not None and e.get("low") is not None else 0.0)
            highs.append(max(0.0, e["high"] - m) if m is not None and e.get("high") is not None else 0.0)
        ax.bar([j + i * width for j in range(len(opponents))], means, width, yerr=[lows, highs], capsize=2,
               label=f"{point_name(row['trial'])} ({row['label']})")
    ax.set_xticks([j + width * (len(rows) - 1) / 2 for j in range(len(opponents))], opponents)
    ax.axhline(0.5, color="#555555", lw=0.6, ls=":")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score against the opponent")
    ax.set_title("Best trials, opponent by opponent (95% intervals)")
    ax.legend(fontsize=8, frameon=False, ncol=min(5, len(rows)), loc="upper center", bbox_to_anchor=(0.5, -0.12))
    fig.tight_layout()
    return fig


def _per_game(plt, stats: dict[int, dict[str, float]], best: int | None):
    keys = ["surfaces per game", "mine damage taken per game", "game length (turns)", "torpedo hit rate"]
    trials = sorted(stats)
    fig, axes = plt.subplots(1, 4, figsize=(11, 2.8))
    for ax, key in zip(axes, keys):
        ax.plot(trials, [stats[t][key] for t in trials], ".", color="#9467bd", ms=4)
        # The defaults and the best trial marked, so what the tuning changed in play reads at a glance.
        if REFERENCE_TRIAL in stats:
            ax.axhline(stats[REFERENCE_TRIAL][key], color="#555555", ls="--", lw=0.8,
                       label=f"defaults (trial {REFERENCE_TRIAL})")
        if best in stats:
            ax.plot([best], [stats[best][key]], "*", color="#d62728", ms=12, mec="white", mew=0.8,
                    label=f"best (trial {best})")
        ax.set_title(key)
        ax.set_xlabel("trial")
        ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="upper right", fontsize=8, frameon=False, ncol=2)
    fig.suptitle("The study's bot per game, trial by trial (training games)", x=0.02, ha="left")
    fig.tight_layout()
    return fig


def _throughput(plt, data: ReportData):
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 2.6))
    if data.throughput:
        left.plot([m for m, _ in data.throughput], [r for _, r in data.throughput], color="#1f77b4")
    left.set_xlabel("minutes since the first stored batch")
    left.set_ylabel("games per second")
    left.set_title("Games per second over time")
    pruned = sorted((p for p in data.trials if p.state == "pruned"), key=lambda p: p.number)
    total, xs, ys = 0, [REFERENCE_TRIAL], [0]  # from nothing saved, before the first trial
    for p in pruned:
        total += p.games_saved
        xs.append(p.number)
        ys.append(total)
    if pruned:
        right.step(xs, ys, where="post", color="#ff7f0e")
    right.set_xlabel("trial")
    right.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
    right.set_ylabel("games saved (cumulative)")
    right.set_title("Games saved by pruning")
    fig.tight_layout()
    return fig


# --- page ------------------------------------------------------------------------------------

def _fmt(x, digits=3) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _elo_text(mean, low, high) -> str:
    from ocean.stats import format_elo

    return format_elo(mean, low, high)


def _interval(score, low, high) -> str:
    return f"{_fmt(score)} [{_fmt(low)}, {_fmt(high)}]"


def _page(data: ReportData, images: dict[str, str]) -> str:
    s = data.status
    esc = html.escape
    t = s["trials"]
    best = s["best"]
    pruned = [p for p in data.trials if p.state == "pruned"]
    saved = s["games"]["saved_by_pruning"]
    played = s["games"]["train"]
    head = [("study", s["study"]), ("storage", s["storage"]), ("panel", ", ".join(s["panel"])),
            ("seed bank", s["seed_bank"]), ("sampler", s["sampler"]),
            ("trials", f"{t['complete']} complete, {t['pruned']} pruned, {t['failed']} failed, "
                       f"{t['running']} running of {s['target_trials']}"),
            ("games", f"{played:,} training, {s['games']['validate']:,} validation"),
            ("games saved by pruning", f"{saved:,} ({100.0 * saved / max(1, played + saved):.0f}% of the training "
                                       f"budget; {len(pruned)} trials pruned)"),
            ("tuned coefficients" if not s.get("program") else "tuned parameters", ", ".join(data.tuned))]
    if s.get("program"):
        head.insert(1, ("tunes the program", s["program"]))
    if s.get("code"):
        head.append(("code", s["code"]))
    if s.get("held_out_panel"):
        head.insert(3, ("held-out opponents (validation only)", ", ".join(s["held_out_panel"])))
    trained = max((p for p in data.trials if p.state == "complete"), key=lambda p: (p.score, -p.number),
                  default=None)
    if trained is not None:
        head.append(("best training score", f"trial {trained.number}: "
                                            f"{_interval(trained.score, trained.low, trained.high)}"))
    if best is None:
        head.append(("best", "none yet: no trial is complete (pruned trials never are)"))
    else:
        label = "validated on held-out maps" if best["validated"] else "training score, not validated"
        head.append(("best", f"{point_name(best['trial'])}: {_interval(best['score'], best['low'], best['high'])} ({label})"))
        if best.get("elo") is not None:
            head.append(("best in Elo (mean over the panel's opponents)", _elo_text(best["elo"], best["elo_low"],
                                                                            best["elo_high"])))
            head.append(("best in Elo per opponent", ", ".join(f"{name} {_elo_text(*e)}" for name, e in
                                                               best["elo_per_opponent"].items())))
        if best.get("held_out_score") is not None:
            head.append(("best against held-out opponents", _interval(best["held_out_score"], best["held_out_low"],
                                                                      best["held_out_high"])))
        if best["validated"]:
            head.append(("verdict", best_verdict_text(best)
                         + f" (paired, held-out maps, at {TimeControl.from_json(best['time_control']).describe()})"))
    if s["defaults"] is not None:
        d = s["defaults"]
        head.append(("defaults (trial 0)", f"{_interval(d['score'], d['low'], d['high'])} "
                                           f"({'validated' if d['validated'] else 'training'})"))
    summary = "".join(f"<tr><th>{esc(k)}</th><td>{esc(str(v))}</td></tr>" for k, v in head)

    def img(name: str, alt: str) -> str:
        if name not in images:
            return ""
        return f'<img src="data:image/png;base64,{images[name]}" alt="{esc(alt)}">'

    rows = _best_rows(data)
    opponents = _all_opponents(s)
    held = set(opponents) - set(s["panel"])
    table = "<tr><th>trial</th><th>score</th>" + "".join(
        f"<th>{esc(o)}{' (held out)' if o in held else ''}</th>" for o in opponents) + "</tr>"
    for r in rows:
        cells = "".join(f"<td>{_fmt((r['per_opponent'].get(o) or {}).get('mean'))}</td>" for o in opponents)
        table += f"<tr><td>{esc(point_name(r['trial']))} ({esc(r['label'])})</td><td>{_fmt(r['score'])}</td>{cells}</tr>"
    duel = _duel_table(data, opponents, held)
    dq = {o: d for o, d in (s.get("disqualifications") or {}).items()
          if d["bot"] or d["opponent"] or d.get("replayed")}
    disqualified = ""
    if dq:
        disqualified = ("<h2>Disqualifications and replays</h2><p class=note>A game the opponent lost to its clock "
                        "or a crash is played again (replayed), and set aside if it failed every time: it counts "
                        "for nothing. The study bot's own disqualifications are losses.</p>"
                        "<table id=\"disqualifications\"><tr><th>opponent</th><th>games</th>"
                        "<th>study bot disqualified</th><th>opponent disqualified</th><th>replayed</th>"
                        "<th>set aside</th><th>first reason</th></tr>")
        for o, d in dq.items():
            first = d["first_bot_error"] or d["first_opponent_error"] or ""
            share = f" ({d['bot'] / max(1, d['games']):.0%})" if d["bot"] else ""
            disqualified += (f"<tr><td>{esc(o)}</td><td>{d['games']}</td><td>{d['bot']}{share}</td>"
                             f"<td>{d['opponent']}</td><td>{d.get('replayed', 0)}</td><td>{d.get('set_aside', 0)}</td>"
                             f"<td>{esc(first)}</td></tr>")
        disqualified += "</table>"
    importance = img("importances", "parameter importances") + img("slices", "slice plots") \
        if data.importances else f"<p class=note>{esc(data.importance_note)}</p>"
    fills = {"STUDY": esc(s["study"]), "SUMMARY": summary, "HISTORY": img("history", "optimization history"),
             "IMPORTANCE": importance, "OPPONENTS_TABLE": table, "OPPONENTS": img("opponents", "per-opponent scores"),
             "DUEL": duel,
             "DISQUALIFICATIONS": disqualified, "GAMES": img("games", "per-game statistics"),
             "THROUGHPUT": img("throughput", "games per second and games saved")}
    template = resources.files("tuning").joinpath("data/report_template.html").read_text(encoding="utf-8")
    # One pass over the template only: text from the study (a coefficient or an opponent named
    # "__SUMMARY__") is never scanned for placeholders.
    return _PLACEHOLDER.sub(lambda m: fills[m.group(1)], template)


def _duel_table(data: ReportData, opponents: list[str], held: set[str]) -> str:
    """The duel section: a row per point (the best first) and opponent, each figure "study bot / opponent"."""
    games = "training" if data.duel_phase == "train" else "held-out"
    note = DUEL_NOTE.format(a="the study's bot", b="the opponent")
    head = f"<h2>The duel, opponent by opponent</h2><p class=note>In the {games} games, {note}</p>"
    if not data.duels:
        return head + "<p class=note>No games with the duel statistics stored yet for these points.</p>"
    ordered = {}
    for trial in sorted({t for t, _ in data.duels}, key=lambda t: (t == REFERENCE_TRIAL, t)):  # the defaults last
        played = [o for t, o in data.duels if t == trial]
        for o in [o for o in opponents if o in played] + sorted(o for o in played if o not in opponents):
            ordered[(trial, o)] = data.duels[(trial, o)]

    def opponent(name: str) -> str:
        return name + (" (held out)" if name in held else " (the defaults)" if name == HEAD_TO_HEAD else "")

    return head + duel_table(ordered, point_name, opponent)


def write_report(handle: StudyHandle, out: Path, log: Callable[[str], None] = lambda line: None) -> dict:
    """Write ``out`` (HTML) and each figure's PNG in ``<out stem>_figures/`` beside it; returns what was written."""
    import io

    import matplotlib.pyplot as plt

    data = collect(handle)
    log(f"{len(data.trials)} finished trials, {data.status['games']['total']:,} games read")
    images, pngs = {}, []
    for name, fig in _figures(data).items():
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        plt.close(fig)
        path = figure_path(out, name)
        path.write_bytes(buf.getvalue())
        pngs.append(path)
        images[name] = base64.b64encode(buf.getvalue()).decode("ascii")
    out.write_text(_page(data, images), encoding="utf-8")
    return {"html": out, "pngs": pngs, "status": data.status, "importances": data.importances}

"""A learning run's curve: each checkpoint's score against the yardstick bots by the self-play
games it took, as a table and as a PNG figure (matplotlib, headless)."""
from __future__ import annotations

from pathlib import Path

from tuning.storage.learnstore import LearnStore, ladder_scale

__all__ = ["curve_table", "draw_curve", "matches_text", "trust_table"]


def curve_table(store: LearnStore) -> list[dict]:
    """One row per scored checkpoint: round, games, and per yardstick its score and interval."""
    rows: dict[int, dict] = {}
    for s in store.scores():
        row = rows.setdefault(s.round, {"round": s.round, "games": s.games})
        row[s.opponent] = {"score": s.score, "low": s.low, "high": s.high, "maps": s.maps}
    return [rows[r] for r in sorted(rows)]


def trust_table(store: LearnStore) -> list[dict]:
    """One row per trust step: the checkpoint it followed (round, games), its ``trust_games`` (a
    checkpoint may have had several steps, one per ``--trust-games``: each is shown apart, never
    pooled), the scale chosen (where its ladder ended), its self-play matches, per yardstick the
    trusted weights' score and interval, and ``out``: the file ``--out`` last received from it
    (None for the others)."""
    written = store.written()
    steps: dict[tuple[int, int], list] = {}  # (round, maps a rung): its rungs in the order played
    yardsticks: dict[int, list] = {}
    for t in store.trust_rows():
        if t.rung:
            steps.setdefault((t.round, t.maps), []).append(t)
        else:
            yardsticks.setdefault(t.round, []).append(t)
    table = []
    for (number, maps), rungs in sorted(steps.items()):
        scale = ladder_scale(rungs)
        row = {"round": number, "games": rungs[0].games, "trust_games": 2 * maps * len(rungs), "scale": scale,
               "matches": [{"score": t.score, "low": t.low, "high": t.high, "maps": t.maps, "scale": t.scale,
                            "against": t.against} for t in rungs],
               "out": written.get("out") if (written.get("round"), written.get("maps")) == (number, maps) else None}
        for t in yardsticks.get(number, []):
            if t.scale == scale:  # the trusted weights of this step (a step choosing the same scale shares them)
                row[t.opponent] = {"score": t.score, "low": t.low, "high": t.high, "maps": t.maps}
        table.append(row)
    return table


def matches_text(row: dict) -> str:
    """A ``trust_table`` row's ladder in one line: ``x2 vs x1 0.514, x4 vs x2 0.521, ...``."""
    return ", ".join(f"x{m['scale']:g} vs x{m['against']:g} {m['score']:.3f}" for m in row["matches"])


def draw_curve(store: LearnStore, out: str | Path) -> Path:
    """Draw score against self-play games (one line per yardstick, with its 95% band) into ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = curve_table(store)
    trusted = trust_table(store)
    yardsticks = sorted({k for r in rows for k in r if k not in ("round", "games")})
    fig, ax = plt.subplots(figsize=(7, 4.6), dpi=110)
    for name in yardsticks:
        points = [(r["games"], r[name]) for r in rows if name in r]
        games = [g for g, _ in points]
        line, = ax.plot(games, [p["score"] for _, p in points], marker="o", label=f"vs {name} (TD weights)")
        ax.fill_between(games, [p["low"] for _, p in points], [p["high"] for _, p in points], alpha=0.2)
        after = [(r["games"], r[name]) for r in trusted if name in r]
        if after:
            ax.errorbar([g for g, _ in after], [p["score"] for _, p in after],
                        yerr=[[p["score"] - p["low"] for _, p in after], [p["high"] - p["score"] for _, p in after]],
                        fmt="*", markersize=11, color=line.get_color(), label=f"vs {name} after the trust step")
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel("self-play games")
    ax.set_ylabel("score on held-out maps (paired)")
    ax.set_ylim(0.0, 1.0)
    ax.set_title(f"tune learn {store.name}: strength against self-play games")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize="small")
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out)
    plt.close(fig)
    return out

"""A learning run's curve: each checkpoint's score against the yardstick bots by the self-play
games it took, as a table and as a PNG figure (matplotlib, headless)."""
from __future__ import annotations

from pathlib import Path

from tuning.storage.learnstore import LearnStore

__all__ = ["curve_table", "draw_curve"]


def curve_table(store: LearnStore) -> list[dict]:
    """One row per scored checkpoint: round, games, and per yardstick its score and interval."""
    rows: dict[int, dict] = {}
    for s in store.scores():
        row = rows.setdefault(s.round, {"round": s.round, "games": s.games})
        row[s.opponent] = {"score": s.score, "low": s.low, "high": s.high, "maps": s.maps}
    return [rows[r] for r in sorted(rows)]


def draw_curve(store: LearnStore, out: str | Path) -> Path:
    """Draw score against self-play games (one line per yardstick, with its 95% band) into ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = curve_table(store)
    yardsticks = sorted({k for r in rows for k in r if k not in ("round", "games")})
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    for name in yardsticks:
        points = [(r["games"], r[name]) for r in rows if name in r]
        games = [g for g, _ in points]
        ax.plot(games, [p["score"] for _, p in points], marker="o", label=f"vs {name}")
        ax.fill_between(games, [p["low"] for _, p in points], [p["high"] for _, p in points], alpha=0.2)
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel("self-play games")
    ax.set_ylabel("score on held-out maps (paired)")
    ax.set_ylim(0.0, 1.0)
    ax.set_title(f"tune learn {store.name}: strength against self-play games")
    ax.legend(loc="lower right")
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out)
    plt.close(fig)
    return out

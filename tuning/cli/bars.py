"""The tune commands' progress bars: rich lines on stderr, so stdout stays for results; plain
lines, one every ``PLAIN_EVERY_S`` seconds, when stderr is not a terminal (a log file)."""
from __future__ import annotations

import sys
import time
from typing import Callable

__all__ = ["Bars", "counting_bar", "PLAIN_EVERY_S"]

PLAIN_EVERY_S = 15.0  # a log's progress line per task at most this often (and one at the end)


class _PlainProgress:
    """What the commands use of rich's ``Progress`` (``add_task``, ``update``, ``start``,
    ``stop``), written as plain lines: rich draws nothing in a log until it stops."""

    def __init__(self) -> None:
        self._tasks: list[dict] = []
        self._t0 = time.monotonic()

    def add_task(self, description: str, total=None, completed: int = 0, **fields) -> int:
        self._tasks.append({"description": description, "total": total, "completed": completed, "fields": fields,
                            "said": None, "last": 0.0})
        return len(self._tasks) - 1

    def update(self, task: int, *, completed=None, total=None, advance=None, **fields) -> None:
        t = self._tasks[task]
        t["description"] = fields.pop("description", t["description"])
        if total is not None:
            t["total"] = total
        if completed is not None:
            t["completed"] = completed
        if advance:
            t["completed"] += advance
        t["fields"].update(fields)
        if time.monotonic() - t["last"] >= PLAIN_EVERY_S:
            self._say(t)

    def _say(self, t: dict) -> None:
        total = "?" if t["total"] is None else f"{t['total']:,}"
        note = str(t["fields"].get("note") or "").strip()
        line = f"{t['description']}: {t['completed']:,}/{total}" + (f"  {note}" if note else "")
        if line != t["said"]:
            print(f"{line}  ({time.monotonic() - self._t0:.0f} s)", file=sys.stderr, flush=True)
            t["said"] = line
        t["last"] = time.monotonic()

    def start(self) -> None:
        self._t0 = time.monotonic()

    def stop(self) -> None:
        for t in self._tasks:
            self._say(t)


class Bars:
    """A rich ``Progress`` on stderr (``self.progress``), shown while entered: a description, a
    bar, done/total, then the time elapsed, the time remaining and a ``note`` field as asked."""

    def __init__(self, *, elapsed: bool = True, remaining: bool = False, note: bool = True,
                 bar_width: int | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
            TimeRemainingColumn

        console = Console(stderr=True)
        if not console.is_terminal:
            self.progress = _PlainProgress()
            return
        columns = [TextColumn("{task.description}"), BarColumn(bar_width=bar_width), MofNCompleteColumn()]
        if elapsed:
            columns.append(TimeElapsedColumn())
        if remaining:
            columns.append(TimeRemainingColumn())
        if note:
            columns.append(TextColumn("{task.fields[note]}"))
        self.progress = Progress(*columns, console=console)

    def __enter__(self):
        self.progress.start()
        return self

    def __exit__(self, *exc):
        self.progress.stop()


def counting_bar(description: str) -> tuple[Bars, Callable[[int, int], None]]:
    """One bar for work counted as (done, total): the bars to enter, and the callback to give
    the work."""
    bars = Bars(elapsed=False, remaining=True, note=False)
    task = bars.progress.add_task(description, total=None)
    return bars, lambda done, total: bars.progress.update(task, completed=done, total=total)

"""The tune commands' progress bars: rich lines on stderr, so stdout stays for results."""
from __future__ import annotations

from typing import Callable

__all__ = ["Bars", "counting_bar"]


class Bars:
    """A rich ``Progress`` on stderr (``self.progress``), shown while entered: a description, a
    bar, done/total, then the time elapsed, the time remaining and a ``note`` field as asked."""

    def __init__(self, *, elapsed: bool = True, remaining: bool = False, note: bool = True,
                 bar_width: int | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
            TimeRemainingColumn

        columns = [TextColumn("{task.description}"), BarColumn(bar_width=bar_width), MofNCompleteColumn()]
        if elapsed:
            columns.append(TimeElapsedColumn())
        if remaining:
            columns.append(TimeRemainingColumn())
        if note:
            columns.append(TextColumn("{task.fields[note]}"))
        self.progress = Progress(*columns, console=Console(stderr=True))

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

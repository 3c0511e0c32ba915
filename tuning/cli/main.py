"""The ``tune`` command: the Typer app, with each module's commands in the order ``--help``
lists them. A new group of commands (``tune plan``, ``tune test``, ...) is a module of this
package with its ``COMMANDS``, added here."""
from __future__ import annotations

import typer

from tuning.cli import bench, check, learn, plan, study, test

__all__ = ["app", "main"]

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Tune the Ocean of Code bot: Optuna studies played by Ray workers, stored in SQL.")
for command in (*study.COMMANDS, *plan.COMMANDS, *check.COMMANDS, *test.COMMANDS, *learn.COMMANDS,
                *bench.COMMANDS):
    app.command()(command)


def main() -> None:  # pragma: no cover - console entry point
    app()

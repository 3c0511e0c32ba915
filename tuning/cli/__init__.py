"""The ``tune`` command line: ``app`` (the Typer app, ``tuning.cli.main``) built from one module
per group of commands: ``study`` (launch, resume, status, validate, export, report, dashboard)
``test`` (``tune test``) and ``bench``, with what they share in ``common``. May import every room of ``tuning``, and
``benchmarks`` only inside ``tune bench``; imports the rooms inside each command, so ``tune
--help`` starts fast.
"""
from tuning.cli.main import app

__all__ = ["app"]

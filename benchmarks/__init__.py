"""Benchmarks, drills and research scripts: the lab's scaffolding, not its product.

Installed beside ``ocean`` and ``tuning``, which never import it except for their ``bench``
commands (lazily, when one runs). What users run of it is a documented command:

- ``ocean bench`` (``engine``: the engine, ``--bots``, ``--program``; ``tracking``: ``--tracking``);
- ``tune bench`` (``overhead``: Ray and the database around the games; ``scalebench``:
  ``--scale``; ``bigdb``: ``--big-db``);
- ``python -m benchmarks.methods`` (samplers, budgets and pruning compared on real studies),
  ``python -m benchmarks.prunebench`` (pruning rules on simulated studies) and
  ``python -m benchmarks.chaos`` (the crash drill; ``drill_driver`` is its driver, which logs
  every batch a worker plays).

It may import ``ocean`` and ``tuning`` freely; they hold no hook for it.
"""

"""The tuning service: Optuna studies over a bot's coefficients, played by Ray workers and stored
in SQL; built on ``ocean``, which never imports it. Its rooms, each importing only the ones
before it (and ``errors``, the one error hierarchy, from anywhere): ``stats`` (pure statistics:
estimates over pairs, Elo, pruning tests, sequential tests); ``study`` (the study definition:
study files, search space, samplers, opponents, a sequential test's settings); ``storage`` (the database and the ``StudyHandle``);
``driver`` (the ask/tell runner, its Ray pool and workers); ``results`` (validation, status,
export, report); ``cli`` (the ``tune`` command). docs/architecture.md draws them.
"""

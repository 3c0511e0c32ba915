"""The tuning service: Optuna studies over the bot's coefficients, played by Ray workers and
stored in SQL. Built on ``ocean``; ``ocean`` never imports it.

Modules, one job each: ``spec`` (study files), ``space`` (search space), ``panel``
(opponents), ``storage`` (database URLs, opening), ``records`` (our tables), ``gamestore``
(their reads and writes), ``stats`` (intervals over pairs), ``pruning`` (sequential test),
``evaluation`` (batches and scores of a trial), ``worker`` (the Ray task), ``pool`` (tasks in
flight), ``cluster`` (joining Ray), ``study`` (create/open), ``locks`` (driver identity, study
locks), ``retry`` (riding out database outages), ``runner`` (the ask/tell driver), ``validation``,
``status``, ``export``, ``study_report`` (``tune report``), ``bench``, ``chaos`` (the crash drill)
and ``cli`` (the ``tune`` command). ``tune test`` (is a new bot better?): ``sprt`` (the sequential
test's statistics), ``testspec`` (a test's definition), ``teststore`` (its rows), ``bottest`` (its
driver and verdict), ``testreport`` (status and report), ``testcli`` (the command), ``sprtbench``
(its error rates by simulation).
"""

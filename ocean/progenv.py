"""The environment an external program starts with: the lab's own, minus its secrets.

A program the lab runs (a tuned bot, a frozen panel program, a ``cmd:`` bot of the arena, a
``ocean referee`` player) may come from someone else: it must not read the database password,
the Ray cluster's address and token, or a cloud or GitHub credential the lab was started with.
It gets the lab's environment without:

- the lab's own variables: ``OCEAN_*`` (``OCEAN_STORAGE`` holds the database URL; only
  ``OCEAN_PANELS``, where the panel is, stays for a program that runs ``ocean bot``), ``RAY_*``,
  PostgreSQL's ``PG*`` (``PGPASSWORD``, ``PGHOST``, ...);
- cloud and forge credentials: ``AWS_*``, ``GOOGLE_*``, ``GCLOUD_*``, ``AZURE_*``, ``GH_*``,
  ``GITHUB_*``, ``GITLAB_*``, ``SSH_AUTH_SOCK``;
- any variable whose name looks secret (it contains ``PASSWORD``, ``PASSWD``, ``SECRET``,
  ``TOKEN``, ``CREDENTIAL``, ``AUTH``, ``COOKIE`` or a ``KEY`` word, e.g. ``API_KEY``);
- any variable whose value holds a password (a URL ``scheme://user:password@host``, or
  ``password=...``).

What a program needs stays: ``PATH``, ``HOME``, ``LANG``/``LC_*``, ``TMPDIR``, ``PYTHONPATH``,
``VIRTUAL_ENV``, ``JAVA_HOME``, ... Then what the bot's ``env`` sets is put on top (a user who
writes a secret there gives it to the program on purpose).
"""
from __future__ import annotations

import os
import re
from typing import Mapping

__all__ = ["program_environment", "is_secret"]

_PREFIXES = ("OCEAN_", "RAY_", "PG", "AWS_", "GOOGLE_", "GCLOUD_", "GCP_", "AZURE_", "GH_", "GITHUB_", "GITLAB_",
             "DOCKER_", "KUBE", "VAULT_", "HF_", "HUGGING", "OPENAI_", "ANTHROPIC_", "NPM_", "PYPI_", "TWINE_")
_NAMES = {"SSH_AUTH_SOCK", "DATABASE_URL", "REDIS_URL", "NETRC"}
# Lab variables a program may need: where the panel is (a program running `ocean bot PANEL-BOT`).
_KEEP = {"OCEAN_PANELS"}
_SECRET_WORDS = ("PASSWORD", "PASSWD", "SECRET", "TOKEN", "CREDENTIAL", "AUTH", "COOKIE", "PRIVATE")
# A name part that is or ends with KEY (API_KEY, APIKEY, ACCESSKEY); KEYBOARD and the like stay.
_KEY_PART = re.compile(r"(^|_)[A-Z0-9]*KEYS?(_|$)")
# A URL with a password (user:password@host), or a key=value string naming a password.
_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/@\s:]*:[^/@\s]+@")
_PASSWORD_FIELD = re.compile(r"(?i)\b(password|passwd|pwd)\s*=")


def is_secret(name: str, value: str) -> bool:
    """Whether the variable ``name`` (with ``value``) is kept from programs."""
    upper = name.upper()
    if upper in _KEEP and not _URL_PASSWORD.search(value):
        return False
    if upper in _NAMES or upper.startswith(_PREFIXES):
        return True
    if any(word in upper for word in _SECRET_WORDS) or _KEY_PART.search(upper):
        return True
    return bool(_URL_PASSWORD.search(value) or _PASSWORD_FIELD.search(value))


def program_environment(extra: Mapping[str, str] | None = None,
                        base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment to start a program with: ``base`` (default: this process's) without the
    lab's variables and secrets (see the module doc), then ``extra`` (the bot's ``env``)."""
    source = os.environ if base is None else base
    env = {name: value for name, value in source.items() if not is_secret(name, value)}
    env.update(extra or {})
    return env

"""The environment an external program starts with: built from nothing, never the lab's own.

A program the lab runs (a tuned bot, a frozen panel program, a ``cmd:`` bot of the arena, a
``ocean referee`` player) may come from someone else: it must not read the database password,
the Ray cluster's address and token, or a cloud or GitHub credential the lab was started with.
So it gets only the variables of :data:`PASSED` that the lab has (``PATH``, ``HOME``, ``USER``,
``LOGNAME``, ``LANG``/``LANGUAGE``/``LC_*`` (``LANG=C.UTF-8`` if the lab has none), ``TZ``,
``TMPDIR``, ``VIRTUAL_ENV``, ``JAVA_HOME``, ``PYTHONPATH``, ``NUMBA_CPU_NAME``, ``OCEAN_PANELS``),
each only if its value holds no password (:func:`is_secret`), ``NUMBA_CACHE_DIR`` pointing at the
lab's compiled kernels (for a program running ``ocean bot``), then what the bot's ``env`` sets
on top (a user who writes a secret there gives it to the program on purpose). Inside the sandbox
(``ocean.sandbox``) ``HOME`` is the program's private home and ``TMPDIR`` its private ``/tmp``.

:func:`is_secret` also tells which variables the lab removes from its own environment before
Ray starts (:func:`secrets_kept_from_ray`) and which it blanks in its own ``/proc/PID/environ``
(:func:`hide_own_secrets`), so that even a program run without the sandbox, which can read the
environment of the lab's processes, finds less.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import re
from typing import Iterator, Mapping

__all__ = ["program_environment", "is_secret", "PASSED", "is_lab_secret", "secrets_kept_from_ray",
           "hide_own_secrets"]

_PREFIXES = ("OCEAN_", "RAY_", "PG", "AWS_", "GOOGLE_", "GCLOUD_", "GCP_", "AZURE_", "GH_", "GITHUB_", "GITLAB_",
             "DOCKER_", "KUBE", "VAULT_", "HF_", "HUGGING", "OPENAI_", "ANTHROPIC_", "NPM_", "PYPI_", "TWINE_")
_NAMES = {"SSH_AUTH_SOCK", "DATABASE_URL", "REDIS_URL", "NETRC"}
# Lab variables a program may need: where the panel is (a program running `ocean bot PANEL-BOT`).
_KEEP = {"OCEAN_PANELS"}
# The variables a program gets from the lab's environment (and LC_*): nothing else.
PASSED = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "VIRTUAL_ENV", "JAVA_HOME",
          "PYTHONPATH", "NUMBA_CPU_NAME", "OCEAN_PANELS")
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
    """The environment to start a program with: of ``base`` (default: this process's) only the
    variables of :data:`PASSED` and ``LC_*`` that hold no secret, ``NUMBA_CACHE_DIR`` at the lab's
    kernel cache (when ``base`` is this process's), then ``extra`` (the bot's ``env``)."""
    source = os.environ if base is None else base
    env = {name: value for name, value in source.items()
           if (name in PASSED or name.startswith("LC_")) and not is_secret(name, value)}
    env.setdefault("LANG", "C.UTF-8")
    if base is None:
        from ocean._cache import _root

        env["NUMBA_CACHE_DIR"] = _root()
    env.update(extra or {})
    return env


def is_lab_secret(name: str, value: str) -> bool:
    """Whether the lab's own processes (Ray's raylet and workers) should not get ``name``: a
    secret by :func:`is_secret`, except Ray's own ``RAY_*`` (Ray needs them) and the lab's
    ``OCEAN_*`` settings whose value holds no password (``OCEAN_STORAGE`` with one goes)."""
    upper = name.upper()
    if upper.startswith("RAY_"):
        return False
    if upper.startswith("OCEAN_"):
        return bool(_URL_PASSWORD.search(value) or _PASSWORD_FIELD.search(value))
    return is_secret(name, value)


@contextlib.contextmanager
def secrets_kept_from_ray() -> Iterator[list[str]]:
    """While Ray starts its processes (``ray.init``), this process's environment holds none of
    :func:`is_lab_secret`'s variables (yields their names): Ray's processes inherit it. Restored
    after: the lab itself still reads them."""
    held = {name: value for name, value in os.environ.items() if is_lab_secret(name, value)}
    for name in held:
        del os.environ[name]
    try:
        yield sorted(held)
    finally:
        for name, value in held.items():
            os.environ.setdefault(name, value)


_hidden = False


def hide_own_secrets() -> list[str]:
    """Blank this process's secret variables (:func:`is_secret`) in ``/proc/self/environ`` (the
    environment it was started with, which any process of the same user may read), keeping
    them in ``os.environ`` and the C library's environment, where the lab reads them. Once per
    process; returns the names blanked ([] where the kernel does not say where that area is)."""
    global _hidden
    if _hidden:
        return []
    _hidden = True
    try:
        with open("/proc/self/stat", "rb") as fh:
            stat = fh.read()
        fields = stat[stat.rindex(b")") + 2:].split()
        start, end = int(fields[47]), int(fields[48])  # env_start, env_end (fields 50 and 51)
        if not 0 < start < end or end - start > 16 << 20:
            return []
        area = ctypes.string_at(start, end - start)
    except (OSError, ValueError, IndexError):
        return []
    blanked = []
    offset = 0
    for entry in area.split(b"\0"):
        name, eq, value = entry.partition(b"=")
        if eq and is_secret(name.decode("utf-8", "replace"), value.decode("utf-8", "replace")):
            ctypes.memset(start + offset, ord(" "), len(entry))
            key = name.decode("utf-8", "surrogateescape")
            if key in os.environ:
                os.putenv(key, os.environ[key])  # the C environment's copy now lives elsewhere
            blanked.append(key)
        offset += len(entry) + 1
    return blanked

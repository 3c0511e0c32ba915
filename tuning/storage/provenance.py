"""What code played a study's games: the installed package's version, the digest of the sources
of ``ocean/`` and ``tuning/`` and the versions of the libraries that decide a game's result or a
trial's proposal (numba, optuna, ray), stored with studies, validations, tests and exports.

A study keeps one record per code version its games were played under (``ATTR_CODE``: the
first at launch, one more each time ``tune resume`` or ``tune validate`` went on under other
code with ``--allow-code-change``); ``check_code`` refuses to go on under other code without it.
A test and a learning run keep the same records in their definition (key ``"code"``): the first
when they start, one more each time ``tune test`` or ``tune learn`` carried them on under other
code with ``--allow-code-change``; ``check_run_code`` refuses it without.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
from importlib import metadata
from pathlib import Path

from tuning.errors import TuningError

__all__ = ["package_version", "code_digest", "code_record", "ATTR_CODE", "study_code", "check_code",
           "CodeChanged", "short", "describe_code", "RUN_CODE", "check_run_code"]

RUN_CODE = "code"  # key of a test's or learning run's definition: the same records as ATTR_CODE
ATTR_CODE = "ocean_code"  # study user attribute: [{digest, numba, optuna, ray, package, since}, ...]
_PACKAGES = ("ocean", "tuning")
_LIBRARIES = ("numba", "optuna", "ray")
# Compiled or cached files that live beside the sources and say nothing about the code.
_NOT_SOURCE = {".pyc", ".pyo", ".nbi", ".nbc"}


class CodeChanged(TuningError):
    """The code differs from the one a study's games were played under."""


def package_version() -> str:
    """The installed ``ocean-tuning-lab`` version ("unknown" when run from a bare checkout)."""
    try:
        return metadata.version("ocean-tuning-lab")
    except metadata.PackageNotFoundError:
        return "unknown"


def _library_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 (hex) of every source file of ``ocean/`` and ``tuning/`` (their paths and bytes;
    data files such as panels and page templates included, caches left out), computed once per
    process: the same digest means the same code played."""
    digest = hashlib.sha256()
    for package in _PACKAGES:
        spec = importlib.util.find_spec(package)
        root = Path(next(iter(spec.submodule_search_locations)))
        files = [p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                 and p.suffix not in _NOT_SOURCE]
        for path in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
            digest.update(f"{package}/{path.relative_to(root).as_posix()}\0".encode())
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()


def short(digest: str) -> str:
    """A digest as printed: its first 12 hex digits."""
    return digest[:12]


def code_record() -> dict:
    """The code running now: its digest and the versions of the package and of the libraries."""
    return {"digest": code_digest(), **{name: _library_version(name) for name in _LIBRARIES},
            "package": package_version()}


def study_code(user_attrs: dict) -> list[dict]:
    """The code versions a study's games were played under, oldest first (empty for a study
    created before code was recorded)."""
    return list(user_attrs.get(ATTR_CODE) or [])


def check_code(study, *, allow_change: bool, command: str, since: int) -> list[dict]:
    """Refuse ``command`` (``tune resume``, ``tune validate``) under code other than the study's
    latest, with one line naming both digests, unless ``allow_change``: then the running code is
    recorded (from trial ``since`` on) and the study spans two versions. A study without a
    record gets the running code's. Returns the study's records."""
    records = study_code(study.user_attrs)
    now = code_record()
    if records and records[-1]["digest"] == now["digest"]:
        return records
    if records and not allow_change:
        raise CodeChanged(f"study {study.study_name!r} was played under code {short(records[-1]['digest'])} and "
                          f"this is code {short(now['digest'])}: {command} would mix two versions in one study; "
                          f"tune resume or tune validate with --allow-code-change go on anyway (status and "
                          f"report then say so)")
    records.append({**now, "since": since, "by": command})
    study.set_user_attr(ATTR_CODE, records)
    return records


def check_run_code(records: list[dict], *, kind: str, name: str, allow_change: bool, command: str,
                   since: int) -> list[dict] | None:
    """A test's or learning run's code ``records`` (oldest first) against the running code: None
    when it is the latest recorded; else the records to store, the running code appended (from
    ``since``, the games or rounds so far), when there is none yet or ``allow_change``; else a
    one-line ``CodeChanged`` naming both digests and the escape hatch."""
    now = code_record()
    if records and records[-1]["digest"] == now["digest"]:
        return None
    if records and not allow_change:
        raise CodeChanged(f"{kind} {name!r} was played under code {short(records[-1]['digest'])} and this is code "
                          f"{short(now['digest'])}: {command} would mix two versions in one {kind}; "
                          f"{command} --allow-code-change goes on anyway (status then says so)")
    return [*records, {**now, "since": since, "by": command}]


def describe_code(records: list[dict], unit: str = "trial") -> str:
    """One line for status and report: the code the study's games were played under, and how
    many versions it spans when it was resumed or validated under other code."""
    if not records:
        return f"not recorded (from before code digests were kept)"
    libs = lambda r: ", ".join(f"{name} {r.get(name, '?')}" for name in _LIBRARIES)  # noqa: E731
    if len(records) == 1:
        return f"{short(records[0]['digest'])} ({libs(records[0])})"
    each = "; ".join(f"{short(r['digest'])} from {unit} {r.get('since', 0)} ({libs(r)})" for r in records)
    return f"spans {len(records)} code versions: {each}"

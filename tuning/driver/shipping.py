"""Programs on a cluster: a program's folder shipped to every node that plays it.

A program's files (its ``cwd``, the files its command names, a frozen program's fingerprinted
files) exist on the driver's machine only. On a Ray cluster with a node other than the driver's
own, the driver packs each program into one zip (``pack``: every file under its ``cwd``, and
the files and folders its command and its ``files`` name outside it, at their absolute paths),
puts it in Ray's object store once, and every task that plays the program carries the reference
(``Shipment``). A node unpacks it once into a node-local cache, in a folder named by the
content's digest (``land``): the zip is unpacked into a scratch folder that is renamed into
place, so a worker that dies mid-unpack leaves only scratch, which the next one removes. The
program then starts from the unpacked copy: the same command, its ``cwd`` and the absolute
paths of its own files moved under the unpacked tree (``moved``). Files of the node's installed
software (``/usr``, ``/opt``, the lab's own Python, ...) never travel: the node must have them.

On the driver's own machine alone (a local Ray) nothing is packed: the program runs in place.
"""
from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import io
import json
import os
import shlex
import shutil
import stat
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from tuning.errors import TuningError

__all__ = ["Shipment", "SHIP_LIMIT_MB", "ENV_SHIP_LIMIT", "ENV_PROGRAM_CACHE", "ship_limit_bytes", "pack",
           "program_key", "shipments_for", "land", "unpacked", "held_copy", "moved", "cache_root", "once_per_node",
           "SKIPPED"]

SHIP_LIMIT_MB = 100  # what one program may ship: a bot's binary, jar or scripts and its data, with room
ENV_SHIP_LIMIT = "TUNE_SHIP_LIMIT_MB"  # raises (or lowers) it, on the driver
ENV_PROGRAM_CACHE = "TUNE_PROGRAM_CACHE"  # where a node unpacks programs (default: under its temp folder)
# Never shipped from a program's folder: version control, Python's caches and SQLite databases
# (the lab's own study files often sit beside the bot; they are written while it runs).
SKIPPED_FOLDERS = frozenset({".git", ".hg", ".svn", "__pycache__"})
SKIPPED_SUFFIXES = (".db", ".db-journal", ".db-wal", ".db-shm", ".sqlite", ".sqlite3")
SKIPPED = "folders .git .hg .svn __pycache__; files *.db *.db-wal *.db-shm *.db-journal *.sqlite *.sqlite3"
# The node's installed software: a path under one of these is the node's own, never shipped.
_INSTALLED = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/etc", "/nix", "/snap",
              "/proc", "/sys", "/dev")
_TREE = "tree"  # the unpacked files, at their driver-side absolute paths under it
_ZIP = "shipment.zip"  # the zip as shipped, beside them
_KEYS = "programs"  # a mark per program shipped as this content (its time: the copy's last use)
_SCRATCH = ".unpacking-"  # a folder being unpacked: .unpacking-DIGEST-PID-RANDOM
_STAMP = (1980, 1, 1, 0, 0, 0)  # zip entries' time: the zip of the same files is the same bytes
_RECHECK_S = 30.0  # how often a driver alone on its node looks again for other nodes


@dataclass(frozen=True)
class Shipment:
    """A program's packed files in Ray's object store: ``digest`` names its content (and the
    node's cache folder), ``ref`` the zip's bytes, ``size`` the bytes of its files."""

    digest: str
    ref: object  # ray.ObjectRef of the zip's bytes
    size: int
    files: int


def ship_limit_bytes() -> int:
    """The most a program may ship: ``$TUNE_SHIP_LIMIT_MB`` MB, else ``SHIP_LIMIT_MB``."""
    raw = os.environ.get(ENV_SHIP_LIMIT)
    if raw is None or not raw.strip():
        return SHIP_LIMIT_MB * 1_000_000
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise TuningError(f"{ENV_SHIP_LIMIT}={raw!r} is not a size; give megabytes, e.g. {ENV_SHIP_LIMIT}=500")
    return int(value * 1_000_000)


def program_key(program) -> str:
    """What identifies a program (an ``ocean.bots.external.ProgramSpec``) for shipping, as the
    driver sent it."""
    return json.dumps(program.as_json(), sort_keys=True)


def _installed(path: str) -> bool:
    prefixes = _INSTALLED + tuple({sys.prefix, sys.base_prefix, sys.exec_prefix})
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in prefixes if p and p != "/")


def _named_paths(program) -> list[tuple[str, bool]]:
    """(absolute path, whether ``SKIPPED`` names are left out under it) of what ``program`` needs:
    its ``cwd`` and, outside the node's installed software, each word of its command (but a first
    word without a slash: found on the PATH) that names an existing file or folder (skipping);
    its ``files`` (whole: their content is a frozen program's fingerprint)."""
    cwd = program.resolved_cwd() or os.getcwd()
    out = {os.path.normpath(cwd): True}
    for i, word in enumerate(shlex.split(program.command)):
        if "{" in word or (i == 0 and "/" not in word):
            continue
        path = os.path.normpath(os.path.join(cwd, os.path.expanduser(word)))
        if os.path.exists(path):
            out.setdefault(path, True)
    for f in program.files:
        out[os.path.normpath(f)] = False
    own = os.path.normpath(cwd)  # the program's own folder travels wherever it is (a bot in /opt/mybot)
    return [(p, skip) for p, skip in out.items() if p == own or not _installed(p)]


def _skipped(name: str) -> bool:
    return name in SKIPPED_FOLDERS or name.endswith(SKIPPED_SUFFIXES)


def _members(tops: Sequence[tuple[str, bool]], limit: int, who: str) -> list[tuple[str, str]]:
    """(name in the zip, path) of every file to ship under ``tops`` ((file or folder, skipping),
    ``_named_paths``; symbolic links are followed for files, not for folders). Raises
    ``TuningError`` past ``limit`` bytes, naming the folder and its size."""
    seen: dict[str, str] = {}
    total = 0
    for top, skip in tops:
        if os.path.isdir(top):
            paths = []
            for folder, subfolders, names in os.walk(top):
                seen.setdefault(folder, folder.lstrip("/") + "/")  # folders too: an empty one may be needed
                subfolders[:] = sorted(d for d in subfolders if not (skip and _skipped(d)))
                paths += [os.path.join(folder, n) for n in sorted(names) if not (skip and _skipped(n))]
        else:
            paths = [top]
        for path in paths:
            if path in seen or not os.path.isfile(path):
                continue  # a dangling link, a socket, a pipe: nothing a program reads as a file
            total += os.path.getsize(path)
            seen[path] = path.lstrip("/")
            if total > limit:
                _too_big(top, limit, who)
    return sorted((name, path) for path, name in seen.items())


def _too_big(top: str, limit: int, who: str) -> None:
    size, count = 0, 0
    for folder, subfolders, names in os.walk(top) if os.path.isdir(top) else [(os.path.dirname(top), [],
                                                                               [os.path.basename(top)])]:
        subfolders[:] = [d for d in subfolders if not _skipped(d)]
        for n in names:
            if not _skipped(n):
                try:
                    size += os.path.getsize(os.path.join(folder, n))
                except OSError:
                    pass
                count += 1
        if size > 20 * limit:
            break
    over = "more than " if size > 20 * limit else ""
    raise TuningError(f"{who}: its folder {top} holds {over}{size / 1e6:,.1f} MB in {count:,} files, over the "
                      f"{limit / 1e6:g} MB a program may ship to cluster nodes; give the program a folder of its "
                      f"own with only what it runs (its cwd), or raise {ENV_SHIP_LIMIT}")


def pack(program, *, limit: int | None = None, who: str | None = None) -> tuple[str, bytes, int, int]:
    """(digest, zip bytes, bytes of files, files) of what ``program`` needs on a node (see the
    module doc). The same files give the same zip and digest. ``TuningError`` (one line naming
    the folder and its size) past ``limit`` bytes (default ``ship_limit_bytes()``)."""
    limit = ship_limit_bytes() if limit is None else limit
    who = who or f"program {program.command!r}"
    tops = _named_paths(program)
    cwd = os.path.normpath(program.resolved_cwd() or os.getcwd())
    if not os.path.isdir(cwd):
        raise TuningError(f"{who}: its folder {cwd} does not exist on this machine (the driver's), so it cannot be "
                          "shipped to the cluster's nodes")
    members = _members(tops, limit, who)
    digest = hashlib.sha256()
    buffer = io.BytesIO()
    size = 0
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for name, path in members:
            folder = name.endswith("/")
            data = b""
            if not folder:
                with open(path, "rb") as fh:
                    data = fh.read()
            mode = 0o755 if folder or os.stat(path).st_mode & stat.S_IXUSR else 0o644
            info = zipfile.ZipInfo(name, date_time=_STAMP)
            info.external_attr = ((stat.S_IFDIR if folder else stat.S_IFREG) | mode) << 16
            info.compress_type = zipfile.ZIP_STORED if folder else zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
            digest.update(f"{name}\x00{mode:o}\x00".encode() + hashlib.sha256(data).digest())
            size += len(data)
    return digest.hexdigest()[:24], buffer.getvalue(), size, sum(not n.endswith("/") for n, _ in members)


# --- the driver: which programs ship, packed once per run -------------------------------------

_made: dict[tuple, Shipment] = {}  # (Ray job, program key) -> its shipment, in the driver's process
_alone: tuple[str, float] | None = None  # (Ray job, when) this driver last found itself alone on the cluster


def _job() -> str:
    import ray

    return ray.get_runtime_context().get_job_id()


def _needed() -> bool:
    """Whether games may run on a node other than the driver's own: an alive node that is not
    this process's (checked again at most every ``_RECHECK_S`` while alone, for nodes that join)."""
    global _alone
    import ray

    if not ray.is_initialized():
        return False
    job = _job()
    if _alone is not None and _alone[0] == job and time.monotonic() - _alone[1] < _RECHECK_S:
        return False
    own = ray.get_runtime_context().get_node_id()
    others = [n for n in ray.nodes() if n.get("Alive") and n.get("NodeID") != own]
    if others:
        _alone = None
        return True
    _alone = (job, time.monotonic())
    return False


def _missing(spec) -> bool:
    """Whether a program's folder is missing on this machine (a driver on another host than the
    one that launched the study): its shipped copy then comes from the nodes (``_from_nodes``)."""
    return not os.path.isdir(spec.program.resolved_cwd() or os.getcwd())


def shipments_for(specs: Iterable, *, fresh: bool = False) -> dict[str, Shipment]:
    """The shipments of the programs among ``specs`` (``ocean.bots.BotSpec``s) by ``program_key``:
    packed and put in Ray's object store once per run (``fresh``: packed again, as before a
    study starts: the files may have changed since); empty when every node is the driver's own
    and the programs' folders are here. A program whose folder is not on this machine ships the
    newest copy the nodes hold (an earlier driver's, ``_from_nodes``). ``TuningError`` for a
    program over the size limit, or whose folder is nowhere."""
    import ray

    programs = [s for s in specs if s is not None and s.is_program]
    if not programs or not ray.is_initialized():
        return {}
    if (not any((_job(), program_key(s.program)) in _made for s in programs) and not any(map(_missing, programs))
            and not _needed()):
        return {}

    out = {}
    for spec in programs:
        key = program_key(spec.program)
        made = _made.get((_job(), key))
        if made is None or fresh:
            who = f"program {spec.name!r}"
            if _missing(spec):
                made = made or _from_nodes(spec, who)
            else:
                digest, data, size, count = pack(spec.program, who=who)
                if made is None or made.digest != digest:
                    made = Shipment(digest, ray.put(data), size, count)
            _made[(_job(), key)] = made
        out[key] = made
    return out


# --- a node: unpack once, play from the copy ---------------------------------------------------

_landed: dict[str, str] = {}  # digest -> unpacked folder, in this process
_marked: set[tuple[str, str]] = set()  # (digest, program key) noted beside the copy by this process


def cache_root() -> str:
    """This node's folder of unpacked programs (``$TUNE_PROGRAM_CACHE``, else under the temp
    folder), made private to this user; ``TuningError`` for one another user owns."""
    root = os.environ.get(ENV_PROGRAM_CACHE) or os.path.join(tempfile.gettempdir(), f"tune-programs-{os.getuid()}")
    try:
        os.makedirs(root, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise TuningError(f"cannot make the program cache {root} on this node: {exc.strerror or exc}") from None
    info = os.lstat(root)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise TuningError(f"the program cache {root} is not a folder of this user's; remove it or set "
                          f"{ENV_PROGRAM_CACHE} to another folder")
    return root


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sweep(root: str) -> None:
    """Remove the scratch of unpacks whose process died (on this node: the cache is node-local)."""
    for name in os.listdir(root):
        if not name.startswith(_SCRATCH):
            continue
        try:
            pid = int(name[len(_SCRATCH):].split("-")[1])
        except (IndexError, ValueError):
            continue
        if not _alive(pid):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)


def _unpack(data: bytes, into: str) -> None:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            parts = info.filename.rstrip("/").split("/")
            if info.filename.startswith("/") or ".." in parts or "" in parts:
                raise TuningError(f"a shipped program holds a bad path {info.filename!r}")
            path = os.path.join(into, *parts)
            if info.is_dir():
                os.makedirs(path, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with archive.open(info) as src, open(path, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.chmod(path, (info.external_attr >> 16) & 0o777 or 0o644)


def _key_mark(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def unpacked(shipment: Shipment, fetch: Callable[[object], bytes] | None = None, key: str | None = None) -> str:
    """The folder where ``shipment`` is unpacked on this node, unpacking it first if no process
    of this node has (its bytes fetched from the object store only then). The zip is kept
    beside the files, and ``key`` (the ``program_key`` it was shipped for) noted, so a driver
    on a machine without the program's folder can take it back (``held_copy``)."""
    done = _landed.get(shipment.digest)
    if done is not None and os.path.isdir(done) and (key is None or (shipment.digest, key) in _marked):
        return done
    root = cache_root()
    final = os.path.join(root, shipment.digest)
    if not os.path.isdir(final):
        _sweep(root)
        if fetch is None:
            import ray

            fetch = ray.get
        data = fetch(shipment.ref)
        scratch = tempfile.mkdtemp(prefix=f"{_SCRATCH}{shipment.digest}-{os.getpid()}-", dir=root)
        try:
            _unpack(data, os.path.join(scratch, _TREE))
            with open(os.path.join(scratch, _ZIP), "wb") as fh:
                fh.write(data)
            os.chmod(scratch, 0o755)
            try:
                os.rename(scratch, final)  # atomic: the folder is complete or absent
            except OSError:
                if not os.path.isdir(final):  # not another process's copy winning the race
                    raise
        finally:
            if os.path.isdir(scratch):
                shutil.rmtree(scratch, ignore_errors=True)
    if key is not None:  # the newest use of a copy for this program: its time
        marks = os.path.join(final, _KEYS)
        os.makedirs(marks, exist_ok=True)
        mark = os.path.join(marks, _key_mark(key))
        with open(mark, "a"):
            pass
        os.utime(mark)
        _marked.add((shipment.digest, key))
    _landed[shipment.digest] = final
    return final


def held_copy(key: str) -> tuple[float, str, bytes] | None:
    """(when last used, digest, zip bytes) of the newest copy of program ``key`` this node
    holds, or None."""
    root = cache_root()
    best = None
    for name in os.listdir(root):
        mark = os.path.join(root, name, _KEYS, _key_mark(key))
        packed = os.path.join(root, name, _ZIP)
        if name.startswith(_SCRATCH) or not (os.path.isfile(mark) and os.path.isfile(packed)):
            continue
        when = os.path.getmtime(mark)
        if best is None or when > best[0]:
            best = (when, name, packed)
    if best is None:
        return None
    with open(best[2], "rb") as fh:
        return best[0], best[1], fh.read()


def _digest_of(data: bytes) -> tuple[str, int, int]:
    """(digest, bytes of files, files) of a shipment's zip, computed as ``pack`` does."""
    digest = hashlib.sha256()
    size = 0
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        for info in infos:
            content = archive.read(info)
            mode = (info.external_attr >> 16) & 0o777
            digest.update(f"{info.filename}\x00{mode:o}\x00".encode() + hashlib.sha256(content).digest())
            size += len(content)
    return digest.hexdigest()[:24], size, sum(not info.is_dir() for info in infos)


def _from_nodes(spec, who: str) -> Shipment:
    """The newest copy of ``spec``'s program the cluster's nodes hold (shipped by an earlier
    driver): for a driver on a machine without the program's folder (a study resumed from
    another host). ``TuningError`` if no node holds one."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    key = program_key(spec.program)
    task = ray.remote(num_cpus=0, max_retries=0)(held_copy)
    refs = [task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote(key)
            for n in ray.nodes() if n.get("Alive")]
    found = []
    for ref in refs:
        try:
            copy = ray.get(ref)
        except ray.exceptions.RayError:  # a node that went away meanwhile holds nothing
            continue
        if copy is not None and _digest_of(copy[2])[0] == copy[1]:  # a copy as it was shipped
            found.append(copy)
    if not found:
        cwd = os.path.normpath(spec.program.resolved_cwd() or os.getcwd())
        raise TuningError(f"{who}: its folder {cwd} does not exist on this machine (the driver's), and no node of "
                          "the cluster holds a copy shipped by an earlier driver; run the driver where the folder is")
    _, digest, data = max(found, key=lambda c: c[0])
    _, size, count = _digest_of(data)
    return Shipment(digest, ray.put(data), size, count)


def moved(program, tree: str):
    """``program`` (a ``ProgramSpec``) started from ``tree``, the unpacked copy of its files at
    their driver-side absolute paths: its ``cwd``, and each absolute path of its command and
    ``files`` that was shipped, moved under ``tree``. Relative paths stay (they start at the
    moved ``cwd``); what was not shipped (the node's installed software) stays as it was."""
    def under(path: str) -> str:
        return os.path.join(tree, os.path.normpath(path).lstrip("/"))

    cwd = program.resolved_cwd()
    words = shlex.split(program.command)
    for i, word in enumerate(words):
        if "{" in word or (i == 0 and "/" not in word):
            continue
        path = os.path.expanduser(word)
        if os.path.isabs(path) and os.path.lexists(under(path)):
            words[i] = under(path)
    command = program.command if words == shlex.split(program.command) else shlex.join(words)
    files = tuple(under(f) if os.path.lexists(under(f)) else f for f in program.files)
    return dataclasses.replace(program, command=command, cwd=under(cwd) if cwd is not None else cwd, files=files)


def land(spec, shipments: Mapping[str, Shipment] | None):
    """``spec`` (a ``BotSpec``) as this node plays it: a shipped program started from its
    unpacked copy; any other bot (or a program not shipped) as it is."""
    if not shipments or spec is None or not spec.is_program:
        return spec
    shipment = shipments.get(program_key(spec.program))
    if shipment is None:
        return spec
    key = program_key(spec.program)
    tree = os.path.join(unpacked(shipment, key=key), _TREE)
    return dataclasses.replace(spec, program=moved(spec.program, tree))


_node_checked: set[str] = set()  # marks this process has seen


def once_per_node(spec, what: str, check: Callable[[], list[str]], *, fresh: bool = False) -> list[str]:
    """Run ``check`` (problems, one line each) for landed program ``spec`` once on this node:
    the first process to get here checks, holding a lock the others wait on, and a clean check
    leaves a mark (beside the program's unpacked files) the others and later workers read.
    ``what``: what else the check depends on (the time control); ``fresh``: check even if
    marked (before a study starts), marking again if clean."""
    root = cache_root()
    home = os.path.join(root, os.path.relpath(spec.program.cwd, root).split("/")[0])  # the copy's digest folder
    key = hashlib.sha256((program_key(spec.program) + "\x00" + what).encode()).hexdigest()[:16]
    mark = os.path.join(home, f"checked-{key}")
    if not fresh and (mark in _node_checked or os.path.exists(mark)):
        _node_checked.add(mark)
        return []
    with open(os.path.join(home, f"checking-{key}.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released if this process dies: another checks again
        if not fresh and os.path.exists(mark):
            _node_checked.add(mark)
            return []
        problems = check()
        if not problems:
            with open(mark + ".new", "w") as fh:
                fh.write(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()) + "\n")
            os.replace(mark + ".new", mark)
            _node_checked.add(mark)
        return problems

"""The fixed opponent panel: frozen bots by stable name, and named panels of them, read
from ocean/data/panels.toml (the file says how bots are versioned), plus the user's own panel
file (``user_panel_path``): bot authors freeze exported coefficient sets and programs there under
names of their own (``ocean panel add``, see ``ocean.freeze``) and use them as opponents in
arenas and later studies.

This module reads and writes the files; fingerprints (what makes a frozen bot checkable) are
computed above it, in ``ocean.fingerprint``. Writes to the user's file hold a lock and replace
the file at once, so two ``ocean panel add`` at the same time both land and a crash never
leaves half a file.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from ocean.bots import coefficients
from ocean.bots.registry import POLICIES, TUNABLE_POLICIES

if TYPE_CHECKING:
    from ocean.bots.external import ProgramSpec

__all__ = ["PanelBot", "BUILTIN", "PROGRAM", "panel_file_text", "user_panel_path", "panel_bots", "panel_names",
           "panel_members", "latest_version", "reload_panels", "check_new_name", "write_user_bot", "program_entry",
           "params_entry"]

_NAME = re.compile(r"^(?P<family>[a-z][a-z0-9_]*)-v(?P<version>[0-9]+)$")
BUILTIN = "built-in"
ENV_PANELS = "OCEAN_PANELS"
PROGRAM = "program"

class PanelBot(dict):
    """One frozen bot: ``name``, ``policy``, ``style``, ``params`` (None for baselines and
    programs), ``program`` (a ``ProgramSpec`` for an external program, else None),
    ``fingerprint`` (hash of its lines on fixed games, or of its files for a program that is not
    reproducible; see ocean.fingerprint), ``coefficients_digest`` (hash of the coefficients it was
    frozen with, for bots frozen by ``ocean panel add --params``; else None), ``source``
    (``BUILTIN`` or the user panel file it comes from)."""


def panel_file_text() -> str:
    """The lab's own panel file (``ocean/data/panels.toml``)."""
    # Imported here: importlib.resources pulls in tempfile, shutil and bz2, a tenth of the imports
    # of `ocean bot`'s first answer, which never reads the panel.
    from importlib import resources

    return resources.files("ocean").joinpath("data/panels.toml").read_text()


def user_panel_path() -> Path:
    """The user's panel file: ``$OCEAN_PANELS``, else ``$XDG_CONFIG_HOME/ocean-lab/panels.toml``
    (``~/.config/ocean-lab/panels.toml``). It need not exist."""
    if os.environ.get(ENV_PANELS):
        return Path(os.environ[ENV_PANELS])
    config = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(config) / "ocean-lab" / "panels.toml"


def reload_panels() -> None:
    """Forget the loaded panels (after the user file changed)."""
    _load.cache_clear()


def _read_bots(data: dict, where: str, source: str) -> dict[str, PanelBot]:
    bots = {}
    for name, entry in data.get("bots", {}).items():
        if not _NAME.match(name):
            raise ValueError(f"{where}: bot name {name!r} must look like family-vN, e.g. mybot-v1")
        if isinstance(entry, dict) and entry.get("policy") == PROGRAM:
            bots[name] = _read_program(name, entry, where, source)
            continue
        if not isinstance(entry, dict) or entry.get("policy") not in POLICIES:
            raise ValueError(f"{where}: [bots.{name}] needs policy = one of "
                             f"{', '.join(map(repr, (*POLICIES, PROGRAM)))}")
        params = None
        if entry["policy"] in TUNABLE_POLICIES:
            if not isinstance(entry.get("coefficients"), dict):
                raise ValueError(f"{where}: [bots.{name}.coefficients] is missing")
            params = coefficients.validate(entry["coefficients"], where=f"{where} [bots.{name}]",
                                           policy=entry["policy"])
        bots[name] = PanelBot(name=name, policy=entry["policy"], style=entry.get("style", ""),
                              params=params, program=None, fingerprint=entry.get("fingerprint"),
                              coefficients_digest=entry.get("coefficients_digest"), source=source)
    return bots


def _read_program(name: str, entry: dict, where: str, source: str) -> PanelBot:
    for key in ("command", "fingerprint"):
        if not isinstance(entry.get(key), str):
            raise ValueError(f"{where}: [bots.{name}] is a program and needs {key} = \"...\"")
    cwd = entry.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ValueError(f"{where}: [bots.{name}] cwd must be a folder path")
    deterministic = entry.get("deterministic", True)
    files = entry.get("files", [])
    if not isinstance(deterministic, bool):
        raise ValueError(f"{where}: [bots.{name}] deterministic must be true or false")
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise ValueError(f"{where}: [bots.{name}] files must be a list of paths")
    if not deterministic and not files:
        raise ValueError(f"{where}: [bots.{name}] is not deterministic and needs files = [...] (its fingerprint)")
    try:
        # An entry written before time controls were stored plays at the game's (time = None).
        # here, not at the top: `ocean bot` imports this module before its first answer
        from ocean.bots.external import ProgramSpec
        from ocean.timecontrol import TimeControl

        time = TimeControl.from_json(entry["time"], where="time") if "time" in entry else None
        program = ProgramSpec(entry["command"], cwd=cwd, fingerprint=entry["fingerprint"], time=time,
                              deterministic=deterministic, files=tuple(files))
    except ValueError as exc:
        raise ValueError(f"{where}: [bots.{name}] {exc}") from None
    return PanelBot(name=name, policy=PROGRAM, style=entry.get("style", ""), params=None, program=program,
                    fingerprint=entry["fingerprint"], coefficients_digest=None, source=source)


@lru_cache(maxsize=1)
def _load() -> tuple[dict, dict]:
    import tomllib

    data = tomllib.loads(panel_file_text())
    bots = _read_bots(data, "panels.toml", BUILTIN)
    panels = dict(data["panels"])
    user = user_panel_path()
    if user.is_file():
        try:
            extra = tomllib.loads(user.read_text())
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{user}: not valid TOML ({exc})") from None
        families = {_NAME.match(n)["family"] for n in bots}
        for name in extra.get("bots", {}):
            if name.rpartition("-v")[0] in families:
                raise ValueError(f"{user}: bot {name!r} is of a built-in family; give yours another name")
        bots.update(_read_bots(extra, str(user), str(user)))
        for panel, members in extra.get("panels", {}).items():
            if panel in panels:
                raise ValueError(f"{user}: panel {panel!r} is a built-in panel; give yours another name")
            if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
                raise ValueError(f"{user}: panel {panel!r} must be a list of bot names")
            panels[panel] = members
    for panel, members in panels.items():
        for member in members:
            if member not in bots:
                raise ValueError(f"panel {panel!r} lists unknown bot {member!r}")
    return bots, panels


def panel_bots() -> dict[str, PanelBot]:
    """Every frozen bot by name."""
    return dict(_load()[0])


def panel_names() -> list[str]:
    """The names of the panels."""
    return list(_load()[1])


def panel_members(name: str) -> list[str]:
    """Bot names of panel ``name``; ValueError naming the panels if there is none."""
    panels = _load()[1]
    if name not in panels:
        raise ValueError(f"unknown panel {name!r}; panels: {', '.join(panels)}")
    return list(panels[name])


def latest_version(family: str) -> str | None:
    """Full name of the highest version of a bot family (``hunter`` -> ``hunter-v1``)."""
    best = None
    for name in _load()[0]:
        m = _NAME.match(name)
        if m and m["family"] == family and (best is None or int(m["version"]) > best[0]):
            best = (int(m["version"]), name)
    return best[1] if best else None




def check_new_name(name: str, panel: str | None) -> None:
    """ValueError (one line) unless ``name`` is a free name of the form family-vN, of a family
    that is not built in, and ``panel`` (if given) is not a built-in panel."""
    if not _NAME.match(name):
        raise ValueError(f"bot name {name!r} must look like family-vN, e.g. mybest-v1")
    bots, panels = _load()
    family = _NAME.match(name)["family"]
    if any(b["source"] == BUILTIN and _NAME.match(n)["family"] == family for n, b in bots.items()):
        raise ValueError(f"bot family {family!r} is built in; name yours differently, e.g. my{family}-v1")
    if name in bots:
        newest = int(_NAME.match(latest_version(family))["version"])
        raise ValueError(f"bot {name!r} exists and is frozen; add a new version, e.g. {family}-v{newest + 1}")
    if panel is not None and panel in panels and bots.get(panels[panel][0], {}).get("source") == BUILTIN:
        raise ValueError(f"panel {panel!r} is a built-in panel; give yours another name")


def program_entry(name: str, program: ProgramSpec, style: str) -> list[str]:
    """The TOML lines of a frozen program (``program`` with its fingerprint and time control)."""
    toml = coefficients.toml_value
    lines = [f'\n[bots."{name}"]', f'policy = "{PROGRAM}"', f"style = {toml(style)}",
             f"command = {toml(program.command)}", f"cwd = {toml(program.cwd)}"]
    if program.time is not None:
        t = program.time
        lines.append(f"time = {{ turn_ms = {t.turn_ms}, first_turn_ms = {t.first_turn_ms}, scale = {t.scale!r} }}")
    if not program.deterministic:
        lines += ["deterministic = false", f"files = {toml(list(program.files))}"]
    lines.append(f'fingerprint = "{program.fingerprint}"')
    return lines


def params_entry(name: str, policy: str, params: dict, style: str, fingerprint: str, digest: str) -> list[str]:
    """The TOML lines of a frozen coefficient set (``params``, complete and validated)."""
    toml = coefficients.toml_value
    lines = [f'\n[bots."{name}"]', f'policy = "{policy}"', f"style = {toml(style)}",
             f'fingerprint = "{fingerprint}"', f'coefficients_digest = "{digest}"', f'\n[bots."{name}".coefficients]']
    return lines + [coefficients.coefficient_line(c, params[c.name]) for c in coefficients.registry(policy)]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold the user panel file's lock (a file beside it) for the duration."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(str(path) + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def write_user_bot(name: str, entry: list[str], panel: str | None) -> Path:
    """Add a bot's TOML lines (``program_entry``, ``params_entry``) to the user panel file, and
    the bot to the user panel ``panel`` (created if new). Under the file's lock the file is read
    afresh, so a bot another ``ocean panel add`` wrote meanwhile stays, and a name taken
    meanwhile is refused; the new file replaces the old one at once. Returns the file."""
    import tomllib

    path = user_panel_path()
    with _locked(path):
        text = path.read_text() if path.is_file() else (
            "# Your own frozen bots and panels (ocean panel add). Same format as ocean/data/panels.toml.\n")
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: not valid TOML ({exc})") from None
        if name in data.get("bots", {}):
            raise ValueError(f"bot {name!r} was frozen meanwhile by another ocean panel add; "
                             "add a new version instead")
        user_panels = dict(data.get("panels", {}))
        if panel is not None:
            user_panels[panel] = list(user_panels.get(panel, [])) + [name]
        body = text.split("\n[panels]\n")[0].rstrip("\n") + "\n" + "\n".join(entry) + "\n"
        if user_panels:
            body += "\n[panels]\n" + "".join(f"{k} = {coefficients.toml_value(v)}\n" for k, v in user_panels.items())
        written = tomllib.loads(body)  # never write a file we could not read back, nor lose a bot
        if set(written.get("bots", {})) != set(data.get("bots", {})) | {name}:
            raise ValueError(f"{path}: keep its [panels] table last (as ocean panel add writes it), then retry")
        _replace(path, body)
    reload_panels()
    return path


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to a new file beside ``path`` and put it in ``path``'s place at once."""
    import tempfile  # here, not above: see panel_file_text

    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise

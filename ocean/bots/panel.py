"""The fixed opponent panel: frozen bots by stable name, and named panels of them, read
from ocean/data/panels.toml (the file says how bots are versioned), plus the user's own panel
file (``user_panel_path``): bot authors freeze exported coefficient sets there under names of
their own (``ocean panel add``) and use them as opponents in arenas and later studies."""
from __future__ import annotations

import os
import re
import tomllib
from functools import lru_cache
from importlib import resources
from pathlib import Path

from ocean.bots import coefficients
from ocean.bots.registry import POLICIES, TUNABLE_POLICIES
from ocean.bots.external import GAME_SEED, ProgramSpec

__all__ = ["PanelBot", "BUILTIN", "panel_file_text", "user_panel_path", "panel_bots", "panel_names",
           "panel_members", "latest_version", "add_user_bot", "add_program_bot", "reload_panels",
           "behaviour_fingerprint", "check_fingerprint", "FingerprintError"]

_NAME = re.compile(r"^(?P<family>[a-z][a-z0-9_]*)-v(?P<version>[0-9]+)$")
BUILTIN = "built-in"
ENV_PANELS = "OCEAN_PANELS"
PROGRAM = "program"
FINGERPRINT_SEEDS = (11, 22, 33, 44)  # the fixed games of a fingerprint, each played on both sides
# A program's fingerprint games get CodinGame's limits times this: a fingerprint is about what a
# program plays, not about how fast a loaded machine runs it.
FINGERPRINT_TIME_SCALE = 20.0


class FingerprintError(ValueError):
    """A frozen program that vanished, fails to start, or plays other lines than when frozen."""


class PanelBot(dict):
    """One frozen bot: ``name``, ``policy``, ``style``, ``params`` (None for baselines and
    programs), ``program`` (a ``ProgramSpec`` for an external program, else None),
    ``fingerprint`` (hash of its lines on fixed games; see tests), ``source`` (``BUILTIN`` or
    the user panel file it comes from)."""


def panel_file_text() -> str:
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
                              params=params, program=None, fingerprint=entry.get("fingerprint"), source=source)
    return bots


def _read_program(name: str, entry: dict, where: str, source: str) -> PanelBot:
    for key in ("command", "fingerprint"):
        if not isinstance(entry.get(key), str):
            raise ValueError(f"{where}: [bots.{name}] is a program and needs {key} = \"...\"")
    cwd = entry.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ValueError(f"{where}: [bots.{name}] cwd must be a folder path")
    try:
        program = ProgramSpec(entry["command"], cwd=cwd, fingerprint=entry["fingerprint"])
    except ValueError as exc:
        raise ValueError(f"{where}: [bots.{name}] {exc}") from None
    return PanelBot(name=name, policy=PROGRAM, style=entry.get("style", ""), params=None, program=program,
                    fingerprint=entry["fingerprint"], source=source)


@lru_cache(maxsize=1)
def _load() -> tuple[dict, dict]:
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


def behaviour_fingerprint(spec) -> str:
    """A hash of every line ``spec`` plays on fixed games against ``random-v1`` (four
    maps, both sides): any change to a bot's behaviour changes it."""
    if spec.is_program:
        return _program_fingerprint(spec)[0]
    import hashlib

    import numpy as np

    from ocean import _match, _rules
    from ocean.bots import resolve_bot
    from ocean.constants import ACTION_FIELDS, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS
    from ocean.match import boards_for_seeds

    opponent = resolve_bot("random-v1")
    digest = hashlib.sha256()
    state = _rules.new_state()
    log = np.zeros((MAX_PLAYER_TURNS, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    counts = np.zeros(MAX_PLAYER_TURNS + 2, dtype=np.int64)
    seeds = list(FINGERPRINT_SEEDS)
    for seed, board in zip(seeds, boards_for_seeds(seeds)):
        for bots in ((spec, opponent), (opponent, spec)):
            kinds = np.array([b.kind for b in bots], dtype=np.int64)
            coefs = np.stack([b.vector() for b in bots])
            turns = _match.play_game(board, kinds, coefs, np.int64(seed), state, log, counts)
            digest.update(log[:turns].tobytes())
            digest.update(counts[:turns].tobytes())
    return digest.hexdigest()[:16]


def _program_fingerprint(spec) -> tuple[str, str | None]:
    """(hash of the program's lines on the fingerprint games against ``random-v1``, the first
    disqualification reason or None). The program's stderr and timing do not count."""
    import hashlib

    from ocean.bots import resolve_bot
    from ocean.players import open_player
    from ocean.referee import FIRST_TIMEOUT_MS, TURN_TIMEOUT_MS, referee_players

    opponent = resolve_bot("random-v1")
    digest = hashlib.sha256()
    problem = None
    for seed in FINGERPRINT_SEEDS:
        for side in range(2):
            specs = (spec, opponent) if side == 0 else (opponent, spec)
            players = []
            try:
                for s in specs:
                    players.append(open_player(s, seed))
                played = referee_players(seed, players, keep_outputs=True,
                                         first_timeout_ms=round(FIRST_TIMEOUT_MS * FINGERPRINT_TIME_SCALE),
                                         timeout_ms=round(TURN_TIMEOUT_MS * FINGERPRINT_TIME_SCALE))
            finally:
                for player in players:
                    player.close()
            for line in played.outputs[side]:
                digest.update(b"\x00" if line is None else line.encode() + b"\n")
            why = played.why[side]
            if why and problem is None:
                problem = f"seed {seed}: {why}"
    return digest.hexdigest()[:16], problem


def check_fingerprint(spec) -> None:
    """Refuse (``FingerprintError``, one line naming the bot) a frozen program that cannot
    start or whose lines on the fingerprint games changed since it was frozen."""
    if not spec.is_program or spec.program.fingerprint is None:
        return
    try:
        found, _ = _program_fingerprint(spec)
    except (OSError, ValueError) as exc:
        raise FingerprintError(f"panel program {spec.name!r} cannot start: {exc}") from None
    if found != spec.program.fingerprint:
        raise FingerprintError(
            f"panel program {spec.name!r} ({spec.program.command}) plays differently than when it was frozen "
            f"(fingerprint {found}, frozen {spec.program.fingerprint}); restore it, or freeze the new "
            f"version under a new name with ocean panel add")


def add_program_bot(name: str, command: str, cwd: str | None = None, style: str = "",
                    panel: str | None = None) -> tuple[Path, str]:
    """Freeze an external program as bot ``name`` in the user's panel file, with the
    fingerprint of its lines on fixed games (played twice: a program whose lines differ between
    two runs is refused, it could never be checked). Returns (panel file, fingerprint)."""
    bots, panels = _check_new_name(name, panel)
    folder = os.path.abspath(os.path.expanduser(cwd)) if cwd is not None else os.getcwd()
    if not os.path.isdir(folder):
        raise ValueError(f"--cwd {cwd!r} is not a folder")
    program = ProgramSpec(command, cwd=folder)
    extra = program.placeholders() - {GAME_SEED}
    if extra:
        raise ValueError(f"a frozen program takes no parameters: put values in place of "
                         f"{', '.join('{' + n + '}' for n in sorted(extra))} ({{game_seed}} is allowed)")
    from ocean.bots import BotSpec  # here: ocean.bots imports this module

    spec = BotSpec(name, PROGRAM, {}, program)
    try:
        first, problem = _program_fingerprint(spec)
        if problem is not None:
            raise ValueError(f"program {command!r} was disqualified in a fingerprint game ({problem}); "
                             "fix it before freezing it")
        second, _ = _program_fingerprint(spec)
    except OSError as exc:
        raise ValueError(str(exc)) from None
    if first != second:
        raise ValueError(f"program {command!r} played different lines in two runs of the same games: it is not "
                         "deterministic, so it could never be checked; seed its randomness from {game_seed}, "
                         f"e.g. --command \"{command} --seed {{game_seed}}\"")
    entry = [f'\n[bots."{name}"]', f'policy = "{PROGRAM}"', f"style = {coefficients.toml_value(style)}",
             f"command = {coefficients.toml_value(command)}", f"cwd = {coefficients.toml_value(folder)}",
             f'fingerprint = "{first}"']
    return _write_user_bot(name, entry, panel), first


def _check_new_name(name: str, panel: str | None) -> tuple[dict, dict]:
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
    return bots, panels


def _write_user_bot(name: str, entry: list[str], panel: str | None) -> Path:
    """Append a bot's TOML lines to the user panel file (and the bot to ``panel``)."""
    path = user_panel_path()
    text = path.read_text() if path.is_file() else (
        "# Your own frozen bots and panels (ocean panel add). Same format as ocean/data/panels.toml.\n")
    data = tomllib.loads(text)
    user_panels = dict(data.get("panels", {}))
    if panel is not None:
        user_panels[panel] = list(user_panels.get(panel, [])) + [name]
    body = text.split("\n[panels]\n")[0].rstrip("\n") + "\n" + "\n".join(entry) + "\n"
    if user_panels:
        body += "\n[panels]\n" + "".join(f"{k} = {coefficients.toml_value(v)}\n" for k, v in user_panels.items())
    path.parent.mkdir(parents=True, exist_ok=True)
    written = tomllib.loads(body)  # never write a file we could not read back, nor lose a bot
    if set(written.get("bots", {})) != set(data.get("bots", {})) | {name}:
        raise ValueError(f"{path}: keep its [panels] table last (as ocean panel add writes it), then retry")
    path.write_text(body)
    reload_panels()
    return path


def add_user_bot(name: str, params: dict, style: str = "", panel: str | None = None,
                 policy: str = coefficients.V1) -> Path:
    """Freeze ``params`` as tunable bot ``name`` (of tunable policy ``policy``) in the user's
    panel file (and append it to the user panel ``panel``, created if new). Refuses a name that
    exists: frozen bots never change."""
    _check_new_name(name, panel)
    from ocean.bots import BotSpec  # here: ocean.bots imports this module

    full = coefficients.validate(params, policy=policy)
    spec = BotSpec(name, policy, full)
    entry = [f'\n[bots."{name}"]', f'policy = "{policy}"', f"style = {coefficients.toml_value(style)}",
             f'fingerprint = "{behaviour_fingerprint(spec)}"', f'\n[bots."{name}".coefficients]']
    entry += [coefficients.coefficient_line(c, full[c.name]) for c in coefficients.registry(policy)]
    return _write_user_bot(name, entry, panel)

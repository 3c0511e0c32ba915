"""``tune check``: can every node of the cluster play a study's bots? Its programs are shipped and
checked on each node exactly as before a study starts, and nothing is played or stored."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tuning.cli.common import RAY_HELP, STORAGE_HELP, fail, json_text, user_errors

__all__ = ["check", "COMMANDS"]


@user_errors
def check(
    study: str = typer.Argument(..., metavar="STUDY", help="A study file (TOML) or a stored study's name."),
    storage: Optional[str] = typer.Option(None, "--storage", help=STORAGE_HELP),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help=RAY_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object as the last line."),
) -> None:
    """Check every node of the cluster before a study: its programs are shipped to each node and
    checked there (the runtime on the node's PATH, a frozen program's fingerprint, the tuned
    program's first answer), its frozen bots too; one line per node. Plays and stores nothing;
    exits 2 with the first problem."""
    from tuning.driver.cluster import connect
    from tuning.driver.programs import check_nodes
    from tuning.driver.shipping import program_key

    path = Path(study)
    if path.suffix.lower() == ".toml" or path.is_file():
        from tuning.study.opponents import checked_bots, study_opponents
        from tuning.study.spec import load_spec

        spec = load_spec(path)
        panel, held_out = study_opponents(spec)
        bots, time, address = checked_bots(spec, panel, held_out), spec.time_control, spec.ray_address
    else:
        from tuning.storage.database import resolve_url
        from tuning.storage.handle import open_study

        handle = open_study(study, resolve_url(study, option=storage))
        try:
            bots, time, address = handle.checked_bots, handle.spec.time_control, handle.spec.ray_address
        finally:
            handle.close()
    connect(ray_address or address)
    nodes, shipments = check_nodes(bots, time) if bots else ([], {})
    shipped = [{"program": b.name, "files": shipments[program_key(b.program)].files,
                "bytes": shipments[program_key(b.program)].size}
               for b in bots if b.is_program and program_key(b.program) in shipments]
    problems = [p for _, found in nodes for p in found]
    if as_json:
        typer.echo(json_text({"ok": not problems, "bots": [b.name for b in bots], "shipped": shipped,
                              "nodes": [{"node": name, "problems": found} for name, found in nodes]}))
    else:
        if not bots:
            typer.echo("nothing to check: the study plays no program and no frozen bot")
        for item in shipped:
            typer.echo(f"shipped program {item['program']!r}: {item['files']} files, {item['bytes'] / 1e6:.1f} MB")
        if bots and not shipped and any(b.is_program for b in bots):
            typer.echo("not shipped: every node is this machine's own (its programs run in place)")
        for name, found in nodes:
            typer.echo(f"node {name}: " + ("ok" if not found else f"{len(found)} problem(s)"))
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        fail(problems[0] + more)


COMMANDS = (check,)

"""Before a study plays external programs: check them on every node that will run games.

A node checks each program the study plays and each frozen bot: a frozen panel program or
in-process bot must still play the lines it was frozen with (its fingerprint; an in-process
bot's coefficients also by their digest), and the tuned program must start and answer its first
line with its reference parameters. On a cluster the programs are first shipped to the node
(``tuning.driver.shipping``) and checked as the node will play them, from the shipped copy.
Nodes that join later are covered by the worker, which checks each shipped program once per
node, and each other frozen bot once per process, before its first game there
(``tuning.driver.worker``). A missing runtime (a command found on no folder of the node's
PATH: java, node, mono...), a missing binary, interpreter or library, or a changed opponent is
one line naming the node (host, address, Ray node) and the command, before any game is scored.
"""
from __future__ import annotations

import os
import shlex
import shutil
import socket
from typing import Mapping, Sequence

import ray

from tuning.errors import TuningError

__all__ = ["check_programs", "check_nodes", "check_on_this_node", "check_shipped", "node_name", "bot_problems"]

_CHECK_SEED = 1  # the map the start check shows a program


def node_name() -> str:
    """This machine as a refusal names it: its host name and, in a Ray task, its address and
    Ray node (several nodes may share a host)."""
    host = socket.gethostname()
    if not ray.is_initialized():
        return host
    own = ray.get_runtime_context().get_node_id()
    # the node's own address (``ray start --node-ip-address``), as the cluster knows it
    address = next((n.get("NodeManagerAddress") for n in ray.nodes() if n.get("NodeID") == own), None)
    return f"{host} (Ray node {own[:8]}" + (f" at {address})" if address else ")")


def _runtime_problem(spec) -> str | None:
    """One line if the program's command starts with a word looked up on the PATH (its runtime:
    java, node, mono, python3...) that no folder of this node's PATH holds."""
    from ocean.progenv import program_environment

    program = spec.program
    first = shlex.split(program.command)[0]
    if "/" in first or "{" in first or first == "ocean":  # a path; the lab's own ocean is always found
        return None
    path = program_environment(dict(program.env)).get("PATH", os.defpath)
    if shutil.which(first, path=path):
        return None
    who = (f"panel program {spec.name!r}" if program.fingerprint is not None
           else f"the study's program {program.display(spec.params)!r}")
    return (f"{who} needs {first!r}, which is not on this node's PATH ({path}); install its runtime on the node "
            "(docs/cluster.md)")


def _runtime_here(spec) -> str:
    """Which runtime this node runs a program with (its command's first word found on the PATH,
    links followed: another JVM is another path), for a refusal; "" for a program run by path."""
    from ocean.progenv import program_environment

    first = shlex.split(spec.program.command)[0]
    if "/" in first or "{" in first:
        return ""
    found = shutil.which(first, path=program_environment(dict(spec.program.env)).get("PATH", os.defpath))
    return f" ({first} on this node: {os.path.realpath(found)})" if found else ""


def bot_problems(spec, time_control=None, *, start: bool = True) -> list[str]:
    """Problems with one bot (a ``BotSpec``: a program, or a frozen in-process bot) on this
    machine, one line each without the node's name (empty: all good). ``start`` False: of a
    program that is not frozen, only what is the node's (its runtime), not whether it answers
    with the values it has (a trial's values may break it: that fails the trial, not the node)."""
    from ocean.fingerprint import FingerprintError, check_frozen
    from ocean.players import open_player
    from ocean.referee import first_answer
    from ocean.timecontrol import DEFAULT_TIME

    if spec.is_program:
        missing = _runtime_problem(spec)
        if missing is not None:
            return [missing]
    if not spec.is_program or spec.program.fingerprint is not None:  # a frozen bot
        try:
            check_frozen(spec, fresh=True)  # Ray workers live on: never a cached answer here
        except FingerprintError as exc:
            return [str(exc) + (_runtime_here(spec) if spec.is_program else "")]
        return []
    if not start:
        return []
    try:
        player = open_player(spec, _CHECK_SEED, time=time_control or DEFAULT_TIME)
    except OSError as exc:
        return [f"the study's program cannot start: {exc.strerror or exc}"]
    except ValueError as exc:
        return [f"the study's program cannot start: {exc}"]
    try:
        _, why = first_answer(player, _CHECK_SEED)
    finally:
        player.close()
    if why is not None:
        return [f"the study's program ({spec.program.display(spec.params)}) did not answer its first line: {why}"]
    return []


def _time_key(time_control) -> str:
    return "default" if time_control is None else repr(time_control)


def check_on_this_node(programs: Sequence, time_control=None, shipments: Mapping | None = None) -> list[str]:
    """Problems with ``programs`` (``BotSpec``s: programs and frozen in-process bots) on this
    machine, one line each naming it (empty: all good); ``time_control``: the study's (an
    ``ocean.timecontrol.TimeControl``; None: CodinGame's); ``shipments``: the programs' shipped
    files (``tuning.driver.shipping.shipments_for``), played from their copy on this node."""
    from ocean.sandbox import unavailable_reason
    from ocean.timecontrol import DEFAULT_TIME
    from tuning.driver.shipping import land, once_per_node

    problems = []
    policy = (time_control or DEFAULT_TIME).sandbox
    if policy.required and unavailable_reason() is not None:
        return [f"node {node_name()}: the sandbox is required ([sandbox] required = true, tune test --require-sandbox) "
                f"but cannot start: "
                f"{unavailable_reason()}"]
    for spec in programs:
        try:
            here = land(spec, shipments)
        except (TuningError, OSError) as exc:
            problems.append(f"node {node_name()}: program {spec.name!r} could not be unpacked here: {exc}")
            continue
        if here is spec:
            found = bot_problems(spec, time_control)
        else:  # checked now, and marked checked for this node's workers
            found = once_per_node(here, _time_key(time_control), lambda: bot_problems(here, time_control),
                                  fresh=True)
        if found:
            host = node_name()
            problems += [f"node {host}: {p}" for p in found]
    return problems


def check_shipped(specs: Sequence, time_control=None) -> list[str]:
    """Problems with the shipped programs among ``specs`` (already landed on this node), each
    checked once per node (the first worker to play it checks; the others wait and read the
    result); lines naming the node. A tuned program is checked for its runtime only: it plays
    a trial's values here, which may break it (its start with the study's reference values is
    checked on every node before the study, ``check_programs``)."""
    from tuning.driver.shipping import once_per_node

    problems = []
    for spec in specs:
        found = once_per_node(spec, _time_key(time_control), lambda: bot_problems(spec, time_control, start=False))
        if found:
            host = node_name()
            problems += [f"node {host}: {p}" for p in found]
    return problems


def _node_report(programs: Sequence, time_control=None, shipments: Mapping | None = None) -> tuple[str, list[str]]:
    """(this node's name, ``check_on_this_node``'s problems)."""
    return node_name(), check_on_this_node(programs, time_control, shipments)


_check_task = ray.remote(num_cpus=1, max_retries=0)(_node_report)
_NODE_GONE = (ray.exceptions.TaskUnschedulableError, ray.exceptions.NodeDiedError, ray.exceptions.WorkerCrashedError)
_LEFT_WAIT = 30.0  # seconds Ray may take to declare a node dead after its task failed with it


def _left(node_id: str) -> bool:
    """Whether the node ``node_id`` is (or within ``_LEFT_WAIT``, becomes) dead or gone."""
    import time

    deadline = time.monotonic() + _LEFT_WAIT
    while True:
        if not any(n["NodeID"] == node_id and n.get("Alive") for n in ray.nodes()):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)


def check_nodes(programs: Sequence, time_control=None) -> tuple[list[tuple[str, list[str]]], dict]:
    """Ship ``programs`` to the cluster's nodes if it has any but the driver's own
    (``tuning.driver.shipping``), then run ``check_on_this_node`` on every alive Ray node with
    CPUs: ([(node's name, its problems)], the shipments by program). ``TuningError`` for a
    program too big to ship. Ray must be connected."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from tuning.driver.shipping import shipments_for

    shipments = shipments_for(programs, fresh=True)
    nodes = [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1]
    refs = [_check_task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False))
            .remote(list(programs), time_control, shipments) for n in nodes]
    reports = []
    for node, ref in zip(nodes, refs):
        try:
            reports.append(ray.get(ref))
        except _NODE_GONE as exc:
            # A node that left the cluster during the check plays no games; one that comes back
            # (or joins later) is covered by the worker's own check before its first game there.
            if not _left(node["NodeID"]):
                raise TuningError(f"node {node.get('NodeManagerAddress', node['NodeID'][:8])}: the program "
                                  f"check could not run: {type(exc).__name__}") from None
    return reports, shipments


def check_programs(programs: Sequence, time_control=None) -> None:
    """``check_nodes``, raising ``TuningError`` with the first problem (and how many more): a
    program too big to ship, or a node that cannot run one. Nothing to do without programs."""
    if not programs:
        return
    problems = [p for _, found in check_nodes(programs, time_control)[0] for p in found]
    from ocean.sandbox import warn_once

    warn_once()  # one line, on the driver's machine, if its programs would run unsandboxed
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise TuningError(problems[0] + more)

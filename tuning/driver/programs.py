"""Before a study plays external programs: check them on every node that will run games.

A node checks each program the study plays and each frozen bot: a frozen panel program or
in-process bot must still play the lines it was frozen with (its fingerprint; an in-process
bot's coefficients also by their digest), and the tuned program must start and answer its first
line with its reference parameters. Nodes that join later are covered by the worker, which
checks each frozen bot before its process's first game with it (``tuning.driver.worker``). A missing binary, a missing interpreter or library, or a
changed opponent is one line naming the node and the command, before any game is scored.
"""
from __future__ import annotations

from typing import Sequence

import ray

from tuning.errors import TuningError

__all__ = ["check_programs", "check_on_this_node"]

_CHECK_SEED = 1  # the map the start check shows a program


def check_on_this_node(programs: Sequence, time_control=None) -> list[str]:
    """Problems with ``programs`` (``BotSpec``s: programs and frozen in-process bots) on this machine, one line each (empty: all good);
    ``time_control``: the study's (an ``ocean.timecontrol.TimeControl``; None: CodinGame's)."""
    import socket

    from ocean.fingerprint import FingerprintError, check_frozen
    from ocean.players import open_player
    from ocean.referee import first_answer
    from ocean.sandbox import unavailable_reason
    from ocean.timecontrol import DEFAULT_TIME

    host = socket.gethostname()
    if ray.is_initialized():  # in a Ray task: name the node, several may share a host
        context = ray.get_runtime_context()
        host = f"{host} (Ray node {context.get_node_id()[:8]})"
    problems = []
    policy = (time_control or DEFAULT_TIME).sandbox
    if policy.required and unavailable_reason() is not None:
        return [f"node {host}: the sandbox is required ([sandbox] required = true, tune test --require-sandbox) "
                f"but cannot start: "
                f"{unavailable_reason()}"]
    for spec in programs:
        if not spec.is_program or spec.program.fingerprint is not None:  # a frozen bot
            try:
                check_frozen(spec, fresh=True)  # Ray workers live on: never a cached answer here
            except FingerprintError as exc:
                problems.append(f"node {host}: {exc}")
            continue
        try:
            player = open_player(spec, _CHECK_SEED, time=time_control or DEFAULT_TIME)
        except OSError as exc:
            problems.append(f"node {host}: the study's program cannot start: {exc.strerror or exc}")
            continue
        except ValueError as exc:
            problems.append(f"node {host}: the study's program cannot start: {exc}")
            continue
        try:
            _, why = first_answer(player, _CHECK_SEED)
        finally:
            player.close()
        if why is not None:
            problems.append(f"node {host}: the study's program ({spec.program.display(spec.params)}) did not "
                            f"answer its first line: {why}")
    return problems


_check_task = ray.remote(num_cpus=1, max_retries=0)(check_on_this_node)


def check_programs(programs: Sequence, time_control=None) -> None:
    """Run ``check_on_this_node`` on every alive Ray node with CPUs; raises ``TuningError``
    with the first problem (and how many more). Ray must be connected. Nothing to do without
    programs."""
    if not programs:
        return
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1]
    refs = [_check_task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False))
            .remote(list(programs), time_control) for n in nodes]
    problems = [p for found in ray.get(refs) for p in found]
    from ocean.sandbox import warn_once

    warn_once()  # one line, on the driver's machine, if its programs would run unsandboxed
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise TuningError(problems[0] + more)

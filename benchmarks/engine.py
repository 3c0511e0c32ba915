"""``ocean bench``: the engine's own speed (and with ``--bots``, ``--program``: the bots' and programs'),
measured, never asserted in tests."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

__all__ = ["run_bench"]

_PROBE = "from benchmarks.engine import _startup_probe; _startup_probe()"
_WARMUP = "from ocean.warmup import warm_up; warm_up()"


def _startup_probe() -> None:
    """Compile (or load from cache) what a game needs and play one game."""
    from ocean._match import play_many
    from ocean.board import build_board_kernel
    from ocean.maps import generate_island_kernel

    boards = build_board_kernel(generate_island_kernel(np.int64(1)))[None, :]
    results = np.zeros((1, 5), dtype=np.int64)
    play_many(boards, np.zeros(2, dtype=np.int64), _coefs(), np.zeros(1, dtype=np.int64), results)


def _coefs() -> np.ndarray:
    from ocean.bots.coefficients import vector

    return np.stack([vector(), vector()])


def _time_probe(cache_dir: str, code: str = _PROBE) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    return time.perf_counter() - start


def _boards(seeds: np.ndarray) -> np.ndarray:
    from ocean.board import BOARD_SIZE, build_board_kernel
    from ocean.maps import generate_island_kernel

    boards = np.empty((len(seeds), BOARD_SIZE), dtype=np.int64)
    for i, seed in enumerate(seeds):
        boards[i] = build_board_kernel(generate_island_kernel(np.int64(seed)))
    return boards


def run_bench(*, games: int = 20000, repeats: int = 3, startup: bool = True, progress: bool = True) -> dict:
    """Figures of the engine on one core. Throughput uses random legal bots on ``games``
    distinct maps built beforehand (a study replays a fixed seed bank, so maps are built
    once); map building is timed on its own. The game loop runs ``repeats`` times and the
    fastest run is reported (each run is listed too). Cold compile: what ``ocean warmup``
    compiles, in a fresh process on an empty cache; warm start: a fresh process on that
    cache playing one game."""
    from rich.progress import Progress

    from ocean._match import play_many

    figures = {}
    if startup:
        with tempfile.TemporaryDirectory() as cache:
            # Everything `ocean warmup` compiles, as it compiles it (two processes).
            figures["cold_compile_s"] = round(_time_probe(cache, _WARMUP), 2)
            figures["warm_start_s"] = round(_time_probe(cache), 2)
    _startup_probe()  # compile in this process before timing
    seeds = np.arange(games, dtype=np.int64)
    start = time.perf_counter()
    boards = _boards(seeds)
    figures["maps_per_s"] = round(games / (time.perf_counter() - start), 1)

    kinds = np.zeros(2, dtype=np.int64)
    coefs = _coefs()
    results = np.zeros((games, 5), dtype=np.int64)
    chunk = max(1, games // 20)
    runs = []  # seconds per repetition; the machine's noise only ever slows a run down
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task("random vs random", total=games * repeats)
        for _ in range(repeats):
            turns = 0
            elapsed = 0.0
            for lo in range(0, games, chunk):
                hi = min(games, lo + chunk)
                start = time.perf_counter()
                turns += play_many(boards[lo:hi], kinds, coefs, seeds[lo:hi], results[lo:hi])
                elapsed += time.perf_counter() - start
                bar.update(task, advance=hi - lo)
            runs.append(elapsed)
    elapsed = min(runs)
    figures["games"] = games
    figures["player_turns"] = int(turns)
    figures["player_turns_per_s"] = round(turns / elapsed)
    figures["games_per_s"] = round(games / elapsed, 1)
    figures["mean_turns_per_game"] = round(turns / games, 1)
    figures["repeats"] = repeats
    figures["player_turns_per_s_each_run"] = [round(turns / r) for r in runs]
    return figures


def _play_decisions(spec, opponent, seeds: np.ndarray, decide) -> None:
    """Whole games of ``spec`` (player 0) against ``opponent`` on ``seeds``, in Python turn by
    turn: each of ``spec``'s decisions is ``decide(turn, state, board, mem, rng, out, coefs)``,
    which calls ``turn`` with the rest (and may look around it) and returns its rows."""
    from ocean import _rules
    from ocean import _state as S
    from ocean.bots._baselines import seed_rng
    from ocean.bots._slots import MEM_SIZE, load_slots
    from ocean.constants import ACTION_FIELDS, MAX_LINE_ACTIONS
    from ocean.match import boards_for_seeds

    bots = (spec, opponent)
    starts, resets, turns = zip(*(load_slots(b.kind) for b in bots))
    coefs = [b.vector() for b in bots]
    mems = [np.empty(MEM_SIZE, dtype=np.int64) for _ in bots]
    rngs = [np.empty(1, dtype=np.uint64) for _ in bots]
    out = np.zeros((MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    no_trace = np.zeros((0, S.STATE_SIZE + 4), dtype=np.int64)
    state = _rules.new_state()
    for board, seed in zip(boards_for_seeds(seeds), seeds):
        cells = []
        for p in range(2):
            seed_rng(rngs[p], np.int64(seed * 2 + p))
            resets[p](board, mems[p])
            cells.append(starts[p](board, rngs[p]))
        _rules.start_game(state, board, cells[0], 0, cells[1], 0)
        while _rules.begin_turn(state):
            p = int(state[S.ACTIVE])
            if p == 0:
                n = decide(turns[0], state, board, mems[0], rngs[0], out, coefs[0])
            else:
                n = turns[1](state, board, 1, mems[1], rngs[1], out, coefs[1])
            _rules.play_line(state, board, out, n, no_trace)


def _decision_times(spec, opponent, seeds: np.ndarray, cpu: list | None = None) -> list[float]:
    """Microseconds per decision of ``spec`` over whole games against ``opponent`` (wall
    clock); ``cpu``, if given, receives the same decisions' CPU time of this process (what
    to read on a shared machine, where the wall clock counts other processes' turns)."""
    times = []

    def timed(turn, state, board, mem, rng, out, coefs):
        start = time.perf_counter_ns()
        start_cpu = time.process_time_ns()
        n = turn(state, board, 0, mem, rng, out, coefs)
        times.append((time.perf_counter_ns() - start) / 1000.0)
        if cpu is not None:
            cpu.append((time.process_time_ns() - start_cpu) / 1000.0)
        return n

    _play_decisions(spec, opponent, seeds, timed)
    return times


def _program_startup() -> float:
    """Seconds from starting ``ocean bot`` to its start answer (best of 3, cache warm)."""
    from ocean.maps import generate_map, map_rows

    lines = "15 15 0\n" + "\n".join(map_rows(generate_map(1))) + "\n"
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "ocean", "bot"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
        proc.stdin.write(lines)
        proc.stdin.flush()
        proc.stdout.readline()
        best = min(best, time.perf_counter() - start)
        proc.kill()
        proc.wait()
    return round(best, 3)


def run_bots_bench(*, games: int = 200, progress: bool = True) -> dict:
    """Bot figures on one core: decision time per bot (mean, p99, max, in µs, over whole games
    against the balanced panel bot; by the wall clock and by CPU time) for the tunable bots (``tunable``: the frozen v1 bot;
    ``tunable-v2``, ``tunable-v3``) and the panel; games per second of each tunable bot (defaults) against
    each panel bot, by the wall clock and by the process's CPU time (the CPU figure is the
    one to read on a shared machine); and the start-up time of ``ocean bot``."""
    from rich.progress import Progress

    from ocean.bots import panel, resolve_bot
    from ocean.match import boards_for_seeds, play_pairs

    from ocean.bots.registry import STUDY_POLICIES

    tunables = [resolve_bot(name) for name in STUDY_POLICIES]
    members = panel("default")
    figures: dict = {"games_per_bot": games}
    for tunable in tunables:  # compile or load first
        _decision_times(tunable, members[0], np.arange(1, 2))
        play_pairs(tunable, members[0], [1])
    seeds = np.arange(1, games // 2 + 1, dtype=np.int64)
    boards = boards_for_seeds(seeds)
    decisions = {}
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task("bots", total=(len(members) + 1) * len(tunables) + len(members))
        for bot in tunables + members:
            cpu: list[float] = []
            times = _decision_times(bot, resolve_bot("balanced"), seeds[: max(1, len(seeds) // 4)], cpu)
            decisions[bot.name] = {"mean_us": round(float(np.mean(times)), 1),
                                   "p99_us": round(float(np.percentile(times, 99)), 1),
                                   "max_us": round(float(np.max(times)), 1), "decisions": len(times),
                                   "cpu_mean_us": round(float(np.mean(cpu)), 1),
                                   "cpu_p99_us": round(float(np.percentile(cpu, 99)), 1)}
            bar.advance(task)
        figures["decision_time"] = decisions
        for tunable in tunables:
            key = tunable.name.replace("-", "_")
            rates = {}
            total_games = 0
            total_time = 0.0
            total_cpu = 0.0
            for opponent in members:
                start, cpu = time.perf_counter(), time.process_time()
                result = play_pairs(tunable, opponent, seeds, boards)
                elapsed = time.perf_counter() - start
                total_cpu += time.process_time() - cpu
                rates[opponent.name] = round(len(result) / elapsed, 1)
                total_games += len(result)
                total_time += elapsed
                bar.advance(task)
            figures[f"{key}_vs_panel_games_per_s"] = rates
            figures[f"{key}_vs_panel_games_per_s_overall"] = round(total_games / total_time, 1)
            figures[f"{key}_vs_panel_games_per_cpu_s"] = round(total_games / max(total_cpu, 1e-9), 1)
    figures["bot_program_startup_s"] = _program_startup()
    return figures


class _Scripted:
    """A player that answers from a list at once: the referee's own cost, without a program."""

    timed = True

    def __init__(self, lines: list[str]) -> None:
        self._lines = iter(lines)

    def send(self, lines: list[str]) -> None:
        pass

    def read_line(self, timeout_ms: int) -> str:
        return next(self._lines)

    def close(self) -> None:
        pass


def _referee_turn_us(seeds, repeats: int = 3) -> tuple[float, int]:
    """(µs per turn, turns) of the referee replaying recorded answers: rules, input lines and
    parsing, no pipes."""
    from ocean.bots import resolve_bot
    from ocean.players import InProcessPlayer
    from ocean.referee import referee_players

    scripts = []
    for seed in seeds:
        bots = [InProcessPlayer(resolve_bot(n), int(seed)) for n in ("tunable", "chaser")]
        played = referee_players(int(seed), bots, keep_outputs=True)
        scripts.append((int(seed), played.outputs, played.game.turns))
    best = float("inf")
    turns = sum(t for _, _, t in scripts)
    for _ in range(repeats):
        start = time.perf_counter()
        for seed, outputs, _ in scripts:
            referee_players(seed, [_Scripted(outputs[0]), _Scripted(outputs[1])])
        best = min(best, time.perf_counter() - start)
    return 1e6 * best / turns, turns


def _pipe_roundtrip_us(lines: int = 2000) -> float:
    """µs per turn to send a turn's three input lines to a program and read one line back,
    against ``cat`` (which answers as soon as it reads): the pipes' share of a turn."""
    from ocean._process import BotProcess

    with BotProcess(["cat"]) as proc:
        message = ["7 3 6 5 0 4 6 3", "NA", "MOVE N TORPEDO|TORPEDO 3 4"]
        for _ in range(50):  # warm up
            proc.send(message)
            for _ in range(3):
                proc.read_line(1000)
        start = time.perf_counter()
        for _ in range(lines):
            proc.send(message)
            proc.read_line(1000)
            proc.read_line(1000)
            proc.read_line(1000)
        return 1e6 * (time.perf_counter() - start) / lines


def _pipe_floor_us(lines: int = 2000) -> float:
    """The same exchange with bare ``os.write``/``os.read`` (no deadlines, no line buffer): what
    the operating system costs on this machine right now, the baseline of ``_pipe_roundtrip_us``."""
    import subprocess as sp

    proc = sp.Popen(["cat"], stdin=sp.PIPE, stdout=sp.PIPE, bufsize=0)
    try:
        message = b"7 3 6 5 0 4 6 3\nNA\nMOVE N TORPEDO|TORPEDO 3 4\n"
        fd_in, fd_out = proc.stdin.fileno(), proc.stdout.fileno()

        def exchange() -> None:
            os.write(fd_in, message)
            got = 0
            while got < len(message):
                got += len(os.read(fd_out, 65536))

        for _ in range(50):
            exchange()
        start = time.perf_counter()
        for _ in range(lines):
            exchange()
        return 1e6 * (time.perf_counter() - start) / lines
    finally:
        proc.kill()
        proc.wait()


def run_programs_bench(command: str, *, games: int = 40, progress: bool = True) -> dict:
    """Figures of games with an external program on one core: the referee's own cost per turn
    around a program that answers at once (recorded answers replayed, plus the pipe round trip
    of a turn measured against ``cat``), then games per second of in-process tunable vs the
    program (one process per game) and of the program against itself (two processes), and the
    program's share of those games' wall time."""
    from ocean.bots import BotSpec, ProgramSpec, resolve_bot
    from ocean.match import play_pairs
    from ocean.timecontrol import TimeControl

    program = BotSpec("program", "program", {}, ProgramSpec(command))
    seeds = np.arange(1, max(1, games // 2) + 1, dtype=np.int64)
    figures: dict = {"program": command, "games": 2 * len(seeds)}
    play_pairs(resolve_bot("tunable"), resolve_bot("chaser"), [1])  # compile / load first
    referee_us, turns = _referee_turn_us(seeds[: min(10, len(seeds))])
    # interleaved, best of 3 each: the machine's load moves both the same way
    floors, pipes = [], []
    for _ in range(3):
        floors.append(_pipe_floor_us())
        pipes.append(_pipe_roundtrip_us())
    pipe_us, floor_us = min(pipes), min(floors)
    figures["referee_turn_us"] = round(referee_us, 1)
    figures["pipe_roundtrip_us"] = round(pipe_us, 1)
    figures["pipe_floor_us"] = round(floor_us, 1)  # bare os.write/os.read against cat, same run
    figures["pipe_roundtrip_vs_floor"] = round(pipe_us / floor_us, 2)
    # The sum of the two printed parts, so the three figures a reader sees add up.
    figures["referee_cost_per_turn_us"] = round(figures["referee_turn_us"] + figures["pipe_roundtrip_us"], 1)
    figures["referee_turns_timed"] = turns
    for label, (a, b) in (("in_process_vs_program", (resolve_bot("tunable"), program)),
                          ("program_vs_program", (program, program))):
        play_pairs(a, b, seeds[:1], time=TimeControl(scale=10))  # the program's own first start (disk cache)
        start = time.perf_counter()
        result = play_pairs(a, b, seeds, time=TimeControl(scale=10))
        elapsed = time.perf_counter() - start
        disqualified = sum(1 for e in result.errors if e != (None, None))
        figures[label] = {"games_per_s": round(len(result) / elapsed, 2),
                          "ms_per_turn": round(1000 * elapsed / max(1, result.player_turns), 3),
                          "player_turns": result.player_turns, "disqualified_games": disqualified}
    return figures

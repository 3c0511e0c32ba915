"""Run an external bot program the way a CodinGame referee does (Linux only).

A :class:`BotProcess` owns one child program: we write its input lines to its
stdin and read its answers one line at a time from its stdout, each read with
its own deadline. Lines the program printed ahead of time stay in our buffer
and are handed out by later reads, exactly as the real referee (and
cg-brutaltester) consume a bot's output.

Each program runs in the sandbox of ``ocean.sandbox`` (bubblewrap: its own PID namespace, no
network, the machine read-only, a private /tmp and home, an environment built from nothing, a
memory limit), in its own process group: :meth:`BotProcess.close` kills the group, and with it
the namespace, so every process the program started is gone, a helper that moved itself to a
new session (``setsid``) too. Where the sandbox cannot start the program runs without it (the lab
says so once), and then such a helper escapes the ``killpg``.

The clock of an answer measures the program's own answer: it starts when the
program has its whole input (when the pipe took the last byte of what
:meth:`BotProcess.send` was given), not when we started waiting, and each
answer's time is kept (:attr:`BotProcess.answer_ms`) so a caller can see how
close to its limit a program runs.
"""

from __future__ import annotations

import errno
import math
import os
import select
import shlex
import signal
import subprocess
import time

from ocean._launch import check_program, open_pidfd, own_ocean
from ocean.progenv import hide_own_secrets, program_environment
from ocean.sandbox import DEFAULT_POLICY, SandboxPolicy, is_out_of_memory, wrap

__all__ = ["BotClosed", "BotLineTooLong", "BotProcess", "BotTimeout", "MAX_LINE_BYTES", "STDERR_TAIL_BYTES"]

_READ_CHUNK = 65536
# The longest answer line taken (bytes, newline excluded): a program writing more without a newline
# would fill our memory. CodinGame's answers are a few hundred bytes.
MAX_LINE_BYTES = 65536
# What is kept of a program's stderr when it is kept in memory: its tail, what a crash report needs.
STDERR_TAIL_BYTES = 65536
# After SIGKILL a process dies almost at once; this only guards against a child
# stuck in uninterruptible sleep, so close() can never hang a whole batch.
_REAP_TIMEOUT_S = 5.0
# How long the sandbox may take to start a program before its clock starts all the same (it takes
# milliseconds; this only bounds a machine that has stalled).
_START_GUARD_S = 10.0
# How long a program may leave its input untaken before it is timed out: far beyond any answer
# limit (the input of a turn is a few hundred bytes; a full pipe means the program stopped reading).
_INPUT_GUARD_S = 5.0


class BotTimeout(Exception):
    """No complete line within the deadline; ``waited_ms``: counted as the deadline is."""

    def __init__(self, message: str, waited_ms: float | None = None):
        super().__init__(message)
        self.waited_ms = waited_ms


class BotClosed(Exception):
    """The bot exited or closed its stdout before a complete line arrived."""


class BotLineTooLong(BotClosed):
    """The bot wrote an answer line longer than ``MAX_LINE_BYTES`` (with or without a newline)."""


class BotProcess:
    """One running bot program, talking line by line over pipes.

    ``command`` is split with :func:`shlex.split` (or given as an argument
    list) and executed without a shell, with ``env`` as its environment when given (else the
    lab's without its secrets, ``ocean.progenv``), in a new session (hence its own process group), with ``cwd`` as
    its working directory; a program path containing a slash is resolved
    relative to that directory. stderr is appended to ``stderr_path`` when
    given, otherwise discarded.

    Raises :class:`ValueError` for an empty or unparseable command,
    :class:`FileNotFoundError` when the program (or ``cwd``, or the
    directory of ``stderr_path``) does not exist, and :class:`PermissionError`
    when the program is not executable.

    ``cpu``: run the program on that CPU only (``ocean.cpus``), set right after
    it starts, before it reads its first input.

    ``sandbox``: how it is run (``ocean.sandbox.SandboxPolicy``: its memory limit, whether the
    sandbox is required, whether its folder is writable; default CodinGame's 768 MB, sandboxed
    where the sandbox starts). Raises :class:`ocean.sandbox.SandboxUnavailable` (a
    :class:`PermissionError`) when the policy requires the sandbox and it cannot start.

    ``stderr_tail``: instead of a file, keep only the last ``stderr_tail`` bytes of stderr in
    memory (read while answers are awaited; :meth:`stderr_text`), so a program flooding its
    stderr fills neither the disk nor the memory. An answer line over ``max_line`` bytes raises
    :class:`BotLineTooLong`.
    """

    def __init__(self, command: str | list[str], *, cwd: str | None = None, stderr_path: str | None = None,
                 env: dict[str, str] | None = None, cpu: int | None = None, stderr_tail: int | None = None,
                 max_line: int = MAX_LINE_BYTES, sandbox: SandboxPolicy | None = None):
        # Set first so close()/__del__ work even if the constructor fails below.
        self._proc: subprocess.Popen[bytes] | None = None
        self._closed = True

        if isinstance(command, list):
            argv = [str(a) for a in command]
            command = shlex.join(argv)
        elif not isinstance(command, str):
            # shlex.split(None) would read our own stdin: refuse early.
            raise TypeError(f"bot command must be a str, not {type(command).__name__}")
        else:
            try:
                argv = shlex.split(command)
            except ValueError as exc:
                raise ValueError(f"cannot parse bot command {command!r}: {exc}") from None
        if not argv:
            raise ValueError(f"empty bot command: {command!r}")
        if cwd is not None and not os.path.isdir(cwd):
            # Popen would report this as the program missing, naming the directory.
            raise FileNotFoundError(
                errno.ENOENT, f"bot working directory does not exist: {cwd!r}", cwd
            )

        self.command = command
        self.argv = argv = own_ocean(argv, env)
        self.sandbox = sandbox = DEFAULT_POLICY if sandbox is None else sandbox
        hide_own_secrets()  # a program that runs unsandboxed can read its parent's start-up environment
        env = program_environment() if env is None else env
        # Inside the sandbox a missing program would be bwrap's failure at its first answer: the
        # lab looks for it first, so it stays one line at the start.
        check_program(argv, command, cwd, env)
        # The sandbox takes a moment to set up (tens of ms on a busy machine): the launcher writes
        # a byte to this pipe when the program itself starts, and its first answer's clock starts
        # no earlier (the lab's cost is not the program's).
        ready_read, ready_write = os.pipe()
        try:
            launched, env = wrap(argv, cwd, env, sandbox, ready_fd=ready_write)
        except BaseException:
            os.close(ready_read)
            os.close(ready_write)
            raise
        # bwrap reports a program killed by a signal as exit code 128 + the signal.
        self._in_bwrap = launched is not argv and os.path.basename(launched[0]) == "bwrap"

        if stderr_path is not None and stderr_tail is not None:
            raise ValueError("give stderr_path or stderr_tail, not both")
        if stderr_tail is not None:
            stderr_target = subprocess.PIPE
        elif stderr_path is not None:
            try:
                # Append, so several games or bots may share one log without
                # erasing each other.
                stderr_target = open(stderr_path, "ab")
            except FileNotFoundError:
                raise FileNotFoundError(
                    errno.ENOENT, f"cannot create bot stderr log {stderr_path!r}", stderr_path
                ) from None
        else:
            stderr_target = subprocess.DEVNULL
        try:
            proc = subprocess.Popen(
                launched,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr_target,
                cwd=cwd,
                env=env,
                bufsize=0,
                start_new_session=True,
                pass_fds=(ready_write,),
            )
        except FileNotFoundError:
            raise FileNotFoundError(
                errno.ENOENT,
                f"bot program not found: {argv[0]!r} (command {command!r})",
                argv[0],
            ) from None
        except PermissionError:
            raise PermissionError(
                errno.EACCES,
                f"bot program is not executable: {argv[0]!r} (command {command!r})",
                argv[0],
            ) from None
        except BaseException:
            os.close(ready_read)
            raise
        finally:
            os.close(ready_write)  # the child holds its own copy
            if stderr_path is not None:
                stderr_target.close()  # the child holds its own copy

        self._proc = proc
        self._closed = False
        self._ready_fd: int | None = ready_read
        self._pid = proc.pid
        if cpu is not None:
            from ocean.cpus import pin_process

            pin_process(proc.pid, cpu)
        assert proc.stdin is not None and proc.stdout is not None
        self._in_fd = proc.stdin.fileno()
        self._out_fd = proc.stdout.fileno()
        self.max_line = max_line
        self._err_fd = None if proc.stderr is None else proc.stderr.fileno()
        self._err = bytearray()  # the tail of stderr (stderr_tail bytes at most)
        self._err_limit = stderr_tail or 0
        self._err_registered = False
        if self._err_fd is not None:
            os.set_blocking(self._err_fd, False)
        # Writes never block: a bot that stops reading would otherwise hang the
        # referee forever once the pipe (64 KiB) is full. What the pipe cannot
        # take waits in _pending and is pushed out while we wait for answers.
        os.set_blocking(self._in_fd, False)
        self._pending = bytearray()
        self._stdin_broken = False
        self._buffer = bytearray()
        self._eof = False
        # The pidfd becomes readable when the program itself exits. Without it
        # a descendant still holding our stdout pipe (e.g. a helper left
        # running) would turn an exit into a timeout instead of BotClosed.
        self._pidfd = open_pidfd(self._pid)
        self._poller = None
        self._watching_in = False
        self._exited = False
        self._returncode: int | None = None
        # When the input sent last was wholly taken by the pipe (None: nothing sent since the
        # last answer, or some of it still waits in _pending): the next answer's clock start.
        self._input_taken: float | None = None
        self.answer_ms: list[float] = []  # the time of each answer read, in ms

    # ------------------------------------------------------------------ input

    def send(self, lines: list[str]) -> None:
        """Write each line followed by ``"\\n"`` to the bot's stdin.

        Data is handed to the OS at once; if the bot has stopped reading and
        its pipe is full, the rest is kept and delivered during later
        :meth:`read_line` calls. A broken pipe (bot gone) is swallowed: the
        next :meth:`read_line` reports it as :class:`BotClosed`. Sending to a
        closed BotProcess does nothing.
        """
        if self._closed or self._stdin_broken:
            return
        self._pending += "".join(line + "\n" for line in lines).encode("utf-8")
        self._input_taken = None
        self._flush_pending()

    def _flush_pending(self) -> None:
        """Write as much pending input as the pipe takes right now; note when it took the last byte."""
        while self._pending and not self._stdin_broken:
            # The clock is read before the write: the program may run (and a spinning one hold
            # the core) from the moment the pipe takes the bytes, before this process is
            # scheduled again to read the clock after it.
            before = time.monotonic()
            try:
                written = os.write(self._in_fd, self._pending)
            except BlockingIOError:
                return
            except (BrokenPipeError, ConnectionResetError):
                self._stdin_broken = True
                self._pending.clear()
                return
            del self._pending[:written]
            if not self._pending:
                self._input_taken = before

    # ----------------------------------------------------------------- output

    def read_line(self, timeout_ms: int) -> str:
        """Return the bot's next output line, without ``"\\n"`` or a final ``"\\r"``.

        The first read after :meth:`send` waits at most ``timeout_ms``
        milliseconds from the moment the program had its whole input (the pipe
        took it; a program that leaves its input untaken for seconds times out
        too); a later read without new input waits from the call. A line
        already buffered is returned at once, even with a zero timeout. Raises
        :class:`BotTimeout` if no complete line arrived in time (a partial line
        is kept for the next call) and :class:`BotClosed` if the program
        exited or closed its stdout first. Invalid UTF-8 is replaced by U+FFFD.
        The answer's time (from that start to the line) is appended to
        :attr:`answer_ms`.
        """
        if self._ready_fd is not None and not self._closed:
            self._await_start()
        start = self._input_taken if self._input_taken is not None else time.monotonic()
        line = self._take_line()
        if line is not None:
            self._answered(start)
            return line
        if self._closed:
            raise BotClosed("bot process was closed")
        limit = max(timeout_ms, 0) / 1000.0
        waiting_for_input = bool(self._pending) and not self._stdin_broken
        # While the pipe has not taken the whole input the clock has not started; a program that
        # takes none for _INPUT_GUARD_S (or its limit, if longer) is timed out all the same.
        deadline = start + (max(limit, _INPUT_GUARD_S) if waiting_for_input else limit)
        while True:
            if waiting_for_input and (not self._pending or self._stdin_broken):
                # The pipe took the rest of the input just now: the clock starts here.
                waiting_for_input = False
                start = self._input_taken if self._input_taken is not None else time.monotonic()
                deadline = start + limit
            if self._eof:
                raise BotClosed(self._closed_message("closed its stdout"))
            if self._exited:
                # The program is gone: whatever it wrote before exiting is
                # already in the pipe, so take only what is readable now.
                self._drain(deadline)
                line = self._take_line()
                if line is not None:
                    self._answered(start)
                    return line
                raise BotClosed(self._closed_message("exited"))

            remaining_ms = (deadline - time.monotonic()) * 1000.0
            if remaining_ms <= 0:
                ready = self._poll(0)
            else:
                # Round up: poll() takes whole milliseconds and rounding down
                # would spin on the last fraction.
                ready = self._poll(math.ceil(remaining_ms))
            if not ready:
                if time.monotonic() >= deadline:
                    self._timed_out(timeout_ms, start)
                continue
            if self._err_fd is not None and self._err_fd in ready:
                self._read_stderr()
            if self._out_fd in ready:
                self._read_chunk()
                line = self._take_line()
                if line is not None:
                    self._answered(start)
                    return line
            if self._in_fd in ready:
                self._flush_pending()
            if self._pidfd is not None and self._pidfd in ready:
                self._exited = True
            if time.monotonic() >= deadline and not self._eof and not self._exited:
                self._timed_out(timeout_ms, start)

    def _timed_out(self, timeout_ms: int, start: float) -> None:
        """BotTimeout, or BotClosed if the program has exited (not yet seen by the poll): a crash is one."""
        if self._exited or self.returncode is not None:
            raise BotClosed(self._closed_message("exited"))
        raise BotTimeout(f"no complete line within {timeout_ms} ms", (time.monotonic() - start) * 1000.0)

    def exited_within(self, seconds: float) -> bool:
        """Whether the program exits within ``seconds`` (at once if it has). After a missed
        deadline the referee asks: a program dying at its start on a busy machine crashes after
        its deadline, and its crash (exit code, stderr) says more than a timeout."""
        end = time.monotonic() + seconds
        while not self._exited and self.returncode is None:
            remaining = end - time.monotonic()
            if remaining <= 0 or self._closed:
                return False
            if self._pidfd is None:
                time.sleep(min(remaining, 0.01))
                continue
            watch = select.poll()
            watch.register(self._pidfd, select.POLLIN)
            if self._err_fd is not None:
                watch.register(self._err_fd, select.POLLIN)
            ready = {fd for fd, _ in watch.poll(math.ceil(remaining * 1000))}
            if self._err_fd is not None and self._err_fd in ready:
                self._read_stderr()
            if self._pidfd in ready:
                self._exited = True
        return True

    def _await_start(self) -> None:
        """Wait (at most _START_GUARD_S) until the sandbox is up and the program itself starts;
        input the pipe took before then counts as taken now. Nothing more to wait for after the
        first call."""
        fd, self._ready_fd = self._ready_fd, None
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        if self._pidfd is not None:
            poller.register(self._pidfd, select.POLLIN)
        deadline = time.monotonic() + _START_GUARD_S
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                ready = {f for f, _ in poller.poll(math.ceil(remaining * 1000))}
                if fd in ready:
                    started = time.monotonic()
                    if self._input_taken is not None and self._input_taken < started:
                        self._input_taken = started
                    return
                if ready:  # the launcher or bwrap exited first: the read reports it
                    return
        finally:
            os.close(fd)

    def _answered(self, start: float) -> None:
        """Keep the time of the answer just read; the next read's clock starts at its call."""
        self.answer_ms.append(max(0.0, (time.monotonic() - start) * 1000.0))
        self._input_taken = None

    def _poll(self, timeout_ms: int) -> set[int]:
        """File descriptors (stdout, stdin, pidfd) that are ready."""
        # One poller for the process's life (registering three descriptors on every read costs
        # more than a turn's parsing); stdin is watched only while input waits to be written.
        poller = self._poller
        if poller is None:
            poller = self._poller = select.poll()
            poller.register(self._out_fd, select.POLLIN)
            if self._pidfd is not None:
                poller.register(self._pidfd, select.POLLIN)
        if self._err_fd is not None and not self._err_registered:
            poller.register(self._err_fd, select.POLLIN)
            self._err_registered = True
        want_in = bool(self._pending) and not self._stdin_broken
        if want_in != self._watching_in:
            if want_in:
                poller.register(self._in_fd, select.POLLOUT)
            else:
                poller.unregister(self._in_fd)
            self._watching_in = want_in
        # Any event counts: POLLERR/POLLHUP on stdin means the bot closed it,
        # which the next write turns into _stdin_broken; POLLHUP on stdout
        # means EOF, which the next read notices.
        return {fd for fd, _events in poller.poll(timeout_ms)}

    def _read_chunk(self) -> None:
        """Read what is available from stdout into the buffer; note EOF."""
        try:
            data = os.read(self._out_fd, _READ_CHUNK)
        except BlockingIOError:
            return
        if data:
            self._buffer += data
        else:
            self._eof = True

    def _read_stderr(self, chunks: int = 1) -> None:
        """Read up to ``chunks`` chunks of what stderr holds now, keeping only its tail; at its
        end stop watching it."""
        for _ in range(chunks):
            if self._err_fd is None:
                return
            try:
                data = os.read(self._err_fd, _READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                if self._err_registered and self._poller is not None:
                    self._poller.unregister(self._err_fd)
                self._err_registered = False
                self._err_fd = None  # the pipe itself is closed with the process (close())
                return
            self._err += data
            if len(self._err) > self._err_limit:
                del self._err[:len(self._err) - self._err_limit]

    def stderr_text(self) -> str:
        """The tail of what the program wrote to stderr (at most ``stderr_tail`` bytes; what is
        waiting in the pipe is read first, a bounded amount), "" if stderr is not kept."""
        self._read_stderr(chunks=16)
        return bytes(self._err).decode("utf-8", errors="replace")

    def _drain(self, deadline: float) -> None:
        """Read already-available output until a line is complete or none is left.

        Bounded by the deadline because a surviving descendant could keep
        writing a line without end.
        """
        while b"\n" not in self._buffer and not self._eof:
            poller = select.poll()
            poller.register(self._out_fd, select.POLLIN)
            if not poller.poll(0):
                return
            self._read_chunk()
            if len(self._buffer) > self.max_line or time.monotonic() >= deadline:
                return

    def _take_line(self) -> str | None:
        """Pop one complete line from the buffer, or None."""
        end = self._buffer.find(b"\n")
        if end > self.max_line or (end < 0 and len(self._buffer) > self.max_line):
            self._buffer.clear()  # never kept: it may be a flood
            raise BotLineTooLong(f"bot wrote an answer line over {self.max_line:,} bytes")
        if end < 0:
            return None
        raw = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        return raw.decode("utf-8", errors="replace")

    def out_of_memory(self) -> str:
        """Why the program crashed if its memory limit is the cause (its last words on stderr say an
        allocation failed), else "": ``over its memory limit of 768 MB``."""
        if self._err_limit and is_out_of_memory(self.stderr_text()[-4096:]):
            return f"over its memory limit of {self.sandbox.memory_mb} MB"
        return ""

    def _closed_message(self, what: str) -> str:
        code = self.returncode
        status = f" (exit code {code})" if code is not None else ""
        return f"bot {what} before a complete line{status}"

    # -------------------------------------------------------------- lifecycle

    @property
    def returncode(self) -> int | None:
        """Exit code of the program, ``-signal`` if killed, None while running.

        Right after a :class:`BotClosed` caused by EOF it may still be None for
        a moment: a program closes its stdout slightly before it has exited.
        """
        if self._returncode is not None or self._proc is None:
            return self._returncode
        if self._proc.returncode is not None:
            self._returncode = self._program_code(self._proc.returncode)
            return self._returncode
        try:
            # WNOWAIT peeks without reaping: the zombie keeps its pid (and so
            # our process group id) reserved until close() has killed the
            # group, so killpg can never hit an unrelated, newer group.
            info = os.waitid(os.P_PID, self._pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            # Someone else reaped it (e.g. SIGCHLD ignored); fall back.
            code = self._proc.poll()
            return None if code is None else self._program_code(code)
        if info is None:
            return None
        if info.si_code == os.CLD_EXITED:
            return self._program_code(info.si_status)
        return -info.si_status

    def _program_code(self, code: int) -> int:
        """The program's own exit code: bwrap's 128 + N is the program killed by signal N."""
        if self._in_bwrap and 128 < code < 128 + 65:
            return -(code - 128)
        return code


    def close(self) -> None:
        """Kill the bot's whole process group, reap it and close the pipes.

        Safe to call more than once.
        """
        proc = self._proc
        if self._closed or proc is None:
            return
        self._closed = True
        if proc.returncode is None:
            # The leader is not reaped yet, so its pid still names our group.
            try:
                os.killpg(self._pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            proc.wait(timeout=_REAP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pass
        self._returncode = None if proc.returncode is None else self._program_code(proc.returncode)
        self._pending.clear()
        self._buffer.clear()  # reads after close() consistently raise BotClosed
        self._err_fd = None
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        if self._pidfd is not None:
            try:
                os.close(self._pidfd)
            except OSError:
                pass
            self._pidfd = None
        if self._ready_fd is not None:
            os.close(self._ready_fd)
            self._ready_fd = None

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close()

    def __del__(self) -> None:
        # Last resort so a forgotten BotProcess does not leave programs running.
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"pid={self._pid}"
        return f"<BotProcess {getattr(self, 'command', '?')!r} {state}>"

"""Joining Ray: a local instance by default, a running cluster with ``--ray-address``."""
from __future__ import annotations

import logging
import os
import signal
import sys

import ray

from ocean.progenv import hide_own_secrets, secrets_kept_from_ray
from tuning.errors import TuningError

__all__ = ["connect", "cluster_cpus"]


def connect(address: str | None = None) -> int:
    """Start or join Ray once per process; returns the cluster's CPU count.

    ``address`` None starts a local instance with every core of this machine (unless
    ``RAY_ADDRESS`` is set, which Ray itself honours); "auto" or "host:port" joins a cluster
    started with ``ray start``. A process that already joined keeps its connection.
    """
    if not ray.is_initialized():
        kwargs = dict(include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False,
                      configure_logging=True)
        if address is None and not os.environ.get("RAY_ADDRESS"):
            kwargs["num_cpus"] = os.cpu_count()
            # Ray turns token authentication on for a local cluster and warns on stderr that it
            # did; the warning would break our one-line messages. (Setting RAY_AUTH_MODE here
            # instead is too late: Ray read its configuration when it was imported.)
            logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(logging.ERROR)
        # Ray's processes inherit this one's environment: none of the lab's secrets go with it (a
        # program run without the sandbox may read any process's /proc/PID/environ), and this
        # process's own start-up environment is blanked of them too (ocean.progenv).
        hide_own_secrets()
        try:
            with secrets_kept_from_ray():
                ray.init(address=address, **kwargs)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise TuningError(f"cannot join the Ray cluster at {address or os.environ.get('RAY_ADDRESS')}: "
                              f"{reason}") from None
        _sigterm_as_ctrl_c()
        _private_token_file()
    return cluster_cpus()


def _private_token_file() -> None:
    """Ray writes its token to ~/.ray/auth_token readable by everyone (0644): only its owner."""
    path = os.path.join(os.path.expanduser("~"), ".ray", "auth_token")
    try:
        if os.stat(path).st_uid == os.geteuid():
            os.chmod(path, 0o600)
    except OSError:
        pass


def _sigterm_as_ctrl_c() -> None:
    """SIGTERM stops a command as Ctrl-C does: what was played is kept, one line says how to
    carry on. Ray's core worker installs a handler of its own at ``ray.init`` that prints a
    stack dump and aborts; this one replaces it (from the main thread only, as Python allows)."""
    def stop(signum, frame):
        print("SIGTERM: stopping as for Ctrl-C", file=sys.stderr, flush=True)
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)
        else:  # SIGINT ignored or at its default: stop all the same
            raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGTERM, stop)
    except ValueError:
        pass  # not the main thread (a worker's process, a test's thread): Ray's stays


def cluster_cpus() -> int:
    """CPUs the cluster offers to tasks right now (at least 1)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))

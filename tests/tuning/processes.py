"""Running ``tune`` as a user does: a real subprocess in a working folder."""
import json
import subprocess
import sys


def run_tune(*args, cwd, check=True, timeout=300) -> subprocess.CompletedProcess:
    """``python -m tuning ARGS`` in ``cwd``; with ``check``, a failure shows its stderr."""
    result = subprocess.run([sys.executable, "-m", "tuning", *args], cwd=cwd, capture_output=True, text=True,
                            timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"tune {' '.join(args)} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return result


def last_json(result: subprocess.CompletedProcess) -> dict:
    """The JSON object on the last line of a command's stdout, read strictly: Python's
    ``Infinity`` and ``NaN`` are not JSON, and other readers refuse them."""
    return json.loads(result.stdout.strip().splitlines()[-1], parse_constant=_not_json)


def _not_json(constant: str):
    raise ValueError(f"{constant} is not JSON")

"""The study across five hosts (``python -m benchmarks.hosts``): Linux network namespaces on a private
bridge, PostgreSQL, a Ray head, two worker hosts and a driver, each with its own address and file
system. The example C program, built on the driver host only, is shipped to both worker hosts,
checked there and played there. A worker host dies mid-batch, the database goes off the network
for 20 s and the driver dies and is resumed from another host: the study stores exactly what its
undisturbed run does."""
import json
import subprocess
import sys

import pytest

from benchmarks.hosts import ADDRESSES, namespaces_problem


@pytest.mark.drill  # a few minutes: two runs of a small study on five hosts, a 20 s outage
def test_a_study_across_hosts_survives_a_dead_worker_host_a_cut_database_and_a_moved_driver(tmp_path):
    problem = namespaces_problem()
    if problem:
        pytest.skip(f"hosts as network namespaces: {problem}")
    done = subprocess.run([sys.executable, "-m", "benchmarks.hosts", "--json", "--workdir", str(tmp_path)],
                          capture_output=True, text=True, timeout=1500)
    assert done.stdout.strip(), done.stderr[-3000:]
    line = json.loads(done.stdout.strip().splitlines()[-1])
    assert done.returncode == 0 and line["ok"], done.stderr[-3000:]
    assert line["hosts"] == len(ADDRESSES) == 5
    assert line["identical"] is True and line["lost"] == 0 and line["duplicates"] == 0
    assert set(line["faults"]) == {"worker_host_killed", "database_cut", "driver_moved"}
    assert line["validated_best"]
    assert line["program_shipped"] is True and line["program_games"] > 0
    assert line["program_checked_on"] == ["w1", "w2"]
    assert line["program_resumed_elsewhere"] is True  # from w1, where the program folder never was
    # every namespace the drill made is gone
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert "ocean-hosts-" not in listed

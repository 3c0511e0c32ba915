"""``tune check``: every node of the cluster checked for a study's bots, nothing played or stored
(here the session's one local Ray node; on a cluster of several, tests/tuning/driver/
test_shipping_cluster.py)."""
import sys
import textwrap

from tests.programs.build import HERE
from tests.tuning.processes import last_json, run_tune

STUDY = textwrap.dedent("""
    name = "checked"
    n_trials = 2
    panel = ["random", "stealth-v1"]
    seed_bank = {{ start = 1, count = 2 }}
    timeout_scale = 20
    [bot]
    command = "{command} --skill {{skill}} --seed {{game_seed}}"
    [search]
    skill = {{ low = 0.9, high = 1.0 }}
""")


def test_a_sound_node_is_ok_and_a_missing_runtime_is_one_line(tmp_path, ray_cluster):
    (tmp_path / "s.toml").write_text(STUDY.format(command=f"{sys.executable} {HERE / 'knob.py'}"))
    out = run_tune("check", "s.toml", "--ray-address", ray_cluster, "--json", cwd=tmp_path)
    data = last_json(out)
    assert data["ok"] and data["bots"] == ["program", "stealth-v1"] and data["shipped"] == []  # one node: in place
    (node,) = data["nodes"]
    assert node["node"].endswith(")") and "(Ray node " in node["node"] and node["problems"] == []
    plain = run_tune("check", "s.toml", "--ray-address", ray_cluster, cwd=tmp_path)
    assert plain.stdout.splitlines()[-2:] == ["not shipped: every node is this machine's own (its programs run in "
                                              "place)", f"node {node['node']}: ok"]
    assert not (tmp_path / "studies").exists()  # nothing stored

    (tmp_path / "s.toml").write_text(STUDY.format(command=f"no-such-runtime-here {HERE / 'knob.py'}"))
    refused = run_tune("check", "s.toml", "--ray-address", ray_cluster, cwd=tmp_path, check=False)
    assert refused.returncode == 2 and refused.stdout.strip().endswith(": 1 problem(s)")
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith(f"error: node {node['node']}: the study's program 'no-such-runtime-here ")
    assert "needs 'no-such-runtime-here', which is not on this node's PATH" in line

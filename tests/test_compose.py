"""docker-compose.yml and the Dockerfile, checked without Docker: services, commands, variables,
and the security basics (PostgreSQL unpublished, Ray token authentication everywhere)."""
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _command(service) -> str:
    command = service.get("command", "")
    return " ".join(command) if isinstance(command, list) else command


def test_the_services_are_all_there(compose):
    assert set(compose["services"]) == {"postgres", "ray-head", "ray-worker", "driver", "dashboard"}
    assert "pgdata" in compose["volumes"]


def test_postgres_keeps_its_data_takes_credentials_from_the_environment_and_publishes_no_port(compose):
    pg = compose["services"]["postgres"]
    assert "ports" not in pg and "network_mode" not in pg
    assert any(v.startswith("pgdata:") for v in pg["volumes"])
    assert pg["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")  # required, never a default
    assert "healthcheck" in pg


def test_every_ray_process_runs_with_token_authentication(compose):
    # The token reaches Ray from a file (a Compose secret), never from the environment of every Ray
    # process, where a program run without the sandbox could read it (issue 45); it is required.
    assert compose["secrets"]["ray_token"] == {"environment": "RAY_AUTH_TOKEN"}
    assert compose["x-token-check"].startswith("${RAY_AUTH_TOKEN:?")
    for name in ("ray-head", "ray-worker", "driver"):
        service = compose["services"][name]
        env = service["environment"]
        assert env["RAY_AUTH_MODE"] == "token", name
        assert "RAY_AUTH_TOKEN" not in env and env["RAY_AUTH_TOKEN_PATH"] == "/run/secrets/ray_token", name
        assert "ray_token" in service["secrets"], name


def test_the_head_and_scalable_workers_form_one_cluster(compose):
    head, worker = compose["services"]["ray-head"], compose["services"]["ray-worker"]
    assert "ray start --head --port=6379" in _command(head) and "--block" in _command(head)
    assert "ray start --address=ray-head:6379" in _command(worker) and "--block" in _command(worker)
    assert "container_name" not in worker and "ports" not in worker  # --scale needs both absent
    assert "ports" not in head


def test_the_driver_runs_the_cluster_study_and_resumes_it_after_a_restart(compose):
    driver = compose["services"]["driver"]
    command = _command(driver)
    assert "tune launch" in command and "--or-resume" in command and "studies/cluster.toml" in command
    assert "ray start --address=ray-head:6379 --num-cpus=0" in command
    env = driver["environment"]
    assert env["OCEAN_STORAGE"].startswith("postgresql+psycopg://") and "@postgres:5432/" in env["OCEAN_STORAGE"]
    assert "${POSTGRES_PASSWORD" in env["OCEAN_STORAGE"] and env["OCEAN_RAY_ADDRESS"] == "auto"
    assert driver["depends_on"]["postgres"]["condition"] == "service_healthy"
    # more drivers on the study (docs/cluster.md: --scale driver=2 for 64 cores of the v1 bot)
    assert "container_name" not in driver and "ports" not in driver
    # the variables cluster.toml reads are the ones the driver sets
    cluster = (ROOT / "studies" / "cluster.toml").read_text()
    assert '"${OCEAN_STORAGE}"' in cluster and '"${OCEAN_RAY_ADDRESS}"' in cluster


def test_the_dashboard_reads_the_same_database_and_listens_on_localhost_only(compose):
    dash = compose["services"]["dashboard"]
    assert "tune dashboard" in _command(dash)
    assert dash["environment"]["OCEAN_STORAGE"] == compose["services"]["driver"]["environment"]["OCEAN_STORAGE"]
    assert all(str(p).startswith("127.0.0.1:") for p in dash["ports"])


def test_one_image_built_from_the_dockerfile_installs_the_package(compose):
    images = {s.get("image") for s in compose["services"].values() if s is not compose["services"]["postgres"]}
    assert images == {"ocean-lab:latest"} and compose["services"]["ray-head"]["build"] == "."
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip install -c .ci/constraints.txt ." in dockerfile and "COPY ocean" in dockerfile
    assert "COPY tuning" in dockerfile and "COPY .ci/constraints.txt" in dockerfile  # the tested versions
    assert "COPY benchmarks" in dockerfile  # tune bench and ocean bench run from the image too
    assert "RUN ocean warmup" in dockerfile  # compiled into the image, no worker pays the cold compile
    # ... for any CPU model: Numba keys its cache by the CPU name, "generic" on every node
    env = dockerfile[dockerfile.index("ENV "):dockerfile.index("RUN ocean warmup")]
    assert "NUMBA_CPU_NAME=generic" in env and "NUMBA_CPU_FEATURES" not in dockerfile
    assert "USER lab" in dockerfile  # not root
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".venv" in ignored and ".git" in ignored

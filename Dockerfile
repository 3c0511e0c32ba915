# One image for every service of docker-compose.yml: the Ray head, the Ray workers, the driver
# (tune launch/resume) and optuna-dashboard.
FROM python:3.11-slim

# NUMBA_CPU_NAME=generic: the kernels baked below are compiled for any x86-64 CPU, not for the
# build machine's, and Numba's cache is keyed by that name (with no CPU features), so a node of
# another CPU model loads them instead of recompiling everything on its first game. It is set
# for the running containers too: the key must match where the cache is read.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    RAY_USAGE_STATS_ENABLED=0 \
    NUMBA_CACHE_DIR=/opt/ocean-cache \
    NUMBA_CPU_NAME=generic

# bubblewrap: the sandbox every program runs in (docs/programs.md#what-a-program-can-reach).
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*

# An unprivileged user runs everything.
RUN useradd --create-home --uid 1000 lab
WORKDIR /lab

COPY pyproject.toml README.md ./
COPY .ci/constraints.txt ./.ci/constraints.txt
COPY ocean ./ocean
COPY tuning ./tuning
COPY benchmarks ./benchmarks
COPY studies ./studies
RUN pip install -c .ci/constraints.txt . && mkdir -p "$NUMBA_CACHE_DIR" && chown -R lab:lab /lab "$NUMBA_CACHE_DIR"

USER lab
# Compile the engine and the bots once into the image's cache, so no worker pays the cold compile.
RUN ocean warmup

CMD ["tune", "--help"]

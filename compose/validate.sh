#!/usr/bin/env bash
# Checks compose/ without a container engine (make test runs it; 15-20 s here):
#  - docker-compose.yml parses; each service's build target, build args (PRODUCT an executable of
#    Package.swift), env files, healthcheck (`rendezvous health` on the port its env file sets),
#    depends_on and volumes exist and agree; every required secret is in .env.example;
#  - nginx/rendezvous.conf is the template rendered for compose (render.sh --compose);
#  - Dockerfile.dockerignore keeps .build, .data, .git and secrets out of the build context;
#    (the Dockerfile itself is proven by building it: compose/images.sh, `make images`)
#  - postgres/10-service-roles.sh on a scratch database of the local test cluster;
#  - each executable started with its compose environment (names -> 127.0.0.1, free ports, the
#    local Postgres) until ready, and the compose edge config run by rendezvous-edge as in its
#    image, routing a health check over TLS and counting it on its metrics listener.
#   usage: RV_PG_PORT=... compose/validate.sh   (RV_BIN_DIR: the executables, default .build/debug)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/local/db.sh" status >/dev/null || { echo "validate.sh: Postgres is not running (bash compose/local/db.sh start)" >&2; exit 2; }
exec python3 "$here/validate.py" "$@"

#!/usr/bin/env python3
"""Copies the configuration the manifests share with compose into the kustomization roots.

kustomize (kubectl kustomize, load restrictor RootOnly) reads files only in or below a
kustomization's own folder, and compose's files live beside it in compose/env, compose/nginx and
compose/postgres. So this script keeps byte-for-byte copies here, and `check.py` fails when a copy
is stale (`sync_config.py --check`). Edit the originals, then run this.

  base/config/<name>.env          compose/env/<name>.env (common, identity, ..., interop)
  base/config/nginx.conf          compose/nginx/render.sh --compose --workers 2: the one template,
                                  with the Services' names and ports (identity:7101, ...), which
                                  compose uses too; two workers instead of one per node core
  overlays/dev/postgres/*.sh      compose/postgres/10-service-roles.sh and service-roles.sh (the
                                  dev Postgres initialises its roles and schemas as compose does)
  base/config/prometheus.yml      compose/prometheus/prometheus.k8s.yml (ConfigMap prometheus-config)
  base/config/rendezvous.rules.yml  compose/prometheus/rules/rendezvous.rules.yml (the same ConfigMap)

  sync_config.py            write the copies
  sync_config.py --check    exit 1, naming each stale or missing copy, without writing
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
COMPOSE = os.path.dirname(HERE)
ENV_NAMES = ["common", "identity", "discovery", "messaging", "production", "media", "interop"]
# nginx's worker count in a Pod: its CPU limit (edge.yaml), not the node's cores ("auto").
EDGE_WORKERS = "2"


def edge_config():
    out = subprocess.run(["bash", os.path.join(COMPOSE, "nginx", "render.sh"), "--compose", "--workers", EDGE_WORKERS],
                         check=True, capture_output=True)
    return out.stdout


def wanted():
    """{destination path: bytes} for every copy."""
    files = {}
    for name in ENV_NAMES:
        with open(os.path.join(COMPOSE, "env", f"{name}.env"), "rb") as f:
            files[os.path.join(HERE, "base", "config", f"{name}.env")] = f.read()
    files[os.path.join(HERE, "base", "config", "nginx.conf")] = edge_config()
    for source, name in [("prometheus.k8s.yml", "prometheus.yml"), ("rules/rendezvous.rules.yml", "rendezvous.rules.yml")]:
        with open(os.path.join(COMPOSE, "prometheus", source), "rb") as f:
            files[os.path.join(HERE, "base", "config", name)] = f.read()
    for name in ["10-service-roles.sh", "service-roles.sh"]:
        with open(os.path.join(COMPOSE, "postgres", name), "rb") as f:
            files[os.path.join(HERE, "overlays", "dev", "postgres", name)] = f.read()
    return files


def stale():
    """Destinations whose contents differ from their source (or are missing)."""
    out = []
    for path, data in wanted().items():
        try:
            with open(path, "rb") as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current != data:
            out.append(os.path.relpath(path, COMPOSE))
    return out


def main(argv):
    if argv[1:] == ["--check"]:
        bad = stale()
        for path in bad:
            print(f"compose/{path} is stale: run python3 compose/k8s/sync_config.py", file=sys.stderr)
        return 1 if bad else 0
    if argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    for path, data in wanted().items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        print(f"wrote compose/{os.path.relpath(path, COMPOSE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

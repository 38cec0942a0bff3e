#!/usr/bin/env bash
# Runs every Rendezvous executable in the foreground against the local Postgres cluster;
# Ctrl-C (or SIGTERM) stops them all, each draining its calls first.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${RV_BIN_DIR:-.build/release}
eval "$(bash compose/local/db.sh env)"

pids=()
stop() {
    trap - INT TERM
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait || true
}
trap stop INT TERM

# Services that exist so far; each listens on its documented port (ARCHITECTURE.md).
"$BIN/interop-server" --port "${RV_INTEROP_PORT:-7199}" &
pids+=($!)
"$BIN/identity" &
pids+=($!)

echo "rendezvous: running ${#pids[@]} process(es); Ctrl-C stops them"
wait -n || true
stop

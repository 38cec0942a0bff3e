#!/usr/bin/env bash
# Runs every Rendezvous executable in the foreground against the local Postgres cluster;
# Ctrl-C (or SIGTERM) stops them all, each draining its calls first.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${RV_BIN_DIR:-.build/release}
eval "$(bash compose/local/db.sh env)"

# Service-to-service credentials (Shared/Auth/ServiceCredential.swift): a random secret per
# service for this run, unless RV_SERVICE_SECRET_<NAME> gives one. Every service accepts them all
# on its internal methods (RV_SERVICE_CREDENTIALS) and presents its own (RV_SERVICE_NAME,
# RV_SERVICE_SECRET). Services that are not built yet simply never use theirs.
declare -A service_secret
accepted=""
for svc in identity discovery messaging production media; do
    given="RV_SERVICE_SECRET_${svc^^}"
    service_secret[$svc]="${!given:-$(head -c 32 /dev/urandom | od -An -v -tx1 | tr -d ' \n')}"
    accepted+="${accepted:+,}$svc=${service_secret[$svc]}"
done
export RV_SERVICE_CREDENTIALS="${RV_SERVICE_CREDENTIALS:-$accepted}"

# Runs a service executable with its own credential (exec: `$!` is then the service itself).
as_service() {
    local svc=$1; shift
    exec env RV_SERVICE_NAME="$svc" RV_SERVICE_SECRET="${service_secret[$svc]}" "$@"
}

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
# Identity follows production's submitted applications (viewers become applicants).
RV_PRODUCTION_ADDRESS="${RV_PRODUCTION_ADDRESS:-127.0.0.1:${RV_PRODUCTION_PORT:-7104}}" as_service identity "$BIN/identity" &
pids+=($!)
# Discovery follows identity (keys, tiers, events); it retries until identity answers.
as_service discovery "$BIN/discovery" &
pids+=($!)
# Production (FirstDate's show, The Unseen's points) follows identity's keys and revocations,
# discovery's matches for dates, and messaging's encounter awards for points.
RV_DISCOVERY_ADDRESS="${RV_DISCOVERY_ADDRESS:-127.0.0.1:${RV_DISCOVERY_PORT:-7102}}" \
RV_MESSAGING_ADDRESS="${RV_MESSAGING_ADDRESS:-127.0.0.1:${RV_MESSAGING_PORT:-7103}}" as_service production "$BIN/production" &
pids+=($!)
# Messaging follows identity (keys, tiers, blocks) and discovery (matches); it retries until both answer.
# Push (APNs) is on when RV_APNS_KEY_FILE, RV_APNS_KEY_ID, RV_APNS_TEAM_ID (and RV_APNS_TOPICS)
# are exported; otherwise it logs a warning and sends nothing. It follows production's
# application updates and media's Momento reveals for pushes.
RV_PRODUCTION_ADDRESS="${RV_PRODUCTION_ADDRESS:-127.0.0.1:${RV_PRODUCTION_PORT:-7104}}" \
RV_MEDIA_ADDRESS="${RV_MEDIA_ADDRESS:-127.0.0.1:${RV_MEDIA_PORT:-7105}}" as_service messaging "$BIN/messaging" &
pids+=($!)

# Media keeps blobs under .data/media and signs download URLs with a secret for this run
# (RV_MEDIA_URL_SECRET to keep URLs valid across runs).
export RV_MEDIA_URL_SECRET="${RV_MEDIA_URL_SECRET:-$(head -c 32 /dev/urandom | od -An -v -tx1 | tr -d ' \n')}"
as_service media "$BIN/media" &
pids+=($!)

echo "rendezvous: running ${#pids[@]} process(es); Ctrl-C stops them"
wait -n || true
stop

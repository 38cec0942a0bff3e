#!/usr/bin/env bash
# Runs the dev overlay's Pods in podman (`podman kube play`, Debian 12's podman 4.3), checks every
# service's grpc.health.v1 by its Service name and calls each one through the edge over TLS, then
# tears everything down: no pods, containers, secrets, volumes or network of this run are left.
#
#   compose/k8s/play.sh [--keep]
#       --keep   leave it running (tear down with play.sh --down)
#   compose/k8s/play.sh --down        remove what a kept run left
#
# Needs the images `make images` builds (localhost/rendezvous/<name>:dev for identity, discovery,
# messaging, production, media, interop, edge and postgres), kubectl, python3 with grpcio, and
# root (rootful podman: the host reaches the edge on the podman network). podman runs with
# compose/podman/containers.conf (runc, no default ulimits) unless CONTAINERS_CONF is set.
#
# How the manifests map onto podman (play_support.py has the details):
#   - each workload is played on its own, on one podman network (rv-k8s-play), with the network
#     alias of its Service's name: identity:7101, postgres:5432 ... resolve as they do in the
#     cluster, so the ConfigMaps and Secrets are used unchanged;
#   - Secrets become podman secrets (podman secret create), which kube play reads;
#   - Services, HPAs, PDBs and NetworkPolicies have no podman equivalent and are left out (podman
#     does not enforce NetworkPolicies: check.py checks those).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
compose="$(dirname "$here")"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$compose/podman/containers.conf}"
NET="${RV_PLAY_NETWORK:-rv-k8s-play}"
STATE=/var/tmp/rv-k8s-play    # what a run made, for --down (a fixed place: one run at a time)
IMAGES=(identity discovery messaging production media interop edge postgres)
WAIT_SECONDS="${RV_PLAY_WAIT_SECONDS:-180}"

SUBNET_PREFIX="${RV_PLAY_SUBNET_PREFIX:-10.213.77}"   # the network is $SUBNET_PREFIX.0/24
# A fixed address per workload (podman kube play --ip), in start order.
declare -A IP=([postgres]=.10 [interop]=.11 [identity]=.12 [discovery]=.13 [messaging]=.14
               [production]=.15 [media]=.16 [edge]=.17)

keep=0 down=0
for arg in "$@"; do
    case "$arg" in
        --keep) keep=1 ;;
        --down) down=1 ;;
        *) echo "usage: play.sh [--keep] | play.sh --down" >&2; exit 2 ;;
    esac
done

log() { printf '%s play.sh: %s\n' "$(date -u +%H:%M:%S)" "$*"; }

teardown() {
    [ -d "$STATE" ] || return 0
    log "tearing down"
    if [ -f "$STATE/out/workloads" ]; then
        # Reverse start order: the edge first, Postgres last.
        tac "$STATE/out/workloads" | while read -r file _ _ _; do
            podman kube down "$file" >/dev/null 2>&1 || true
        done
    fi
    for f in "$STATE"/out/secrets/*.json; do
        [ -e "$f" ] && { podman secret rm "$(basename "$f" .json)" >/dev/null 2>&1 || true; }
    done
    if [ -f "$STATE/out/volumes" ]; then
        while read -r v _; do
            [ -n "$v" ] && { podman volume rm -f "$v" >/dev/null 2>&1 || true; }
        done <"$STATE/out/volumes"
    fi
    podman network rm -f "$NET" >/dev/null 2>&1 || true
    # Nothing of this run may remain.
    local left="" workload name
    if [ -f "$STATE/out/workloads" ]; then
        while read -r _ workload _ _; do
            podman pod exists "$workload-pod-0" && left+=" pod:$workload-pod-0"
            podman container exists "$workload-pod-0-$workload" && left+=" container:$workload-pod-0-$workload"
        done <"$STATE/out/workloads"
    fi
    if [ -f "$STATE/out/volumes" ]; then
        while read -r name _; do
            [ -n "$name" ] && podman volume exists "$name" && left+=" volume:$name"
        done <"$STATE/out/volumes"
    fi
    for f in "$STATE"/out/secrets/*.json; do
        [ -e "$f" ] && podman secret inspect "$(basename "$f" .json)" >/dev/null 2>&1 && left+=" secret:$(basename "$f" .json)"
    done
    podman network exists "$NET" && left+=" network:$NET"
    rm -rf "$STATE"
    if [ -n "$left" ]; then
        log "LEFT BEHIND: $left"
        return 1
    fi
    log "torn down: no pods, containers, volumes, secrets or network left"
}

if [ "$down" = 1 ]; then
    teardown
    exit
fi

started=$(date +%s)
for tool in podman kubectl python3; do
    command -v "$tool" >/dev/null || { echo "play.sh: $tool is not installed" >&2; exit 2; }
done
missing=()
for image in "${IMAGES[@]}"; do
    podman image exists "localhost/rendezvous/$image:dev" || missing+=("rendezvous/$image:dev")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "play.sh: missing images: ${missing[*]} (make images builds them)" >&2
    exit 2
fi
if [ -d "$STATE" ]; then
    log "a previous run's state is in $STATE: removing it first"
    teardown
fi
mkdir -p "$STATE"
chmod 755 "$STATE"
[ "$keep" = 1 ] || trap 'teardown' EXIT

log "rendering compose/k8s/overlays/dev"
kubectl kustomize "$here/overlays/dev" >"$STATE/dev.yaml"
# The edge's certificate: a local CA and a certificate for the name "edge", readable by the edge's
# user (10001), standing in for Secret rendezvous-edge-tls.
bash "$compose/nginx/make-cert.sh" "$STATE/ca" edge >/dev/null
mkdir -p "$STATE/tls"
cp "$STATE/ca/edge.pem" "$STATE/ca/edge.key" "$STATE/tls/"
chown -R 10001:10001 "$STATE/tls"
chmod 500 "$STATE/tls"
chmod 400 "$STATE/tls/"*
python3 "$here/play_support.py" split "$STATE/dev.yaml" "$STATE/out" "$STATE/tls"

podman network create --subnet "$SUBNET_PREFIX.0/24" --gateway "$SUBNET_PREFIX.1" "$NET" >/dev/null
# Volumes owned by the Pod's user, as a cluster's emptyDir (world-writable) and fsGroup make them.
while read -r name uid gid; do
    [ "$uid" = - ] || podman volume create --opt "o=uid=$uid,gid=$gid" "$name" >/dev/null
done <"$STATE/out/volumes"
for f in "$STATE"/out/secrets/*.json; do
    podman secret create "$(basename "$f" .json)" "$f" >/dev/null
done

container() { echo "$1-pod-0-$1"; }

play() {  # file workload alias
    local out
    if ! out="$(podman kube play --network "$NET:alias=$3" --ip "$SUBNET_PREFIX${IP[$2]}" "$1" 2>&1)"; then
        echo "$out" | grep -v '^\s' | tail -5 >&2
        log "podman kube play failed for $2"
        return 1
    fi
}

wait_for() {  # workload command...: until the command succeeds; gives up on a crash loop
    local what=$1 deadline=$(( $(date +%s) + WAIT_SECONDS )) restarts
    shift
    until "$@" >/dev/null 2>&1; do
        if [ "$(date +%s)" -ge "$deadline" ]; then
            log "$what: not ready after ${WAIT_SECONDS} s"
            return 1
        fi
        restarts="$(podman inspect --format '{{.RestartCount}}' "$(container "$what")" 2>/dev/null || echo 0)"
        if [ "${restarts:-0}" -ge 5 ]; then
            log "$what: restarted $restarts times"
            return 1
        fi
        sleep 2
    done
}

dump_logs() {
    while read -r _ workload _ _; do
        echo "---- $workload (last 15 lines)"
        podman logs --tail 15 "$(container "$workload")" </dev/null 2>&1 || true
    done <"$STATE/out/workloads"
}

fail() {
    log "FAILED: $*"
    dump_logs
    exit 1
}

# Postgres first (the services migrate at start-up), then interop (whose image has the
# `rendezvous` CLI the checks run), the services, and the edge last: nginx resolves its
# upstreams' names once, at start.
while read -r file workload alias port <&3; do
    log "kube play $workload (alias $alias)"
    play "$file" "$workload" "$alias" || fail "kube play $workload"
    case "$workload" in
        postgres)
            wait_for "postgres" podman exec "$(container postgres)" pg_isready -h /var/run/postgresql -d rendezvous \
                || fail "postgres did not become ready" ;;
        interop)
            wait_for "interop" podman exec "$(container interop)" /usr/local/bin/rendezvous health --plaintext \
                --address "127.0.0.1:$port" || fail "interop is not serving" ;;
        edge) ;;
        *) ;;
    esac
done 3<"$STATE/out/workloads"

# Every service's grpc.health.v1 at its Service name and port, from another Pod on the network:
# the name is looked up in the network's DNS (as a Pod's resolver does) and must be that Pod's
# address; the `rendezvous` CLI in the interop Pod then calls the name.
while read -r _ workload alias port <&3; do
    case "$workload" in postgres|edge) continue ;; esac
    address="$(python3 "$here/play_support.py" resolve "$alias" "$SUBNET_PREFIX.1")" \
        || fail "$alias does not resolve on $NET"
    [ "$address" = "$SUBNET_PREFIX${IP[$workload]}" ] || fail "$alias resolves to $address, not $workload's Pod"
    wait_for "$workload" podman exec "$(container interop)" /usr/local/bin/rendezvous health --plaintext \
        --address "$alias:$port" || fail "$workload ($alias:$port = $address) is not SERVING"
    log "ok   $alias:$port ($address) grpc.health.v1 SERVING"
done 3<"$STATE/out/workloads"

# Through the edge, from the host as an app would: TLS on 8443 at the edge's address on the network.
edge_ip="$(podman inspect "$(container edge)" --format "{{(index .NetworkSettings.Networks \"$NET\").IPAddress}}")"
[ -n "$edge_ip" ] || fail "the edge has no address on $NET"
wait_for "edge" bash -c "exec 3<>/dev/tcp/$edge_ip/8443" || fail "the edge does not listen on $edge_ip:8443"
log "calling the services through the edge at $edge_ip:8443 (TLS)"
if ! python3 "$here/play_support.py" probe-edge "$edge_ip:8443" "$STATE/ca/ca.pem"; then
    fail "calls through the edge"
fi

log "ok: every service SERVING by its Service name, and reached through the edge ($(( $(date +%s) - started )) s)"
if [ "$keep" = 1 ]; then
    log "left running (--keep): network $NET, edge at $edge_ip:8443, CA $STATE/ca/ca.pem; remove with play.sh --down"
fi

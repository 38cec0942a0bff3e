#!/usr/bin/env bash
# Builds every image from compose/Dockerfile with podman (`make images`):
#   rendezvous/<service>:TAG   interop identity discovery messaging production media (stage service)
#   rendezvous/edge:TAG        the gRPC edge (stage edge)
#   rendezvous/postgres:TAG    Postgres 15 + PostGIS (stage postgres)
#   rendezvous/prometheus:TAG  Debian's Prometheus (stage prometheus; docker-compose.monitoring.yml)
# TAG is $RV_IMAGE_TAG (default dev). The base images are made locally first when missing
# (compose/podman/base-images.sh); builds never pull (--pull=never) and keep HEALTHCHECK
# (--format docker). The Swift build stage runs once for all of them (podman's layer cache).
# Prints each image's size and how long the build took.
#   usage: images.sh [IMAGE...]     (default: all; e.g. `images.sh identity edge`)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/podman/containers.conf}"
tag="${RV_IMAGE_TAG:-dev}"
SERVICES=(interop identity discovery messaging production media)
all=("${SERVICES[@]}" edge postgres prometheus)
[ $# -gt 0 ] && wanted=("$@") || wanted=("${all[@]}")

command -v podman >/dev/null || { echo "images.sh: podman is not installed (make deps)" >&2; exit 2; }
bash "$here/podman/base-images.sh"

# A service's executable and gRPC port: the port its env file gives it (compose/env/<name>.env).
product() { [ "$1" = interop ] && echo interop-server || echo "$1"; }
port() { sed -n "s/^RV_${1^^}_PORT=//p" "$here/env/$1.env"; }

build() {
    local name=$1 started=$SECONDS
    local args=(--pull=never --format docker -f "$here/Dockerfile" -t "rendezvous/$name:$tag")
    case "$name" in
        edge|postgres|prometheus) args+=(--target "$name") ;;
        *) local p; p="$(port "$name")"; [ -n "$p" ] || { echo "images.sh: no RV_${name^^}_PORT in env/$name.env" >&2; exit 2; }
           args+=(--target service --build-arg "PRODUCT=$(product "$name")" --build-arg "PORT=$p") ;;
    esac
    log="$(mktemp)"
    if ! podman build "${args[@]}" "$root" >"$log" 2>&1; then
        tail -40 "$log" >&2; rm -f "$log"
        echo "images.sh: rendezvous/$name failed" >&2; exit 1
    fi
    rm -f "$log"
    printf 'images.sh: %-28s %6s  (%d s)\n' "rendezvous/$name:$tag" \
        "$(podman image inspect --format '{{.Size}}' "rendezvous/$name:$tag" | numfmt --to=si --suffix=B)" $((SECONDS - started))
}

for name in "${wanted[@]}"; do
    [[ " ${all[*]} " == *" $name "* ]] || { echo "images.sh: unknown image '$name' (${all[*]})" >&2; exit 2; }
    build "$name"
done

#!/usr/bin/env bash
# Builds every image from compose/Dockerfile with podman (`make images`):
#   rendezvous/<service>:TAG   interop identity discovery messaging production media (stage service)
#   rendezvous/edge:TAG        the gRPC edge (stage edge)
#   rendezvous/postgres:TAG    Postgres 15 + PostGIS (stage postgres)
#   rendezvous/prometheus:TAG  Debian's Prometheus (stage prometheus; docker-compose.monitoring.yml)
# TAG is $RV_IMAGE_TAG (default dev). The base images are made locally first when missing
# (compose/podman/base-images.sh); builds never pull (--pull=never) and keep HEALTHCHECK
# (--format docker). The Swift build stage runs once for all of them (podman's layer cache).
# Prints each image's size and how long the build took. The Swift build stage is kept as
# rendezvous/build:TAG, and the untagged ones earlier builds left are pruned.
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
        # With the services' build arguments: podman reuses a stage's layers only for the same
        # set of them.
        build) args+=(--target build --build-arg "PRODUCT=interop-server" --build-arg "PORT=$(port interop)") ;;
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
done
# The Swift build stage, tagged (rendezvous/build:TAG) so that it stays cached for the next run;
# the one it replaces is left untagged (4.7 GB each time a source changed). Only those are
# pruned, so repeated `make test` runs do not fill the disk.
needs_build=false
for name in "${wanted[@]}"; do
    [[ " ${SERVICES[*]} edge " == *" $name "* ]] && needs_build=true
done
if "$needs_build"; then build build; fi
for name in "${wanted[@]}"; do
    build "$name"
done
if "$needs_build"; then podman image prune -f --filter label=io.rendezvous.stage=build >/dev/null; fi

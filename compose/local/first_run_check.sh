#!/usr/bin/env bash
# The first five minutes, as root with a checkout where the database's OS user cannot reach it
# (a clone in /root, mode 700): db.sh must choose a reachable cluster folder by itself, one per
# checkout, say where, and start. Run by the tests (FirstRunTests) as root.
#   usage: first_run_check.sh PORT
# Prints the data folders it saw and exits 0 when both checkouts got their own working cluster.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "first_run_check.sh: needs root (the cluster runs as another user)"; exit 2; }
port="$1"
here="$(cd "$(dirname "$0")" && pwd)"
home="$(mktemp -d /tmp/rv-home-XXXXXX)"
chmod 700 "$home"
folders=()
cleanup() {
    for checkout in "$home"/clone-*; do
        RV_PG_PORT="$port" bash "$checkout/compose/local/db.sh" stop >/dev/null 2>&1 || true
    done
    for folder in "${folders[@]}"; do rm -rf "$(dirname "$folder")"; done
    rm -rf "$home"
}
trap cleanup EXIT
for name in a b; do
    checkout="$home/clone-$name"
    mkdir -p "$checkout/compose/local" "$checkout/compose/postgres"
    cp "$here/db.sh" "$checkout/compose/local/db.sh"
    cp "$here/../postgres/service-roles.sh" "$here/../postgres/wal-archive.sh" "$checkout/compose/postgres/"
    output="$(env -u RV_DATA_DIR RV_PG_PORT="$port" bash "$checkout/compose/local/db.sh" start 2>&1)"
    echo "$output"
    folder="$(sed -n 's/.*the cluster lives in \([^ ]*\) .*/\1/p' <<<"$output" | head -n1)"
    [ -n "$folder" ] || { echo "FAIL: db.sh did not say where the cluster lives"; exit 1; }
    case "$folder" in /var/lib/rendezvous/*) ;; *) echo "FAIL: unexpected folder $folder"; exit 1 ;; esac
    folders+=("$folder")
    env -u RV_DATA_DIR RV_PG_PORT="$port" bash "$checkout/compose/local/db.sh" psql -tAc "SELECT 'query ok'"
    env -u RV_DATA_DIR RV_PG_PORT="$port" bash "$checkout/compose/local/db.sh" stop
done
[ "${folders[0]}" != "${folders[1]}" ] || { echo "FAIL: two checkouts share ${folders[0]}"; exit 1; }
echo "DATA FOLDERS ${folders[*]}"

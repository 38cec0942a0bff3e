#!/usr/bin/env bash
# Proves the Python interop harness against itself: interop_client.py (grpcio)
# runs every case against interop_server.py (grpcio), in plaintext and over TLS.
#   usage: selftest.sh            exit 0 iff both runs print "N passed, 0 failed"
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
py="${PYTHON:-python3}"
"$here/gen_protos.sh" >/dev/null

tmp="$(mktemp -d)"
srv_pid=""
cleanup() { [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# A throwaway CA and a localhost server certificate.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -subj "/CN=interop test CA" -keyout "$tmp/ca.key" -out "$tmp/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
  -keyout "$tmp/server.key" -out "$tmp/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$tmp/ext"
openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -CAcreateserial \
  -days 2 -extfile "$tmp/ext" -out "$tmp/server.pem" 2>/dev/null

start_server() {  # args: extra server flags; sets srv_pid and port
  : > "$tmp/srv.out"
  "$py" "$here/interop_server.py" --port 0 "$@" > "$tmp/srv.out" 2> "$tmp/srv.err" &
  srv_pid=$!
  for _ in $(seq 100); do
    port="$(awk '/^LISTENING /{print $2}' "$tmp/srv.out")"
    [ -n "$port" ] && return 0
    sleep 0.1
  done
  echo "server did not start"; cat "$tmp/srv.err"; exit 1
}
stop_server() { kill "$srv_pid"; wait "$srv_pid" || true; srv_pid=""; }

rc=0
echo "== plaintext"
start_server
"$py" "$here/interop_client.py" --port "$port" --test_case all || rc=1
stop_server

echo "== TLS"
start_server --cert "$tmp/server.pem" --key "$tmp/server.key"
"$py" "$here/interop_client.py" --port "$port" --use_tls --ca_file "$tmp/ca.pem" \
  --server_host_override localhost --test_case all || rc=1
stop_server
exit $rc

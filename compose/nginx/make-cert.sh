#!/usr/bin/env bash
# A local certificate authority and the edge's certificate signed by it, made once and reused:
#
#   make-cert.sh DIR [NAME...]
#
# DIR/ca.pem       the CA to trust (the gateway client's .tlsTrustingRoots(pemFile:), curl --cacert)
# DIR/ca.key       its key (stays in DIR, mode 600)
# DIR/edge.pem     the edge's certificate for localhost, 127.0.0.1, ::1 and each NAME (DNS name or
#                  IPv4 address), valid 825 days; remade when a NAME is missing from it or it expires
#                  within a day
# DIR/edge.key     its key
# Prints DIR/ca.pem. Used by compose/local/run.sh (`make run`), by the tests and for compose.
set -euo pipefail
dir="${1:?usage: make-cert.sh DIR [NAME...]}"
shift
names=(localhost 127.0.0.1 ::1 "$@")
mkdir -p "$dir"
chmod 700 "$dir"
umask 077
# One maker at a time per folder (make test's shards, make run beside make test): a second
# would see the first's half-written files, or replace the CA the first just signed with.
exec 9>"$dir/.lock"
flock 9

if [ ! -s "$dir/ca.pem" ] || [ ! -s "$dir/ca.key" ]; then
    openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -sha256 -days 3650 \
        -subj "/CN=Rendezvous local CA $(hostname -s 2>/dev/null || echo host) $(date -u +%Y%m%d%H%M%S)" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
    rm -f "$dir/edge.pem"
fi

san=""
for name in "${names[@]}"; do
    if [[ "$name" =~ ^[0-9.]+$ || "$name" == *:* ]]; then san+="${san:+,}IP:$name"; else san+="${san:+,}DNS:$name"; fi
done

current() {
    [ -s "$dir/edge.pem" ] && [ -s "$dir/edge.key" ] || return 1
    openssl x509 -in "$dir/edge.pem" -noout -checkend 86400 >/dev/null || return 1
    openssl verify -CAfile "$dir/ca.pem" "$dir/edge.pem" >/dev/null 2>&1 || return 1
    local text name
    text="$(openssl x509 -in "$dir/edge.pem" -noout -ext subjectAltName 2>/dev/null)"
    for name in "${names[@]}"; do
        # openssl prints IPv6 addresses expanded; ::1 is always there when the rest is.
        [ "$name" = ::1 ] && continue
        grep -qE "(DNS|IPAddress):$name(,|$)" <<<"$(tr -d ' ' <<<"$text")" || return 1
    done
}

if ! current; then
    openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -sha256 -subj "/CN=${names[3]:-localhost}" \
        -keyout "$dir/edge.key" -out "$dir/edge.csr" 2>/dev/null
    printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=%s\n' "$san" \
        >"$dir/edge.ext"
    openssl x509 -req -in "$dir/edge.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -sha256 -days 825 \
        -extfile "$dir/edge.ext" -out "$dir/edge.pem" 2>/dev/null
    rm -f "$dir/edge.csr" "$dir/edge.ext" "$dir/ca.srl"
fi
chmod 644 "$dir/ca.pem" "$dir/edge.pem"
echo "$dir/ca.pem"

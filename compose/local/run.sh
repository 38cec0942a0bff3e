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
declare -A name_of=()
# Records a process started in the background under a name for messages: `started "$!" NAME`.
started() { pids+=("$1"); name_of[$1]=$2; }
stop() {
    trap - INT TERM
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait || true
}
trap stop INT TERM

# RV_INSTANCES=N runs N instances of each service behind the edge: instance i listens on the
# service's port + 10*i (identity 7101, 7111, ...) and its admin port + 10*i. Services call
# each other's first instance; apps call the edge, which balances across all of them.
instances="${RV_INSTANCES:-1}"
[[ "$instances" =~ ^[1-9]$ ]] || { echo "run.sh: RV_INSTANCES must be 1-9" >&2; exit 2; }
declare -A base_port=([identity]=7101 [discovery]=7102 [messaging]=7103 [production]=7104 [media]=7105)
port_of() { local var="RV_${1^^}_PORT"; echo $(( ${!var:-${base_port[$1]}} + 10 * $2 )); }
admin_port_of() {
    local var="RV_${1^^}_ADMIN_PORT"
    if [ -n "${!var:-}" ]; then echo $(( ${!var} + 10 * $2 )); else echo $(( $(port_of "$1" "$2") + 100 )); fi
}
# Each service follows the others it needs (identity: production's applications; discovery:
# identity; production: identity, discovery's matches, messaging's encounter awards; messaging:
# identity, discovery, production's application updates, media's Momento reveals; media:
# identity); each retries until the other answers.
for svc in identity discovery messaging production media; do
    var="RV_${svc^^}_ADDRESS"
    export "$var=${!var:-127.0.0.1:$(port_of "$svc" 0)}"
done

# Media keeps blobs under .data/media (shared by its instances) and signs download URLs with a
# secret for this run (RV_MEDIA_URL_SECRET to keep URLs valid across runs).
export RV_MEDIA_URL_SECRET="${RV_MEDIA_URL_SECRET:-$(head -c 32 /dev/urandom | od -An -v -tx1 | tr -d ' \n')}"

"$BIN/interop-server" --port "${RV_INTEROP_PORT:-7199}" &
started "$!" interop-server
# Push (APNs) is on when RV_APNS_KEY_FILE, RV_APNS_KEY_ID, RV_APNS_TEAM_ID (and RV_APNS_TOPICS)
# are exported; otherwise messaging logs a warning and sends nothing.
declare -A upstream=() admins=()
downloads=""
for svc in identity discovery production messaging media; do
    for ((i = 0; i < instances; i++)); do
        port="$(port_of "$svc" "$i")" admin="$(admin_port_of "$svc" "$i")"
        as_service "$svc" env "RV_${svc^^}_PORT=$port" "RV_${svc^^}_ADMIN_PORT=$admin" "$BIN/$svc" &
        started "$!" "$svc (instance $i, port $port)"
        upstream[$svc]+="${upstream[$svc]:+,}127.0.0.1:$port"
        admins[$svc]+="${admins[$svc]:+,}\"127.0.0.1:$admin\""
        [ "$svc" != media ] || downloads+="${downloads:+,}127.0.0.1:$admin"
    done
done

# The edge: nginx on RV_EDGE_PORT (8443) with TLS from a local CA made on the first run under
# .data/edge (RV_EDGE_DIR), routing by service to every instance (compose/nginx/render.sh),
# logging each call with the instance that took it; run by rendezvous-edge as in its image, which
# counts every response for Prometheus on 127.0.0.1:RV_EDGE_METRICS_PORT (8082, /metrics).
# RV_EDGE=off runs the services alone.
if [ "${RV_EDGE:-on}" != off ]; then
    nginx="$(command -v nginx || echo /usr/sbin/nginx)"
    [ -x "$nginx" ] || { echo "run.sh: nginx is not installed (make deps installs nginx-light)" >&2; stop; exit 1; }
    edge_dir="${RV_EDGE_DIR:-$PWD/.data/edge}"
    edge_listen="${RV_EDGE_HOST:-127.0.0.1}:${RV_EDGE_PORT:-8443}"
    edge_metrics="127.0.0.1:${RV_EDGE_METRICS_PORT:-8082}"
    ca="$(bash compose/nginx/make-cert.sh "$edge_dir/tls" ${RV_EDGE_HOST:+"$RV_EDGE_HOST"})"
    mkdir -p "$edge_dir/run"
    args=(--listen "$edge_listen" --tls "$edge_dir/tls/edge.pem" "$edge_dir/tls/edge.key" --downloads "$downloads"
          --upstream "interop=127.0.0.1:${RV_INTEROP_PORT:-7199}" --error-log "$edge_dir/run/error.log"
          --access-log "$edge_dir/run/access.log" --metrics-port "${edge_metrics##*:}")
    for svc in "${!upstream[@]}"; do args+=(--upstream "$svc=${upstream[$svc]}"); done
    # gRPC-Web without TLS (browsers on http://localhost, curl): plaintext HTTP/1.1, same routes.
    http1_port="${RV_EDGE_HTTP1_PORT:-8080}"
    [ "$http1_port" = off ] || args+=(--http1-listen "${RV_EDGE_HOST:-127.0.0.1}:$http1_port")
    [ -z "${RV_EDGE_RATE:-}" ] || args+=(--rate "$RV_EDGE_RATE")
    [ -z "${RV_EDGE_BURST:-}" ] || args+=(--burst "$RV_EDGE_BURST")
    bash compose/nginx/render.sh "${args[@]}" >"$edge_dir/run/edge.conf"
    "$BIN/rendezvous-edge" --config "$edge_dir/run/edge.conf" --prefix "$edge_dir/run/" --nginx "$nginx" \
        --metrics "$edge_metrics" &
    started "$!" "rendezvous-edge (nginx log $edge_dir/run/error.log)"
    admins[edge]="\"$edge_metrics\""
    echo "rendezvous: the edge is https://$edge_listen (gRPC, ALPN h2 and http/1.1); trust the CA in $ca"
    echo "rendezvous: the CLI finds that CA from this folder; elsewhere: export RENDEZVOUS_ADDRESS=$edge_listen RENDEZVOUS_CA_FILE=$ca"
    [ "$http1_port" = off ] || echo "rendezvous: gRPC-Web over plain HTTP/1.1 on http://${RV_EDGE_HOST:-127.0.0.1}:$http1_port"
    echo "rendezvous: each call and the instance that took it: $edge_dir/run/access.log; the edge's metrics: http://$edge_metrics/metrics"
fi

# Prometheus (Debian's package) on RV_PROMETHEUS_PORT (7190), scraping every instance started
# above and the edge's metrics through file-based discovery (.data/prometheus/targets/rendezvous.json,
# one group per service, `edge` for the edge) and evaluating compose/prometheus/rules. RV_PROMETHEUS=off runs without it.
if [ "${RV_PROMETHEUS:-on}" != off ]; then
    prometheus="$(command -v prometheus || echo /usr/bin/prometheus)"
    [ -x "$prometheus" ] || { echo "run.sh: prometheus is not installed (make deps installs it)" >&2; stop; exit 1; }
    prom_dir="${RV_PROMETHEUS_DIR:-$PWD/.data/prometheus}"
    prom_listen="127.0.0.1:${RV_PROMETHEUS_PORT:-7190}"
    mkdir -p "$prom_dir/targets" "$prom_dir/data"
    cp compose/prometheus/prometheus.yml "$prom_dir/prometheus.yml"
    ln -sfn "$PWD/compose/prometheus/rules" "$prom_dir/rules"
    groups=""
    for svc in "${!admins[@]}"; do
        groups+="${groups:+,}"$'\n'"  {\"targets\": [${admins[$svc]}], \"labels\": {\"service\": \"$svc\"}}"
    done
    # Written whole, then renamed: Prometheus never reads half a file.
    printf '[%s\n]\n' "$groups" >"$prom_dir/targets/.rendezvous.json.new"
    mv "$prom_dir/targets/.rendezvous.json.new" "$prom_dir/targets/rendezvous.json"
    "$prometheus" --config.file="$prom_dir/prometheus.yml" --storage.tsdb.path="$prom_dir/data" \
        --storage.tsdb.retention.time="${RV_PROMETHEUS_RETENTION:-7d}" --web.listen-address="$prom_listen" \
        --log.level=warn >>"$prom_dir/prometheus.log" 2>&1 &
    started "$!" "prometheus (log $prom_dir/prometheus.log)"
    echo "rendezvous: Prometheus on http://$prom_listen (alerts: /alerts, targets: /targets; log $prom_dir/prometheus.log)"
fi

# Ready when every listener accepts connections (services still migrating or following their
# peers answer UNAVAILABLE meanwhile, which clients retry); at most 60 s, less if one exits.
listeners=("127.0.0.1:${RV_INTEROP_PORT:-7199}")
for svc in "${!upstream[@]}"; do IFS=, read -r -a addrs <<<"${upstream[$svc]}"; listeners+=("${addrs[@]}"); done
if [ "${RV_EDGE:-on}" != off ]; then
    listeners+=("${edge_listen/#0.0.0.0:/127.0.0.1:}" "$edge_metrics")
    [ "$http1_port" = off ] || listeners+=("${RV_EDGE_HOST:-127.0.0.1}:$http1_port")
    listeners=("${listeners[@]/#0.0.0.0:/127.0.0.1:}")
fi
[ "${RV_PROMETHEUS:-on}" = off ] || listeners+=("$prom_listen")
for ((tries = 0; tries < 600; tries++)); do
    waiting=0
    for address in "${listeners[@]}"; do
        (exec 3<>"/dev/tcp/${address%:*}/${address##*:}") 2>/dev/null || { waiting=1; break; }
    done
    [ "$waiting" = 0 ] && break
    for pid in "${pids[@]}"; do
        kill -0 "$pid" 2>/dev/null && continue
        status=0; wait "$pid" || status=$?
        echo "run.sh: ${name_of[$pid]} exited at start (status $status); stopping the others" >&2
        stop; exit 1
    done
    sleep 0.1
done
echo "rendezvous: running ${#pids[@]} process(es), $instances instance(s) of each service; Ctrl-C stops them"
# The first process to exit stops the rest: a stack without one of its parts is not running.
exited=0; wait -n -p exited || true
[ -z "${name_of[${exited:-0}]:-}" ] || echo "run.sh: ${name_of[$exited]} exited; stopping the others" >&2
stop

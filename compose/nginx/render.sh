#!/usr/bin/env bash
# Renders the gRPC edge's nginx configuration from rendezvous.conf.template (one source for
# `make run`, compose and the tests) and prints it.
#
#   render.sh [options]
#     --listen ADDR:PORT          the gRPC listener (HTTP/2; with --tls also HTTP/1.1 by ALPN)   default 0.0.0.0:8443
#     --tls CERT KEY              TLS with this certificate chain and key (PEM); ALPN h2, http/1.1
#     --http1-listen ADDR:PORT    an extra plaintext HTTP/1.1 listener (gRPC-Web without TLS;
#                                 grpc_pass carries it to the services, which speak gRPC-Web)
#     --health-listen ADDR:PORT   an extra plaintext HTTP/2 listener for the edge's own health check
#                                 (`rendezvous health` in its container: grpc.health.v1 through it)
#     --upstream NAME=ADDR[,ADDR] the instances of a service (interop identity discovery
#                                 production messaging media); a service not given is down
#     --downloads ADDR[,ADDR]     media's admin listeners, for signed downloads
#     --rate N r/s                per client address                                   default 100r/s
#     --burst N                   calls over the rate allowed at once                  default 200
#     --body-max SIZE             an ordinary call's body                              default 5m
#     --upload-max SIZE           an upload's whole client stream                      default 40m
#     --workers N|auto                                                                 default auto
#     --error-log PATH|stderr                                                          default stderr
#     --access-log PATH           one line per call: client, method, HTTP status, instance   default off
#     --metrics-port PORT         each response logged over syslog to UDP 127.0.0.1:PORT, where
#                                 rendezvous-edge --metrics ADDR:PORT counts them for Prometheus
#     --compose                   compose's edge: every service by its compose name and port, TLS
#                                 from /etc/rendezvous/tls, gRPC-Web over HTTP/1.1 on 8080, the
#                                 health check's listener on 127.0.0.1:8081, the metrics on 8082
#                                 (rendezvous.conf is this, checked by validate.sh)
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true  # "&" in a value stays "&"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SERVICES=(interop identity discovery production messaging media)

listen=0.0.0.0:8443 tls_cert="" tls_key="" http1_listen="" health_listen="" downloads=""
rate=100r/s burst=200 body_max=5m upload_max=40m workers=auto error_log=stderr access_log="" metrics_port=""
declare -A upstream=()

die() { echo "render.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --listen) listen="${2:?--listen ADDR:PORT}"; shift 2 ;;
        --tls) tls_cert="${2:?--tls CERT KEY}"; tls_key="${3:?--tls CERT KEY}"; shift 3 ;;
        --http1-listen) http1_listen="${2:?--http1-listen ADDR:PORT}"; shift 2 ;;
        --health-listen) health_listen="${2:?--health-listen ADDR:PORT}"; shift 2 ;;
        --upstream)
            name="${2%%=*}"; servers="${2#*=}"
            [[ " ${SERVICES[*]} " == *" $name "* ]] || die "unknown service '$name' (${SERVICES[*]})"
            [ -n "$servers" ] && [ "$servers" != "$2" ] || die "--upstream NAME=ADDR[,ADDR]"
            upstream[$name]="${upstream[$name]:+${upstream[$name]},}$servers"; shift 2 ;;
        --downloads) downloads="${2:?--downloads ADDR[,ADDR]}"; shift 2 ;;
        --rate) rate="${2:?}"; shift 2 ;;
        --burst) burst="${2:?}"; shift 2 ;;
        --body-max) body_max="${2:?}"; shift 2 ;;
        --upload-max) upload_max="${2:?}"; shift 2 ;;
        --workers) workers="${2:?}"; shift 2 ;;
        --error-log) error_log="${2:?}"; shift 2 ;;
        --access-log) access_log="${2:?} rv_edge"; shift 2 ;;
        --metrics-port) metrics_port="${2:?--metrics-port PORT}"; shift 2 ;;
        --compose)
            tls_cert=/etc/rendezvous/tls/edge.pem; tls_key=/etc/rendezvous/tls/edge.key
            upstream=([interop]=interop:7199 [identity]=identity:7101 [discovery]=discovery:7102
                      [messaging]=messaging:7103 [production]=production:7104 [media]=media:7105)
            downloads=media:7205; http1_listen=0.0.0.0:8080; health_listen=127.0.0.1:8081; metrics_port=8082; shift ;;
        *) die "unknown option '$1'" ;;
    esac
done
[[ "$rate" =~ ^[0-9]+r/[sm]$ ]] || die "--rate like 100r/s"
[[ "$burst" =~ ^[0-9]+$ ]] || die "--burst N"
[[ "$metrics_port" =~ ^[0-9]*$ ]] || die "--metrics-port PORT"

# One upstream block per service; a service without instances points at a server marked down,
# so its calls get UNAVAILABLE instead of nginx refusing the whole configuration.
upstream_block() {
    local name=$1 servers=$2 keepalive=$3 addr
    local block="    upstream $name {"
    if [ -z "$servers" ]; then
        block+=" server 127.0.0.1:1 down;"
    else
        IFS=, read -r -a addrs <<<"$servers"
        for addr in "${addrs[@]}"; do block+=" server $addr max_fails=1 fail_timeout=3s;"; done
    fi
    [ "$keepalive" = 0 ] || block+=" keepalive $keepalive;"
    printf '%s }\n' "$block"
}
upstreams=""
for svc in "${SERVICES[@]}"; do upstreams+="$(upstream_block "$svc" "${upstream[$svc]:-}" 32)"$'\n'; done
upstreams+="$(upstream_block media_downloads "$downloads" 0)"

if [ -n "$tls_cert" ]; then
    listen_lines="        listen $listen ssl http2;
        ssl_certificate $tls_cert;
        ssl_certificate_key $tls_key;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:rv_tls:10m;"
else
    listen_lines="        listen $listen http2;"
fi
[ -z "$http1_listen" ] || listen_lines+=$'\n'"        listen $http1_listen;"
[ -z "$health_listen" ] || listen_lines+=$'\n'"        listen $health_listen http2;"

# `access_log off` would cancel the metrics' log too (off ends every access_log of its level).
access_lines=""
[ -z "$access_log" ] || access_lines="    access_log $access_log;"
[ -z "$metrics_port" ] || access_lines+="${access_lines:+$'\n'}    access_log syslog:server=127.0.0.1:$metrics_port,nohostname,tag=rv_edge_metrics rv_metrics;"
[ -n "$access_lines" ] || access_lines="    access_log off;"

template="$(cat "$here/rendezvous.conf.template")"
template="${template//@WORKERS@/$workers}"
template="${template//@ERROR_LOG@/$error_log}"
template="${template//@ACCESS_LOG@/$access_lines}"
template="${template//@BODY_MAX@/$body_max}"
template="${template//@UPLOAD_MAX@/$upload_max}"
template="${template//@RATE@/$rate}"
template="${template//@BURST@/$burst}"
template="${template//@UPSTREAMS@/$upstreams}"
template="${template//@LISTEN@/$listen_lines}"
if [[ "$template" =~ @[A-Z_]+@ ]]; then die "template placeholder ${BASH_REMATCH[0]} not filled"; fi
printf '# Rendered by compose/nginx/render.sh from rendezvous.conf.template: edit those, not this.\n%s\n' "$template"

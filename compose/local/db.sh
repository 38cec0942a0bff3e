#!/usr/bin/env bash
# Local Postgres cluster for development and tests: no Docker, one data folder.
#
#   compose/local/db.sh start    install if missing, initdb once, start, provision roles/schemas
#   compose/local/db.sh stop     fast shutdown
#   compose/local/db.sh kill     immediate shutdown, as a crash (no checkpoint; recovery from WAL on start)
#   compose/local/db.sh status   exit 0 when running
#   compose/local/db.sh env      print export lines (host, port, database, one URL per service)
#   compose/local/db.sh psql     psql as the admin role over the cluster's unix socket
#
# Environment (all optional):
#   RV_DATA_DIR              cluster folder            default <repo>/.data/postgres, or, when
#                            the database's OS user cannot reach the checkout (a clone in
#                            /root, mode 700), /var/lib/rendezvous/<checkout hash>/postgres
#   RV_PG_PORT               TCP port on 127.0.0.1     default 7432
#   RV_PG_DATABASE           database name             default rendezvous
#   RV_PG_OS_USER            OS user owning the cluster when run as root   default rendezvous
#   RV_PG_ADMIN_PASSWORD     password of rv_admin      default rv_admin_local
#   RV_PG_PASSWORD_<SERVICE> password of rv_<service>  default rv_<service>_local
#
# Each service role rv_<service> owns schema <service> and has no rights on any other schema.
# rv_admin is a superuser for migrations in tests and for pgbench, never for services.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PORT="${RV_PG_PORT:-7432}"
HOST=127.0.0.1
DATABASE="${RV_PG_DATABASE:-rendezvous}"
OS_USER="${RV_PG_OS_USER:-rendezvous}"
ADMIN_PASSWORD="${RV_PG_ADMIN_PASSWORD:-rv_admin_local}"
PG_BIN=/usr/lib/postgresql/15/bin
# The services that own a schema, and the SQL of their roles: one place, shared with compose.
source "$REPO/compose/postgres/service-roles.sh"
SERVICES=("${RV_SCHEMA_SERVICES[@]}")

die() { echo "db.sh: $*" >&2; exit 1; }

# The cluster's folder. As root the cluster runs as OS_USER, who must be able to walk down to
# it: a checkout under /root (mode 700) is out of its reach, so the cluster then lives under
# /var/lib/rendezvous, one folder per checkout (named by a hash of its path), so two clones
# never share a cluster. RV_DATA_DIR overrides both.
choose_data_dir() {
    if [ -n "${RV_DATA_DIR:-}" ]; then
        DATA_DIR="$RV_DATA_DIR"
        return
    fi
    DATA_DIR="$REPO/.data/postgres"
    [ "$(id -u)" = 0 ] || return 0
    if id -u "$OS_USER" >/dev/null 2>&1 && runuser -u "$OS_USER" -- test -x "$REPO"; then
        return
    fi
    if ! id -u "$OS_USER" >/dev/null 2>&1; then
        # No such user yet: judge by the permissions every other user has.
        local dir="$REPO" reachable=1
        while [ "$dir" != "/" ]; do
            [ "$(( 0$(stat -c %a "$dir") & 1 ))" = 1 ] || reachable=0
            dir="$(dirname "$dir")"
        done
        [ "$reachable" = 1 ] && return
    fi
    DATA_DIR="/var/lib/rendezvous/$(printf '%s' "$REPO" | sha256sum | cut -c1-12)/postgres"
    DATA_DIR_NOTE="$REPO is out of $OS_USER's reach (a parent folder lacks o+x): the cluster lives in $DATA_DIR (RV_DATA_DIR chooses another)"
}
DATA_DIR_NOTE=""
choose_data_dir
LOG_FILE="$DATA_DIR/server.log"

service_password() {
    local var="RV_PG_PASSWORD_${1^^}"
    printf '%s' "${!var:-rv_${1}_local}"
}

# Runs a command as the cluster's owner: the unprivileged OS_USER when we are root
# (initdb and postgres refuse to run as root), ourselves otherwise.
as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u "$OS_USER" -- "$@"; else "$@"; fi
}

ensure_installed() {
    if [ -x "$PG_BIN/initdb" ] && [ -f /usr/share/postgresql/15/extension/postgis.control ]; then
        return
    fi
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    echo "db.sh: installing postgresql-15 and postgresql-15-postgis-3" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql-15 postgresql-15-postgis-3
}

ensure_os_user() {
    [ "$(id -u)" = 0 ] || return 0
    if ! id -u "$OS_USER" >/dev/null 2>&1; then
        useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$OS_USER"
    fi
}

# The data folder must be reachable by its owner: every parent needs search permission.
ensure_data_dir() {
    mkdir -p "$DATA_DIR"
    case "$DATA_DIR" in
        /var/lib/rendezvous/*) chmod 755 /var/lib/rendezvous "$(dirname "$DATA_DIR")" ;;
    esac
    if [ "$(id -u)" = 0 ]; then
        chown "$OS_USER:" "$DATA_DIR"
        runuser -u "$OS_USER" -- test -x "$DATA_DIR" ||
            die "$OS_USER cannot reach $DATA_DIR (a parent folder lacks o+x); set RV_DATA_DIR elsewhere"
    fi
    chmod 700 "$DATA_DIR"
}

init_cluster() {
    [ -f "$DATA_DIR/PG_VERSION" ] && return
    ensure_data_dir
    local pwfile
    pwfile="$(mktemp)"
    printf '%s\n' "$ADMIN_PASSWORD" >"$pwfile"
    [ "$(id -u)" = 0 ] && chown "$OS_USER:" "$pwfile"
    # The unix socket lives in the 0700 data folder, so only the cluster's owner (and root)
    # reach it: local trust is safe there. TCP always needs a password.
    as_owner "$PG_BIN/initdb" -D "$DATA_DIR" -U rv_admin --pwfile="$pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
    rm -f "$pwfile"
    echo "include_if_exists = 'rendezvous.conf'" >>"$DATA_DIR/postgresql.conf"
}

write_config() {
    local conf="$DATA_DIR/rendezvous.conf"
    local wanted
    wanted="$(cat <<EOF
# Written by compose/local/db.sh on every start; edit the script, not this file.
listen_addresses = '$HOST'
port = $PORT
unix_socket_directories = '$DATA_DIR'
max_connections = 300
shared_buffers = 128MB
# An OK answer means the write survived a crash. (make test relaxes this for its own sessions
# only, with PGOPTIONS.)
synchronous_commit = on
log_min_messages = warning
log_min_error_statement = panic
timezone = 'UTC'
EOF
)"
    if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$wanted" ]; then
        printf '%s\n' "$wanted" | as_owner tee "$conf" >/dev/null
        # A running cluster takes synchronous_commit on reload (port and addresses need a restart).
        if is_running; then as_owner "$PG_BIN/pg_ctl" -D "$DATA_DIR" reload >/dev/null; fi
    fi
}

is_running() {
    [ -f "$DATA_DIR/PG_VERSION" ] && as_owner "$PG_BIN/pg_ctl" -D "$DATA_DIR" status >/dev/null 2>&1
}

# A postmaster.pid whose process is gone, or is no longer a postgres process, is stale.
remove_stale_pid() {
    local pidfile="$DATA_DIR/postmaster.pid" pid
    [ -f "$pidfile" ] || return 0
    pid="$(head -n1 "$pidfile" 2>/dev/null || true)"
    if [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] && grep -qE '^(postgres|postmaster)$' "/proc/$pid/comm"; then
        return 0
    fi
    echo "db.sh: removing stale $pidfile" >&2
    rm -f "$pidfile"
}

admin_psql() {
    PGOPTIONS="-c client_min_messages=warning" as_owner "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$DATA_DIR" -p "$PORT" -U rv_admin "$@"
}

provision() {
    admin_psql -d postgres -v db="$DATABASE" -v pw="$ADMIN_PASSWORD" <<'SQL'
SELECT format('CREATE DATABASE %I', :'db')
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'db') \gexec
ALTER ROLE rv_admin PASSWORD :'pw';
SQL
    local svc
    local args=()
    for svc in "${SERVICES[@]}"; do args+=(-v "pw_$svc=$(service_password "$svc")"); done
    rv_service_roles_sql "$DATABASE" | admin_psql -d "$DATABASE" "${args[@]}"
}

# Starts the postmaster holding none of our caller's descriptors beyond stdin/out/err: a daemon
# that inherited, say, the pipe or socket a parent watches for its child's exit would keep
# that parent waiting for as long as Postgres runs.
start_detached() (
    local fd
    for fd in /proc/$BASHPID/fd/*; do
        fd="${fd##*/}"
        if [ "$fd" -gt 2 ] && [ "$fd" != 255 ]; then eval "exec $fd>&-"; fi
    done
    as_owner "$PG_BIN/pg_ctl" -D "$DATA_DIR" -l "$LOG_FILE" -w -t 60 start >/dev/null
)

cmd_start() {
    [ -z "$DATA_DIR_NOTE" ] || echo "db.sh: $DATA_DIR_NOTE" >&2
    if is_running; then
        write_config
        provision
        return
    fi
    ensure_installed
    ensure_os_user
    init_cluster
    ensure_data_dir
    write_config
    remove_stale_pid
    if ! start_detached; then
        tail -n 20 "$LOG_FILE" >&2 || true
        die "postgres failed to start (is port $PORT taken?)"
    fi
    provision
    echo "db.sh: postgres running on $HOST:$PORT (data $DATA_DIR)" >&2
}

cmd_stop() {
    if is_running; then
        as_owner "$PG_BIN/pg_ctl" -D "$DATA_DIR" -m fast -w stop >/dev/null
        echo "db.sh: stopped" >&2
    else
        remove_stale_pid
    fi
}

# Postgres' immediate mode: every backend is ended at once and the next start recovers from the
# WAL, as after a crash. The fault tests use it to prove no acknowledged write is lost.
cmd_kill() {
    if is_running; then
        as_owner "$PG_BIN/pg_ctl" -D "$DATA_DIR" -m immediate -w stop >/dev/null
        echo "db.sh: stopped in immediate mode" >&2
    fi
}

cmd_status() {
    if is_running; then
        echo "running on $HOST:$PORT (data $DATA_DIR)"
    else
        echo "not running (data $DATA_DIR)"
        return 3
    fi
}

cmd_env() {
    echo "export RV_PG_HOST=$HOST"
    echo "export RV_PG_PORT=$PORT"
    echo "export RV_PG_DATABASE=$DATABASE"
    echo "export RV_PG_ADMIN_URL=postgresql://rv_admin:$ADMIN_PASSWORD@$HOST:$PORT/$DATABASE"
    local svc
    for svc in "${SERVICES[@]}"; do
        echo "export RV_PG_URL_${svc^^}=postgresql://rv_$svc:$(service_password "$svc")@$HOST:$PORT/$DATABASE"
    done
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    kill) cmd_kill ;;
    status) cmd_status ;;
    env) cmd_env ;;
    psql) shift; is_running || die "not running; run: $0 start"; admin_psql -d "$DATABASE" "$@" ;;
    *) echo "usage: $0 start|stop|kill|status|env|psql" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Local Postgres cluster for development and tests: no Docker, one data folder.
#
#   compose/local/db.sh start    install if missing, initdb once, start, provision roles/schemas
#   compose/local/db.sh stop     fast shutdown
#   compose/local/db.sh kill     immediate shutdown, as a crash (no checkpoint; recovery from WAL on start)
#   compose/local/db.sh status   exit 0 when running
#   compose/local/db.sh env      print export lines (host, port, database, one URL per service)
#   compose/local/db.sh psql     psql as the admin role over the cluster's unix socket
#   compose/local/db.sh backup   base backup (pg_basebackup) into <backups>/<UTC time>/, printed
#   compose/local/db.sh prune-archive
#                                drop archived WAL no restore can use (start does it too)
#   compose/local/db.sh restore TARGET_TIME
#                                point-in-time restore into a NEW cluster folder, left stopped;
#                                the running cluster is never touched (see README, "Backups")
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
#   RV_WAL_ARCHIVE_DIR       WAL archive folder        default <cluster folder>-wal-archive
#   RV_BACKUP_DIR            base backups' folder      default <cluster folder>-backups
#   RV_BACKUP_KEEP           base backups kept         default 7 (older ones and their WAL go)
#   RV_RESTORE_DIR           restore's new cluster     default <cluster folder>-restored-<UTC time>
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
# The WAL archive's archive_command and restore_command: one place, shared with compose.
source "$REPO/compose/postgres/wal-archive.sh"
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
# Beside the cluster's folder, never inside it (a base backup copies the cluster's folder whole).
# Put them on another disk (these variables) to survive losing the cluster's.
ARCHIVE_DIR="${RV_WAL_ARCHIVE_DIR:-$DATA_DIR-wal-archive}"
BACKUP_DIR="${RV_BACKUP_DIR:-$DATA_DIR-backups}"

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

# A folder of the cluster's owner beside the data (the WAL archive, base backups), 0700.
ensure_owned_dir() {
    mkdir -p "$1"
    if [ "$(id -u)" = 0 ]; then
        chown "$OS_USER:" "$1"
        runuser -u "$OS_USER" -- test -w "$1" || die "$OS_USER cannot write to $1 (a parent folder lacks o+x)"
    fi
    chmod 700 "$1"
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
    local wanted archive_command
    ensure_owned_dir "$ARCHIVE_DIR"
    archive_command="$(rv_archive_command "$ARCHIVE_DIR")" || die "cannot archive into $ARCHIVE_DIR"
    wanted="$(cat <<EOF
# Written by compose/local/db.sh on every start; edit the script, not this file.
listen_addresses = '$HOST'
port = $PORT
unix_socket_directories = '$DATA_DIR'
max_connections = 300
# Sized for a machine that runs the services beside Postgres: the default 128MB made busy backends
# evict dirty pages themselves and, with max_wal_size at 1GB, a checkpoint came every half minute
# under load, each followed by full-page images of every page touched again.
shared_buffers = 1GB
max_wal_size = 8GB
checkpoint_timeout = 15min
wal_compression = on
# An OK answer means the write survived a crash. (make test relaxes this for its own sessions
# only, with PGOPTIONS.)
synchronous_commit = on
log_min_messages = warning
log_min_error_statement = panic
timezone = 'UTC'
# Continuous archiving (make backup, make restore): every finished WAL segment is copied into the
# archive, and a segment with writes is finished at least every archive_timeout.
wal_level = replica
archive_mode = on
archive_command = '$archive_command'
archive_timeout = 60
EOF
)"
    if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$wanted" ]; then
        printf '%s\n' "$wanted" | as_owner tee "$conf" >/dev/null
        # A running cluster takes synchronous_commit and archive_command on reload (port,
        # addresses and archive_mode need a restart, which it says).
        if is_running; then
            as_owner "$PG_BIN/pg_ctl" -D "$DATA_DIR" reload >/dev/null
            sleep 0.2
            local pending
            pending="$(admin_psql -d postgres -Atc "SELECT string_agg(name, ', ') FROM pg_settings WHERE pending_restart")"
            [ -z "$pending" ] || echo "db.sh: the cluster applies $pending at its next restart ($0 stop; $0 start)" >&2
        fi
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
    as_owner "$PG_BIN/pg_ctl" -D "$DATA_DIR" -l "$LOG_FILE" -w -t 60 "$@" start >/dev/null
)

cmd_start() {
    [ -z "$DATA_DIR_NOTE" ] || echo "db.sh: $DATA_DIR_NOTE" >&2
    if is_running; then
        write_config
        provision
        cmd_prune_archive
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
    cmd_prune_archive
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

# Nanoseconds since the epoch, now.
now_ns() { date +%s%N; }
# Seconds with two decimals between two now_ns readings.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }

# The archive must hold every write up to now (restore's target may be seconds ago): a commit,
# so that recovery finds a transaction after any earlier target, then a switch to a new segment,
# and a wait until the archiver has copied the finished one.
archive_now() {
    local segment waited=0
    segment="$(admin_psql -d postgres -Atc "SELECT pg_current_xact_id()" -c "SELECT pg_walfile_name(pg_switch_wal())" | tail -n1)"
    while [ ! -f "$ARCHIVE_DIR/$segment" ]; do
        [ "$waited" -lt 600 ] || die "WAL segment $segment was not archived within 60 s (see $LOG_FILE)"
        sleep 0.1
        waited=$((waited + 1))
    done
}

# A base backup of the running cluster: pg_basebackup over the unix socket into
# $BACKUP_DIR/<UTC time>/data, without WAL of its own (-X none): pg_basebackup returns only once
# the archive holds all the WAL the backup needs, so a backup that finished is restorable from
# the archive. `finished` records when (restore picks the newest backup finished before its
# target). Then only the newest RV_BACKUP_KEEP backups stay, and the archive keeps the WAL from
# the oldest of them on.
cmd_backup() {
    is_running || die "not running; run: $0 start"
    [ "$(admin_psql -d postgres -Atc 'SHOW archive_mode')" = on ] ||
        die "archive_mode is off until the cluster restarts ($0 stop; $0 start): a base backup without an archive cannot be restored to a point in time"
    local failing
    failing="$(admin_psql -d postgres -Atc "SELECT last_failed_wal FROM pg_stat_archiver WHERE last_failed_time > coalesce(last_archived_time, '-infinity')")"
    [ -z "$failing" ] || die "archiving fails (segment $failing, see $LOG_FILE): the backup would wait for it forever"
    ensure_owned_dir "$BACKUP_DIR"
    lock_backups
    local stamp folder started finished
    stamp="$(date -u +%Y%m%dT%H%M%SZ)"
    folder="$BACKUP_DIR/$stamp"
    [ ! -e "$folder" ] || die "$folder exists already (one backup a second)"
    ensure_owned_dir "$folder"
    started="$(now_ns)"
    # (The server's notes on the socket it skips and on the archive are expected: not shown.)
    as_owner "$PG_BIN/pg_basebackup" -h "$DATA_DIR" -p "$PORT" -U rv_admin -D "$folder/data" \
        --wal-method=none --checkpoint=fast --label="rendezvous $stamp" \
        2> >(grep -vE 'skipping special file "\./\.s\.PGSQL|all required WAL segments have been archived' >&2) ||
        { rm -rf "$folder"; die "pg_basebackup failed"; }
    finished="$(now_ns)"
    # The copied log is the source cluster's: a restored cluster starts one of its own.
    rm -f "$folder/data/server.log"
    printf '%s\n' "$finished" | as_owner tee "$folder/finished" >/dev/null
    echo "db.sh: base backup of $(du -sh "$folder/data" | cut -f1) in $(elapsed "$started" "$finished") s" >&2
    prune_archive
    echo "$folder"
}

# Holds the backups' lock until the script exits: one backup or archive pruning at a time, so a
# pruning never removes the first segments of a backup under way.
lock_backups() {
    [ -e "$BACKUP_DIR/.lock" ] || as_owner touch "$BACKUP_DIR/.lock"
    exec {BACKUPS_LOCK}<"$BACKUP_DIR/.lock"
    flock "$BACKUPS_LOCK"
}

# Drops the archived WAL no restore can use (`prune-archive`, and `start`).
cmd_prune_archive() {
    is_running || die "not running; run: $0 start"
    ensure_owned_dir "$BACKUP_DIR"
    lock_backups
    prune_archive
}

# With finished base backups, keeps the newest RV_BACKUP_KEEP and the archive's WAL from the oldest
# of them on. With none, no restore has a start, and a backup taken later needs only the WAL from
# its own start, which is at or after the latest checkpoint's REDO point: the segments before that
# one go. Without this a cluster never backed up (a developer's, the benchmarks') kept every
# segment it ever wrote. The caller holds the backups' lock.
prune_archive() {
    local keep="${RV_BACKUP_KEEP:-7}" backups=() folder oldest
    for folder in "$BACKUP_DIR"/*/; do
        folder="${folder%/}"
        [ -f "$folder/finished" ] && backups+=("$folder")
    done
    if [ "${#backups[@]}" -eq 0 ]; then
        # A pg_basebackup run by hand (not through this script's lock) needs the WAL from its start.
        [ "$(admin_psql -d postgres -Atc 'SELECT count(*) FROM pg_stat_progress_basebackup')" = 0 ] || return 0
        oldest="$(admin_psql -d postgres -Atc 'SELECT redo_wal_file FROM pg_control_checkpoint()')"
        [[ "$oldest" =~ ^[0-9A-F]{24}$ ]] || die "cannot read the latest checkpoint's REDO segment: $oldest"
    else
        [[ "$keep" =~ ^[1-9][0-9]*$ ]] || die "RV_BACKUP_KEEP must be a positive number: $keep"
        while [ "${#backups[@]}" -gt "$keep" ]; do
            echo "db.sh: removing base backup ${backups[0]} (RV_BACKUP_KEEP=$keep)" >&2
            rm -rf "${backups[0]}"
            backups=("${backups[@]:1}")
        done
        oldest="$(sed -n 's/^START WAL LOCATION: .* (file \([0-9A-F]\{24\}\))$/\1/p' "${backups[0]}/data/backup_label")"
    fi
    if [ -n "$oldest" ]; then as_owner "$PG_BIN/pg_archivecleanup" "$ARCHIVE_DIR" "$oldest"; fi
}

# Point-in-time restore into a new cluster folder, from the newest base backup that finished
# before the target and the archive's WAL, replayed up to the target time (every transaction
# committed at or before it, none after), then promoted: a cluster of its own, on a timeline of
# its own, left stopped. The running cluster, its folder and its archive are only read.
cmd_restore() {
    local target="${1:-}"
    [ -n "$target" ] || die "usage: $0 restore TARGET_TIME   (e.g. '2026-11-27 19:05:00Z', '10 minutes ago'; no zone: the machine's)"
    local target_ns target_pg
    target_ns="$(date -d "$target" +%s%N 2>/dev/null)" || die "TARGET_TIME '$target' is not a time date(1) can read"
    [ "$target_ns" -le "$(now_ns)" ] || die "TARGET_TIME '$target' is in the future"
    # To the microsecond, as Postgres keeps commit times.
    target_pg="$(date -u -d "@${target_ns:0:-9}.${target_ns: -9}" '+%Y-%m-%d %H:%M:%S.%6N+00')"

    local folder backup=""
    # No pruning while the backup and the archive are read.
    if [ -d "$BACKUP_DIR" ]; then lock_backups; fi
    for folder in "$BACKUP_DIR"/*/; do
        folder="${folder%/}"
        [ -f "$folder/finished" ] && [ "$(cat "$folder/finished")" -lt "$target_ns" ] && backup="$folder"
    done
    [ -n "$backup" ] || die "no base backup in $BACKUP_DIR finished before $target_pg (make backup takes one)"

    local source_archive="$ARCHIVE_DIR" new
    new="${RV_RESTORE_DIR:-$DATA_DIR-restored-$(date -u +%Y%m%dT%H%M%SZ)}"
    [ ! -e "$new" ] || [ -z "$(ls -A "$new")" ] || die "$new exists and is not empty"
    local started
    started="$(now_ns)"
    if is_running; then archive_now; fi

    # From here on the commands act on the new cluster: its own folder and its own archive
    # (its timeline's WAL must never land in the archive it was restored from).
    DATA_DIR="$new"
    LOG_FILE="$DATA_DIR/server.log"
    ARCHIVE_DIR="$new-wal-archive"
    ensure_data_dir
    as_owner cp -a "$backup/data/." "$DATA_DIR/"
    # The socket's lock file (the socket lives in the cluster's folder, which the backup copied)
    # would stop the restored cluster from starting.
    rm -f "$DATA_DIR"/.s.PGSQL.*.lock
    write_config
    as_owner touch "$DATA_DIR/recovery.signal"
    as_owner tee -a "$DATA_DIR/postgresql.auto.conf" >/dev/null <<EOF
restore_command = '$(rv_restore_command "$source_archive")'
recovery_target_time = '$target_pg'
recovery_target_action = 'promote'
EOF
    # Only its own socket, in its folder, while it recovers: no port to collide with.
    local failed=""
    if ! start_detached -t 3600 -o "-c listen_addresses=''"; then
        failed=1
    else
        until [ "$(admin_psql -d postgres -Atc 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ]; do
            if ! is_running; then failed=1; break; fi
            sleep 0.2
        done
    fi
    if [ -n "$failed" ]; then
        grep -E 'FATAL|PANIC' "$LOG_FILE" | tail -n 5 >&2 || true
        if grep -q 'recovery ended before configured recovery target was reached' "$LOG_FILE"; then
            echo "db.sh: the archive $source_archive ends before $target_pg: choose an earlier time (or start the cluster, whose newest WAL restore archives first)" >&2
        fi
        as_owner "$PG_BIN/pg_ctl" -D "$DATA_DIR" -m immediate -w stop >/dev/null 2>&1 || true
        rm -rf "$DATA_DIR" "$ARCHIVE_DIR"
        die "restore to $target_pg failed; $DATA_DIR removed"
    fi
    # Promoted. Every schema with a `restored_to(timestamptz)` hook learns the target, in every
    # database: messaging's stops the pushes the discarded timeline most likely sent already
    # (PushMigrations.restoreHorizon) from going out twice.
    local database schema
    for database in $(admin_psql -d postgres -Atc "SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate"); do
        for schema in $(admin_psql -d "$database" -Atc "SELECT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                                                          WHERE p.proname = 'restored_to' AND p.proargtypes = '1184'::oidvector"); do
            echo "SELECT $schema.restored_to(:'target')" | admin_psql -d "$database" -v target="$target_pg" >/dev/null
            echo "db.sh: told $database's $schema it was restored to $target_pg" >&2
        done
    done
    # The recovery settings go (ALTER SYSTEM rewrites postgresql.auto.conf), it stops.
    admin_psql -d postgres -c "ALTER SYSTEM RESET restore_command" -c "ALTER SYSTEM RESET recovery_target_time" \
        -c "ALTER SYSTEM RESET recovery_target_action"
    as_owner "$PG_BIN/pg_ctl" -D "$DATA_DIR" -m fast -w stop >/dev/null
    echo "db.sh: restored $(basename "$backup") and the archive up to $target_pg in $(elapsed "$started" "$(now_ns)") s into $DATA_DIR (stopped)." >&2
    echo "db.sh: look at it beside the running cluster: RV_DATA_DIR=$DATA_DIR RV_PG_PORT=<another port> bash $0 start" >&2
    echo "db.sh: the running cluster was not touched; to switch to the restored one, see README.md, \"Backups\"" >&2
    echo "$DATA_DIR"
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    kill) cmd_kill ;;
    status) cmd_status ;;
    env) cmd_env ;;
    psql) shift; is_running || die "not running; run: $0 start"; admin_psql -d "$DATABASE" "$@" ;;
    backup) cmd_backup ;;
    prune-archive) cmd_prune_archive ;;
    restore) cmd_restore "${2:-}" ;;
    *) echo "usage: $0 start|stop|kill|status|env|psql|backup|prune-archive|restore TARGET_TIME" >&2; exit 2 ;;
esac

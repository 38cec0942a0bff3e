#!/usr/bin/env bash
# The Postgres image's entry point (compose/Dockerfile, stage postgres): Debian's PostgreSQL 15
# with PostGIS, started as the postgres user. It keeps the official postgres images' contract,
# so docker-compose.yml reads the same with either: on an empty $PGDATA it runs initdb with
# POSTGRES_USER (postgres) / POSTGRES_PASSWORD (scram-sha-256 for every connection but the local
# socket), creates POSTGRES_DB and runs /docker-entrypoint-initdb.d/*.sh and *.sql against it
# with a server listening only on its socket; then it runs postgres in the foreground.
# With RV_WAL_ARCHIVE_DIR set (docker-compose.yml sets it to its WAL archive volume), postgres
# archives every finished WAL segment there with the local cluster's archive_command
# (/etc/rendezvous/wal-archive.sh, compose/postgres/wal-archive.sh): the official images know no
# such variable, so with postgis/postgis standing in nothing is archived.
set -euo pipefail
: "${PGDATA:=/var/lib/postgresql/data}"
export PGDATA
bin=/usr/lib/postgresql/15/bin
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "entrypoint: POSTGRES_PASSWORD is not set" >&2; exit 1; }
    pwfile="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    "$bin/initdb" -D "$PGDATA" --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
        --encoding=UTF8 --locale=C.UTF-8 >/dev/null
    rm -f "$pwfile"
    {
        echo "listen_addresses = '*'"
        echo "unix_socket_directories = '/var/run/postgresql'"
    } >>"$PGDATA/postgresql.conf"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    "$bin/pg_ctl" -D "$PGDATA" -w -o "-c listen_addresses=''" start >/dev/null
    [ "$db" = postgres ] || psql -v ON_ERROR_STOP=1 -X -q -U "$user" -d postgres -c "CREATE DATABASE \"$db\""
    export POSTGRES_USER="$user" POSTGRES_DB="$db"
    for f in /docker-entrypoint-initdb.d/*; do
        case "$f" in
            *.sh) echo "entrypoint: running $f"; bash "$f" ;;
            *.sql) echo "entrypoint: running $f"; psql -v ON_ERROR_STOP=1 -X -q -U "$user" -d "$db" -f "$f" ;;
        esac
    done
    "$bin/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
    echo "entrypoint: initialised $PGDATA"
fi
archive=()
if [ -n "${RV_WAL_ARCHIVE_DIR:-}" ]; then
    source /etc/rendezvous/wal-archive.sh
    mkdir -p "$RV_WAL_ARCHIVE_DIR"
    command="$(rv_archive_command "$RV_WAL_ARCHIVE_DIR")"
    archive=(-c wal_level=replica -c archive_mode=on -c "archive_command=$command" -c archive_timeout=60)
fi
exec "$bin/postgres" -D "$PGDATA" "${archive[@]}" "$@"

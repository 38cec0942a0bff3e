#!/usr/bin/env bash
# Runs once, when the postgis/postgis container initialises an empty data volume
# (/docker-entrypoint-initdb.d): one login role and one schema per service, from the same list
# and SQL as compose/local/db.sh (service-roles.sh, mounted at /etc/rendezvous/service-roles.sh).
# Passwords come from RV_PG_PASSWORD_<SERVICE> (docker-compose.yml passes them; required, except
# for the tests' testsvc).
set -euo pipefail
source "${RV_SERVICE_ROLES_LIB:-/etc/rendezvous/service-roles.sh}"
db="${POSTGRES_DB:?}"
args=()
services=()
for svc in "${RV_SCHEMA_SERVICES[@]}"; do
    var="RV_PG_PASSWORD_${svc^^}"
    password="${!var:-}"
    if [ -z "$password" ]; then
        [ "$svc" = testsvc ] && continue
        echo "10-service-roles.sh: $var is not set" >&2
        exit 1
    fi
    args+=(-v "pw_$svc=$password")
    services+=("$svc")
done
rv_service_roles_sql "$db" "${services[@]}" |
    psql -v ON_ERROR_STOP=1 -X -q --username "${POSTGRES_USER:-postgres}" --dbname "$db" "${args[@]}"

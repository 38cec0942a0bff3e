#!/usr/bin/env bash
# Runs once, when the postgis/postgis container initialises an empty data volume
# (/docker-entrypoint-initdb.d): one login role and one schema per service, each role owning its
# schema and nothing else, as compose/local/db.sh does for the local cluster. Passwords come
# from RV_PG_PASSWORD_<SERVICE> (docker-compose.yml passes them; required).
set -euo pipefail
services=(identity discovery messaging production media testsvc)
db="${POSTGRES_DB:?}"
args=()
sql="REVOKE ALL ON DATABASE \"$db\" FROM PUBLIC;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO PUBLIC;
CREATE EXTENSION IF NOT EXISTS postgis SCHEMA public;
"
for svc in "${services[@]}"; do
    var="RV_PG_PASSWORD_${svc^^}"
    password="${!var:-}"
    if [ -z "$password" ]; then
        [ "$svc" = testsvc ] && continue
        echo "10-service-roles.sh: $var is not set" >&2
        exit 1
    fi
    args+=(-v "pw_$svc=$password")
    sql+="SELECT 'CREATE ROLE rv_$svc LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'rv_$svc') \\gexec
ALTER ROLE rv_$svc WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD :'pw_$svc';
ALTER ROLE rv_$svc SET search_path = $svc, public;
GRANT CONNECT, TEMPORARY ON DATABASE \"$db\" TO rv_$svc;
CREATE SCHEMA IF NOT EXISTS $svc AUTHORIZATION rv_$svc;
REVOKE ALL ON SCHEMA $svc FROM PUBLIC;
"
done
printf '%s' "$sql" | psql -v ON_ERROR_STOP=1 -X -q --username "${POSTGRES_USER:-postgres}" --dbname "$db" "${args[@]}"

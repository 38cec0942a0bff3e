# The one list of services that own a schema, and the SQL that gives each its login role and
# schema: sourced by compose/local/db.sh (the local cluster) and by 10-service-roles.sh (the
# postgis container's first start). Each role rv_<service> owns schema <service> and has no
# rights on any other schema.
RV_SCHEMA_SERVICES=(identity discovery messaging production media testsvc)

# Prints the SQL for database $1 and the services named after it (all by default); psql runs it
# with one variable pw_<service> per service holding its password (-v pw_identity=...).
rv_service_roles_sql() {
    local db=$1 svc
    shift
    [ $# -gt 0 ] || set -- "${RV_SCHEMA_SERVICES[@]}"
    printf '%s\n' "REVOKE ALL ON DATABASE \"$db\" FROM PUBLIC;" \
        "REVOKE CREATE ON SCHEMA public FROM PUBLIC;" \
        "GRANT USAGE ON SCHEMA public TO PUBLIC;" \
        "CREATE EXTENSION IF NOT EXISTS postgis SCHEMA public;" \
        "CREATE EXTENSION IF NOT EXISTS btree_gist SCHEMA public;"
    for svc in "$@"; do
        printf '%s\n' "SELECT 'CREATE ROLE rv_$svc LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'rv_$svc') \\gexec" \
            "ALTER ROLE rv_$svc WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD :'pw_$svc';" \
            "ALTER ROLE rv_$svc SET search_path = $svc, public;" \
            "GRANT CONNECT, TEMPORARY ON DATABASE \"$db\" TO rv_$svc;" \
            "CREATE SCHEMA IF NOT EXISTS $svc AUTHORIZATION rv_$svc;" \
            "ALTER SCHEMA $svc OWNER TO rv_$svc;" \
            "REVOKE ALL ON SCHEMA $svc FROM PUBLIC;"
    done
}

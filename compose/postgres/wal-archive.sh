# The WAL archive's commands, in one place: sourced by compose/local/db.sh (the local cluster:
# archiving, `make backup`, `make restore`) and by the Postgres image's entry point
# (compose/postgres/entrypoint.sh, which docker-compose.yml gives it at /etc/rendezvous/wal-archive.sh).

# Prints the archive_command that copies a finished WAL segment into folder $1. A segment is
# written under a temporary name, flushed, then renamed, so the archive never holds half a
# segment; a name already archived is never overwritten: the command succeeds when the file there
# is identical (an archiver retrying after a crash) and fails otherwise, as the Postgres docs'
# `test ! -f` pattern does (a second cluster writing into the same archive must not destroy it).
rv_archive_command() {
    local dir=$1
    rv_archive_check_path "$dir" || return 1
    printf '%s' "f=\"$dir/%f\"; if test -f \"\$f\"; then cmp -s \"%p\" \"\$f\"; else cp \"%p\" \"\$f.tmp\" && sync \"\$f.tmp\" && mv \"\$f.tmp\" \"\$f\" && sync \"$dir\"; fi"
}

# Prints the restore_command that reads WAL back from archive folder $1 during recovery.
rv_restore_command() {
    local dir=$1
    rv_archive_check_path "$dir" || return 1
    printf '%s' "cp \"$dir/%f\" \"%p\""
}

# The commands run through /bin/sh inside a quoted postgresql.conf string: a folder whose name
# has quotes, `$`, `\`, `%` or a backquote cannot be written into them safely.
rv_archive_check_path() {
    case "$1" in
        /*) ;;
        *) echo "wal-archive.sh: the archive folder must be an absolute path: $1" >&2; return 1 ;;
    esac
    case "$1" in
        *[\'\"\$\\%\`]*) echo "wal-archive.sh: the archive folder's name has a character the commands cannot quote: $1" >&2; return 1 ;;
    esac
}

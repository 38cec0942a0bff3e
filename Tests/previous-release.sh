#!/usr/bin/env bash
# Builds the release of one service that ran before its newest migration, for the upgrade tests
# (EndToEndUpgradeTests; compose/SCALING.md, "Upgrades without downtime"): that binary must
# serve on the schema the current one migrated, alone and beside it.
#
# The previous release is the first parent of the newest commit on this branch's first-parent
# line (on main: the merge) that added a migration to the service (more `Migration(version:`
# under Services/<Name>/ than that parent had), so the release main ran before it; or
# RV_PREVIOUS_RELEASE (a commit) when set. Only the service's product is built, from a copy of
# that commit's tree kept under .build/previous-release/<service>/, where both the copy and the
# build stay between runs: the same commit again costs a git call, a newer one only what changed.
#
#   Tests/previous-release.sh discovery     prints the built executable's path
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
service="${1:?usage: previous-release.sh <service>}"
folder="$(tr '[:lower:]' '[:upper:]' <<<"${service:0:1}")${service:1}"
[ -d "Services/$folder" ] || { echo "previous-release.sh: no Services/$folder" >&2; exit 2; }

# How many migrations commit $1 declares for the service (0 when it had none yet).
migrations() {
    git grep -h -o 'Migration(version' "$1" -- "Services/$folder" 2>/dev/null | wc -l
}

commit="${RV_PREVIOUS_RELEASE:-}"
if [ -z "$commit" ]; then
    for candidate in $(git log --first-parent --format=%H -- "Services/$folder"); do
        if ! git rev-parse -q --verify "$candidate^" >/dev/null; then
            [ "$(git rev-parse --is-shallow-repository)" = true ] &&
                echo "previous-release.sh: a shallow clone lacks the history; git fetch --unshallow" >&2
            break
        fi
        if [ "$(migrations "$candidate")" -gt "$(migrations "$candidate^")" ]; then
            commit="$(git rev-parse "$candidate^")"
            break
        fi
    done
    [ -n "$commit" ] || { echo "previous-release.sh: no commit added a migration to $service" >&2; exit 2; }
fi
commit="$(git rev-parse --verify "$commit^{commit}")"

cache=".build/previous-release/$service"
mkdir -p "$cache/src"
cache="$(cd "$cache" && pwd)"
executable="$cache/scratch/debug/$service"
if [ "$(cat "$cache/built" 2>/dev/null)" = "$commit" ] && [ -x "$executable" ]; then
    echo "$executable"
    exit 0
fi

# The commit's tree through an index of the cache's own: a file unchanged since the last copy
# is not rewritten, so the build stays incremental.
GIT_INDEX_FILE="$cache/index" git --work-tree="$cache/src" read-tree --reset -u "$commit"
rm -f "$cache/built"
started=$SECONDS
echo "previous-release.sh: building $service at $(git log -1 --format='%h (%cs) %s' "$commit" | cut -c1-100)" >&2
"$SWIFT" build --package-path "$cache/src" --scratch-path "$cache/scratch" --product "$service" >"$cache/build.log" 2>&1 || {
    tail -40 "$cache/build.log" >&2
    echo "previous-release.sh: the build of $service at $commit failed (log: $cache/build.log)" >&2
    exit 1
}
echo "$commit" >"$cache/built"
echo "previous-release.sh: built $service at ${commit:0:7} in $((SECONDS - started)) s" >&2
echo "$executable"

#!/usr/bin/env bash
# make test's Swift tests, built beforehand: two `swift test` processes side by side, each
# running its tests one at a time, as they must. Several tests block on raw sockets or child
# processes; within one process that would hold Swift's cooperative threads (two on a 2-core
# machine) and starve the timers of tests beside it, so parallelism comes from processes, each
# with threads of its own. One process keeps the 2-core machine about 40% busy (tests wait on
# services, Postgres, children): two use it.
#
# Each shard has a database of its own in the local cluster (suites share a service's schema
# and its queues, e.g. messaging's push jobs, and guard that only within their process) and a
# slice of the test ports of its own (RV_TEST_SHARD, see LocalPort). The heaviest targets,
# the end-to-end stacks of the gateway client and messaging, and the CLI's, are one shard; the
# rest the other: about even.
#
#   Tests/run-swift-tests.sh [swift test options...]    e.g. --filter PushTests
# With options, one process runs the tests they choose (on the first shard's database).
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
FIRST='^(GatewayClientTests|MessagingTests|CLITests)\.'
DATABASE_PREFIX="${RV_PG_DATABASE:-rendezvous}_tests"

for index in 1 2; do
    RV_PG_DATABASE="${DATABASE_PREFIX}_$index" bash compose/local/db.sh start || exit 1
done

if [ $# -gt 0 ]; then
    RV_PG_DATABASE="${DATABASE_PREFIX}_1" exec "$SWIFT" test --skip-build --no-parallel "$@"
fi

logs="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$logs"' EXIT
shard() {
    local index="$1" status attempt
    shift
    # Both processes open the build's database as they start; SQLite refuses one now and then
    # ("unable to attach DB: … database is locked", before any test ran): that one starts again.
    for attempt in 1 2 3; do
        RV_PG_DATABASE="${DATABASE_PREFIX}_$index" RV_TEST_SHARD="$index/2" \
            "$SWIFT" test --skip-build --ignore-lock --no-parallel "$@" >"$logs/$index.log" 2>&1
        status=$?
        [ "$status" != 0 ] && grep -q 'unable to attach DB' "$logs/$index.log" &&
            ! grep -q 'Test run started' "$logs/$index.log" || break
        echo "run-swift-tests: shard $index found the build database locked; starting it again" >&2
        sleep "$attempt"
    done
    echo "$status" >"$logs/$index.status"
}
started=$SECONDS
shard 1 --filter "$FIRST" &
shard 2 --skip "$FIRST" &
echo "run-swift-tests: two shards started (logs follow as each ends)"

# Each shard's output whole, in the order they end.
failed=0
for _ in 1 2; do
    wait -n
    for index in 1 2; do
        if [ -f "$logs/$index.status" ] && [ ! -f "$logs/$index.shown" ]; then
            touch "$logs/$index.shown"
            echo "━━━━ shard $index of 2: exit $(cat "$logs/$index.status") after $((SECONDS - started)) s ━━━━"
            cat "$logs/$index.log"
            [ "$(cat "$logs/$index.status")" = 0 ] || failed=1
        fi
    done
done
trap 'rm -rf "$logs"' EXIT
for index in 1 2; do
    echo "shard $index: $(grep -E '(Test run with|error:)' "$logs/$index.log" | tail -n 1)"
done
exit "$failed"

#!/usr/bin/env bash
# Builds the Wire libFuzzer target (decoder + deframer) and runs it for ${FUZZ_SECONDS:-60}s.
# Exits non-zero if the fuzzer found a crash; crashing inputs land in fuzz-artifacts/wire/.
set -euo pipefail
cd "$(dirname "$0")/../.."

SWIFTC=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
BIN=.build/wire-fuzz
SRC=.build/fuzz-src/wire
CORPUS=.build/fuzz-corpus/wire
ARTIFACTS=fuzz-artifacts/wire
LOG=.build/wire-fuzz.log

rm -rf "$SRC"
mkdir -p "$SRC" "$CORPUS" "$ARTIFACTS"
# Wire, the test fixtures and the fuzz entry point compile as one module, so the fixtures'
# `import Wire` goes.
for file in Tests/WireTests/Fixtures/*.swift; do
    sed '/^import Wire$/d' "$file" > "$SRC/$(basename "$file")"
done

"$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -g \
    -swift-version 6 -enable-upcoming-feature InternalImportsByDefault \
    Shared/Wire/*.swift "$SRC"/*.swift Tests/Fuzz/WireFuzz.swift \
    -module-name WireFuzz -o "$BIN"

if [ -z "$(ls -A "$CORPUS")" ]; then
    WIRE_FUZZ_WRITE_SEEDS="$CORPUS" "$BIN"
fi

before=$(ls "$ARTIFACTS" | wc -l)
set +e
"$BIN" "$CORPUS" -max_total_time="$FUZZ_SECONDS" -artifact_prefix="$ARTIFACTS/" \
    -print_final_stats=1 -rss_limit_mb=2048 -max_len=8192 "$@" 2>&1 | tee "$LOG"
status=${PIPESTATUS[0]}
set -e
after=$(ls "$ARTIFACTS" | wc -l)

if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
    echo "wire fuzzer found a problem (exit $status); inputs in $ARTIFACTS/" >&2
    exit 1
fi
echo "wire fuzzer: no crashes in ${FUZZ_SECONDS}s"

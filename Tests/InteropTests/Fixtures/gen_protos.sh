#!/usr/bin/env bash
# Compile proto-docs/ for the Python interop fixtures and check that every .proto
# under proto-docs/ compiles with protoc.
#   usage: gen_protos.sh [OUT_DIR]   (default: Tests/InteropTests/Fixtures/gen)
# Output: Python modules (*_pb2.py, *_pb2_grpc.py) under OUT_DIR, e.g.
# OUT_DIR/grpc/testing/test_pb2_grpc.py. They import each other as grpc.testing.*,
# so interop_common.load_protos() adds OUT_DIR/grpc to grpcio's package path.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
src="$root/proto-docs"
out="${1:-$here/gen}"
py="${PYTHON:-python3}"

mapfile -t protos < <(cd "$src" && find . -name '*.proto' | sed 's|^\./||' | LC_ALL=C sort)
[ "${#protos[@]}" -gt 0 ] || { echo "gen_protos: no .proto under $src" >&2; exit 1; }

wkt="$("$py" -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')"

# 1. Every .proto compiles with protoc (Debian's protobuf-compiler if present).
check="$(mktemp -d)"; trap 'rm -rf "$check"' EXIT
if command -v protoc >/dev/null 2>&1; then
  protoc -I "$src" -I "$wkt" --descriptor_set_out="$check/all.pb" --include_imports "${protos[@]}"
else
  "$py" -m grpc_tools.protoc -I "$src" --descriptor_set_out="$check/all.pb" --include_imports "${protos[@]}"
fi

# 2. Python stubs, regenerated from scratch.
rm -rf "$out"; mkdir -p "$out"
"$py" -m grpc_tools.protoc -I "$src" --python_out="$out" --grpc_python_out="$out" "${protos[@]}"
echo "gen_protos: ${#protos[@]} protos -> $out"

#!/usr/bin/env bash
# Regenerates the Swift contracts from proto-docs/ with protoc-gen-rendezvous (`make generate`).
#   usage: generate.sh [PLUGIN] [OUT_ROOT]
#     PLUGIN    the built plugin (default .build/debug/protoc-gen-rendezvous)
#     OUT_ROOT  where Shared/… is written (default: this repository; the tests pass a temp dir)
# Output, one .pb.swift per .proto:
#   Shared/ContractTypes/Generated/<proto path>  every service's messages, enums and typed clients
#                                            (module ContractTypes: Wire and RPCCore only, what an app needs)
#   Shared/Contracts/Generated/<proto path>  every service's server side, `.server.pb.swift`
#                                            (module Contracts: the providers over RPC's server)
#   Shared/RPC/Generated/<proto path>        grpc.health.v1, served by every server (module RPC)
#   Shared/Runtime/Generated/<proto path>    OTLP's trace service (opentelemetry/proto), what the
#                                            services export spans with (module Runtime, enum OTLP)
#   Tests/ProtocGenTests/Generated/…          the generator's golden output, from its fixture
# google/* are the standard types; rendezvous/options/v1 holds options the generator reads.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
plugin="${1:-$root/.build/debug/protoc-gen-rendezvous}"
out="${2:-$root}"
src="$root/proto-docs"

[ -x "$plugin" ] || { echo "generate.sh: no plugin at $plugin (swift build --product protoc-gen-rendezvous)" >&2; exit 1; }
command -v protoc >/dev/null || { echo "generate.sh: protoc missing (apt-get install protobuf-compiler)" >&2; exit 1; }
# descriptor.proto (imported by the options) comes with protoc's standard includes; Debian
# ships them in libprotobuf-dev, grpcio-tools in its own folder.
includes=(-I "$src")
if [ ! -f /usr/include/google/protobuf/descriptor.proto ]; then
  wkt="$(python3 -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')"
  includes+=(-I "$wkt")
fi

generate() { # generate SOURCE_DIR OUT_DIR OPTIONS PROTO...
  local from="$1" dir="$2" options="$3"; shift 3
  rm -rf "$dir"; mkdir -p "$dir"
  (cd "$from" && protoc -I "$from" "${includes[@]}" --plugin=protoc-gen-rendezvous="$plugin" \
      --rendezvous_out="$dir" --rendezvous_opt="$options" "$@")
}

mapfile -t contracts < <(cd "$src" && find . -name '*.proto' ! -path './google/*' ! -path './grpc/health/*' \
  ! -path './rendezvous/options/*' ! -path './opentelemetry/*' | sed 's|^\./||' | LC_ALL=C sort)
generate "$src" "$out/Shared/ContractTypes/Generated" \
  "Module=ContractTypes,Part=types,Namespace=grpc.testing:GRPCTesting,Registry=ContractsMessageTypes" "${contracts[@]}"
generate "$src" "$out/Shared/Contracts/Generated" \
  "Module=Contracts,Part=server,Import=ContractTypes,Namespace=grpc.testing:GRPCTesting" "${contracts[@]}"
generate "$src" "$out/Shared/RPC/Generated" "Module=RPC,Visibility=package,Namespace=grpc.health.v1:,Registry=RPCMessageTypes" \
  grpc/health/v1/health.proto
otlp=(Module=Runtime Visibility=package Registry=OTLPMessageTypes)
for package in common.v1 resource.v1 trace.v1 collector.trace.v1; do otlp+=("Namespace=opentelemetry.proto.$package:OTLP"); done
generate "$src" "$out/Shared/Runtime/Generated" "$(IFS=,; echo "${otlp[*]}")" \
  opentelemetry/proto/common/v1/common.proto opentelemetry/proto/resource/v1/resource.proto \
  opentelemetry/proto/trace/v1/trace.proto opentelemetry/proto/collector/trace/v1/trace_service.proto
generate "$root/Tests/ProtocGenTests/Fixtures" "$out/Tests/ProtocGenTests/Generated" \
  "Visibility=package,Import=Contracts,Registry=EverythingMessageTypes" everything.proto

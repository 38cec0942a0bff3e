#!/usr/bin/env python3
"""A stand-in OTLP/gRPC collector: grpcio serving opentelemetry-proto's TraceService.

  otlp_receiver.py [--out FILE] [--port N]

Prints "LISTENING <port>" once serving, then appends one JSON object per received span to
FILE (ids as lowercase hex, the resource's and the span's attributes as plain values), so a
test reads what arrived over the wire, decoded by the reference protobuf classes. Without
--out it only takes the spans (the tracing benchmark's collector).
"""
import argparse
import json
import sys
from concurrent import futures

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc


def plain(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [plain(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: plain(kv.value) for kv in any_value.kvlist_value.values}
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind) if kind else None


def attributes(key_values):
    return {kv.key: plain(kv.value) for kv in key_values}


class Receiver(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, out):
        self.out = out

    def Export(self, request, context):
        if self.out is None:
            return trace_service_pb2.ExportTraceServiceResponse()
        lines = []
        for resource_spans in request.resource_spans:
            resource = attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    lines.append(json.dumps({
                        "resource": resource,
                        "scope": scope_spans.scope.name,
                        "trace_id": span.trace_id.hex(),
                        "span_id": span.span_id.hex(),
                        "parent_span_id": span.parent_span_id.hex(),
                        "trace_state": span.trace_state,
                        "flags": span.flags,
                        "name": span.name,
                        "kind": span.kind,
                        "start": span.start_time_unix_nano,
                        "end": span.end_time_unix_nano,
                        "attributes": attributes(span.attributes),
                        "status": span.status.code,
                        "links": [{"trace_id": l.trace_id.hex(), "span_id": l.span_id.hex()} for l in span.links],
                    }, sort_keys=True))
        with open(self.out, "a") as f:
            f.write("".join(line + "\n" for line in lines))
        return trace_service_pb2.ExportTraceServiceResponse()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Receiver(args.out), server)
    port = server.add_insecure_port("127.0.0.1:%d" % args.port)
    if port == 0:
        print("cannot bind 127.0.0.1:%d" % args.port, file=sys.stderr)
        sys.exit(1)
    server.start()
    print("LISTENING %d" % port, flush=True)
    # Until the test closes our input.
    sys.stdin.read()
    server.stop(0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""grpcio implementation of grpc.testing.TestService (the interop server).

    python3 interop_server.py [--port N] [--host 127.0.0.1] [--cert F --key F] [--direct]

Prints `LISTENING <port>` on stdout (flushed) once it accepts connections; with
--port 0 (the default) a free port is picked. Stops on SIGTERM/SIGINT.

Behaviour follows doc/interop-test-descriptions.md of grpc/grpc ("Server"
features) and /work/shared/INTEROP.md: EmptyCall, UnaryCall, CacheableUnaryCall,
StreamingOutputCall, StreamingInputCall, FullDuplexCall, HalfDuplexCall with Echo
Status, Echo Metadata, CompressedRequest, CompressedResponse and interval_us;
UnimplementedCall and grpc.testing.UnimplementedService are not served
(UNIMPLEMENTED). grpc.health.v1.Health answers SERVING.

grpcio does not tell a handler whether a request message arrived compressed, so
by default the public port is an h2tap relay (it also terminates TLS) in front of
grpcio on a private loopback port; the relay reads each message's compressed
flag off the wire and tags each stream with an `x-interop-wire-id` header. With
--direct grpcio serves the port itself and `expect_compressed` is not enforced.
"""

import argparse
import os
import signal
import ssl
import sys
import threading
import time
from concurrent import futures

import grpc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h2tap  # noqa: E402
from interop_common import ECHO_INITIAL_KEY, ECHO_TRAILING_KEY, load_protos  # noqa: E402

empty_pb2, messages_pb2, test_pb2_grpc, health_pb2, health_pb2_grpc = load_protos()

WIRE_ID_KEY = "x-interop-wire-id"
_CODES = {sc.value[0]: sc for sc in grpc.StatusCode}


class WireFlags:
    """Compressed flags of request messages, per (connection, stream), as seen by the relay."""

    def __init__(self):
        self._lock = threading.Lock()
        self._flags = {}

    def record(self, key, index, flag):
        with self._lock:
            self._flags.setdefault(key, {})[index] = flag

    def get(self, key, index):
        with self._lock:
            return self._flags.get(key, {}).get(index)

    def drop(self, key):
        with self._lock:
            self._flags.pop(key, None)


WIRE = WireFlags()


def _wire_key(context):
    for k, v in context.invocation_metadata():
        if k == WIRE_ID_KEY:
            return v
    return None


def _check_compressed(context, key, index, expect):
    """CompressedRequest: expect_compressed=true on an uncompressed message -> INVALID_ARGUMENT."""
    if not expect.value or key is None:
        return  # not asked, or no relay (--direct): cannot tell, accept
    flag = WIRE.get(key, index)
    if flag is not None and not flag & 1:
        context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                      "expect_compressed is true but the request message was not compressed")


def _echo_metadata(context, send_initial=True):
    md = dict(context.invocation_metadata())
    if send_initial and ECHO_INITIAL_KEY in md:
        context.send_initial_metadata(((ECHO_INITIAL_KEY, md[ECHO_INITIAL_KEY]),))
    if ECHO_TRAILING_KEY in md:
        context.set_trailing_metadata(((ECHO_TRAILING_KEY, md[ECHO_TRAILING_KEY]),))
    return md


def _send_echo_initial(context, md):
    if ECHO_INITIAL_KEY in md:
        context.send_initial_metadata(((ECHO_INITIAL_KEY, md[ECHO_INITIAL_KEY]),))


def _echo_status(request, context):
    """Echo Status: a non-zero response_status.code ends the RPC with that status."""
    if request.HasField("response_status") and request.response_status.code != 0:
        code = _CODES.get(request.response_status.code, grpc.StatusCode.UNKNOWN)
        context.abort(code, request.response_status.message)


def _check_type(response_type, context):
    if response_type != messages_pb2.COMPRESSABLE:
        context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                      "unsupported response_type %d" % response_type)


def _payload(size):
    if size < 0:
        raise ValueError("negative size")
    return messages_pb2.Payload(type=messages_pb2.COMPRESSABLE, body=b"\x00" * size)


class TestService:
    def EmptyCall(self, request, context):
        _echo_metadata(context)
        return empty_pb2.Empty()

    def UnaryCall(self, request, context):
        key = _wire_key(context)
        try:
            _check_compressed(context, key, 0, request.expect_compressed)
            if request.HasField("response_compressed"):
                context.set_compression(grpc.Compression.Gzip if request.response_compressed.value
                                        else grpc.Compression.NoCompression)
            _echo_metadata(context)
            _echo_status(request, context)
            _check_type(request.response_type, context)
            return messages_pb2.SimpleResponse(payload=_payload(request.response_size))
        finally:
            if key:
                WIRE.drop(key)

    def CacheableUnaryCall(self, request, context):
        _echo_metadata(context)
        context.set_trailing_metadata(())
        body = str(time.time_ns()).encode()
        return messages_pb2.SimpleResponse(
            payload=messages_pb2.Payload(type=messages_pb2.COMPRESSABLE, body=body))

    def StreamingOutputCall(self, request, context):
        key = _wire_key(context)
        try:
            md = _echo_metadata(context, send_initial=False)
            if any(p.compressed.value for p in request.response_parameters):
                context.set_compression(grpc.Compression.Gzip)
            _send_echo_initial(context, md)
            _echo_status(request, context)
            _check_type(request.response_type, context)
            for params in request.response_parameters:
                if params.interval_us > 0:
                    time.sleep(params.interval_us / 1e6)
                if not params.compressed.value:
                    context.disable_next_message_compression()
                yield messages_pb2.StreamingOutputCallResponse(payload=_payload(params.size))
        finally:
            if key:
                WIRE.drop(key)

    def StreamingInputCall(self, request_iterator, context):
        key = _wire_key(context)
        try:
            _echo_metadata(context)
            total = 0
            for index, request in enumerate(request_iterator):
                _check_compressed(context, key, index, request.expect_compressed)
                total += len(request.payload.body)
            return messages_pb2.StreamingInputCallResponse(aggregated_payload_size=total)
        finally:
            if key:
                WIRE.drop(key)

    def FullDuplexCall(self, request_iterator, context):
        # Initial metadata waits for the first request: the call-level compression
        # (needed if a request asks for compressed responses) must be chosen first.
        key = _wire_key(context)
        md = _echo_metadata(context, send_initial=False)
        started = False
        try:
            for request in request_iterator:
                if not started:
                    started = True
                    if any(p.compressed.value for p in request.response_parameters):
                        context.set_compression(grpc.Compression.Gzip)
                    _send_echo_initial(context, md)
                _echo_status(request, context)
                _check_type(request.response_type, context)
                for params in request.response_parameters:
                    if params.interval_us > 0:
                        time.sleep(params.interval_us / 1e6)
                    if not params.compressed.value:
                        context.disable_next_message_compression()
                    yield messages_pb2.StreamingOutputCallResponse(payload=_payload(params.size))
            if not started:
                _send_echo_initial(context, md)
        finally:
            if key:
                WIRE.drop(key)

    def HalfDuplexCall(self, request_iterator, context):
        key = _wire_key(context)
        md = _echo_metadata(context, send_initial=False)
        try:
            requests = list(request_iterator)
            if any(p.compressed.value for r in requests for p in r.response_parameters):
                context.set_compression(grpc.Compression.Gzip)
            _send_echo_initial(context, md)
            for request in requests:
                _echo_status(request, context)
                _check_type(request.response_type, context)
            for request in requests:
                for params in request.response_parameters:
                    if params.interval_us > 0:
                        time.sleep(params.interval_us / 1e6)
                    if not params.compressed.value:
                        context.disable_next_message_compression()
                    yield messages_pb2.StreamingOutputCallResponse(payload=_payload(params.size))
        finally:
            if key:
                WIRE.drop(key)


class Health:
    SERVICES = ("", "grpc.testing.TestService")

    def Check(self, request, context):
        if request.service not in self.SERVICES:
            context.abort(grpc.StatusCode.NOT_FOUND, "unknown service")
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)

    def Watch(self, request, context):
        ok = request.service in self.SERVICES
        yield health_pb2.HealthCheckResponse(
            status=health_pb2.HealthCheckResponse.SERVING if ok
            else health_pb2.HealthCheckResponse.SERVICE_UNKNOWN)
        done = threading.Event()
        context.add_callback(done.set)
        done.wait()


def _handlers():
    m = messages_pb2
    svc = TestService()

    def unary(fn, req, resp):
        return grpc.unary_unary_rpc_method_handler(
            fn, request_deserializer=req.FromString, response_serializer=resp.SerializeToString)

    def server_stream(fn, req, resp):
        return grpc.unary_stream_rpc_method_handler(
            fn, request_deserializer=req.FromString, response_serializer=resp.SerializeToString)

    def client_stream(fn, req, resp):
        return grpc.stream_unary_rpc_method_handler(
            fn, request_deserializer=req.FromString, response_serializer=resp.SerializeToString)

    def bidi(fn, req, resp):
        return grpc.stream_stream_rpc_method_handler(
            fn, request_deserializer=req.FromString, response_serializer=resp.SerializeToString)

    # UnimplementedCall is deliberately not registered: grpcio answers UNIMPLEMENTED.
    test = grpc.method_handlers_generic_handler("grpc.testing.TestService", {
        "EmptyCall": unary(svc.EmptyCall, empty_pb2.Empty, empty_pb2.Empty),
        "UnaryCall": unary(svc.UnaryCall, m.SimpleRequest, m.SimpleResponse),
        "CacheableUnaryCall": unary(svc.CacheableUnaryCall, m.SimpleRequest, m.SimpleResponse),
        "StreamingOutputCall": server_stream(svc.StreamingOutputCall, m.StreamingOutputCallRequest,
                                             m.StreamingOutputCallResponse),
        "StreamingInputCall": client_stream(svc.StreamingInputCall, m.StreamingInputCallRequest,
                                            m.StreamingInputCallResponse),
        "FullDuplexCall": bidi(svc.FullDuplexCall, m.StreamingOutputCallRequest,
                               m.StreamingOutputCallResponse),
        "HalfDuplexCall": bidi(svc.HalfDuplexCall, m.StreamingOutputCallRequest,
                               m.StreamingOutputCallResponse),
    })
    h = Health()
    health = grpc.method_handlers_generic_handler("grpc.health.v1.Health", {
        "Check": unary(h.Check, health_pb2.HealthCheckRequest, health_pb2.HealthCheckResponse),
        "Watch": server_stream(h.Watch, health_pb2.HealthCheckRequest,
                               health_pb2.HealthCheckResponse),
    })
    return (test, health)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    ap.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    ap.add_argument("--cert", help="PEM certificate chain: serve TLS (ALPN h2)")
    ap.add_argument("--key", help="PEM private key for --cert")
    ap.add_argument("--direct", action="store_true",
                    help="let grpcio serve the port itself (expect_compressed not enforced)")
    ap.add_argument("--use_tls", nargs="?", const="true", default=None,
                    help="accepted for compatibility; TLS is on iff --cert/--key are given")
    args = ap.parse_args(argv)
    if bool(args.cert) != bool(args.key):
        ap.error("--cert and --key go together")

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=512),
                         handlers=_handlers(), maximum_concurrent_rpcs=None)
    proxy = None
    if args.direct:
        addr = "%s:%d" % (args.host if ":" not in args.host else "[%s]" % args.host, args.port)
        if args.cert:
            with open(args.cert, "rb") as f:
                cert = f.read()
            with open(args.key, "rb") as f:
                key = f.read()
            port = server.add_secure_port(addr, grpc.ssl_server_credentials(((key, cert),)))
        else:
            port = server.add_insecure_port(addr)
        if port == 0:
            print("cannot bind %s" % addr, file=sys.stderr)
            return 2
        server.start()
    else:
        inner = server.add_insecure_port("127.0.0.1:0")
        server.start()
        listen_ssl = None
        if args.cert:
            listen_ssl = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            listen_ssl.minimum_version = ssl.TLSVersion.TLSv1_2
            listen_ssl.load_cert_chain(args.cert, args.key)
            listen_ssl.set_alpn_protocols(["h2"])

        def make_taps(conn_id):
            def on_message(sid, index, flag, _length):
                WIRE.record("%d-%d" % (conn_id, sid), index, flag)

            def inject(sid):
                return h2tap.hpack_literal(WIRE_ID_KEY.encode(), ("%d-%d" % (conn_id, sid)).encode())

            return (h2tap.FrameTap(True, on_message=on_message, inject=inject),
                    h2tap.FrameTap(False))

        try:
            proxy = h2tap.TapProxy(("127.0.0.1", inner), make_taps, host=args.host,
                                   port=args.port, listen_ssl=listen_ssl)
        except OSError as e:
            print("cannot bind %s:%d: %s" % (args.host, args.port, e), file=sys.stderr)
            server.stop(0)
            return 2
        port = proxy.port

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    print("LISTENING %d" % port, flush=True)
    while not stop.wait(1.0):
        pass
    if proxy is not None:
        proxy.close()
    server.stop(0.5).wait(2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

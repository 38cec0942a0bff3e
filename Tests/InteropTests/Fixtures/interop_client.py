#!/usr/bin/env python3
"""grpcio interop client: runs the public gRPC interop test cases against a server.

    python3 interop_client.py --host 127.0.0.1 --port 7199 --test_case all
    python3 interop_client.py --port 7199 --use_tls --ca_file ca.pem \
        --server_host_override localhost --test_case empty_unary,large_unary

Output: one line per case, `PASS <name>` or `FAIL <name>: <reason>` (a case asked
for by name that is deliberately not run prints `SKIP <name>: <reason>`), then
exactly `<N> passed, <M> failed`. Exit status 0 iff nothing failed (2 on bad
arguments).

Cases follow doc/interop-test-descriptions.md of grpc/grpc. Where a case must see
a message's compressed flag (grpcio does not expose it), or must prove that one
connection carried the whole case, its channel goes through an h2tap relay in
this process that reads the HTTP/2 frames; with --use_tls the relay speaks TLS
(ALPN h2) to the server with the same CA and server name.
"""

import argparse
import os
import queue
import random
import ssl
import sys
import threading
import time
import traceback
from concurrent import futures

import grpc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h2tap  # noqa: E402
from interop_common import ECHO_INITIAL_KEY, ECHO_TRAILING_KEY, load_protos  # noqa: E402

empty_pb2, messages_pb2, test_pb2_grpc, health_pb2, health_pb2_grpc = load_protos()
m = messages_pb2

RPC_TIMEOUT = 10.0  # seconds; every RPC carries a deadline
CASE_TIMEOUT = 15.0  # seconds; a case still running after this is a FAIL
TOTAL_TIMEOUT = 55.0  # seconds for the whole run; cases left when it is spent FAIL unrun
SPECIAL_STATUS_MESSAGE = "\t\ntest with whitespace\r\nand Unicode BMP \u263a and non-BMP \U0001f608\t\n"
INITIAL_MD_VALUE = "test_initial_metadata_value"
TRAILING_MD_VALUE = b"\xab\xab\xab"
MAX_MESSAGE = 4 * 1024 * 1024  # gRPC's default max receive message size


class CaseFailure(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, fmt, *args):
    if not cond:
        raise CaseFailure(fmt % args if args else fmt)


def zeros(n):
    return b"\x00" * n


class Pipe:
    """A request iterator fed from the test thread; close() half-closes."""

    _CLOSE = object()

    def __init__(self):
        self._q = queue.Queue()
        self._closed = False

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            try:
                item = self._q.get(timeout=0.5)
            except queue.Empty:
                if self._closed:
                    raise StopIteration
                continue
            if item is self._CLOSE:
                self._closed = True
                raise StopIteration
            return item

    def add(self, request):
        self._q.put(request)

    def close(self):
        if not self._closed:
            self._closed = True
            self._q.put(self._CLOSE)


# --------------------------------------------------------------------------- channels


class Recorder:
    """What an h2tap relay saw: per direction, per stream, the (flag, length) of each message."""

    def __init__(self):
        self.lock = threading.Lock()
        self.c2s = {}
        self.s2c = {}
        self.connections = 0
        self.goaways = 0
        self.taps = []

    def taps_for(self, conn_id):
        with self.lock:
            self.connections += 1

        def rec(table):
            def on_message(sid, index, flag, length):
                with self.lock:
                    table.setdefault((conn_id, sid), []).append((flag, length))
            return on_message

        c2s = h2tap.FrameTap(True, on_message=rec(self.c2s))
        s2c = _GoawayTap(self, on_message=rec(self.s2c))
        return c2s, s2c

    def streams(self, table):
        """Messages per stream, in stream order (= RPC order on a fresh channel)."""
        with self.lock:
            return [table[k] for k in sorted(table)]


class _GoawayTap(h2tap.FrameTap):
    def __init__(self, recorder, on_message):
        super().__init__(False, on_message=on_message)
        self._recorder = recorder

    def _frame(self, frame):
        if frame[3] == 0x7:  # GOAWAY
            with self._recorder.lock:
                self._recorder.goaways += 1
        return super()._frame(frame)


class Env:
    def __init__(self, args):
        self.args = args
        self.host = args.host
        self.port = args.port
        hostport = "[%s]:%d" % (args.host, args.port) if ":" in args.host else "%s:%d" % (args.host, args.port)
        self.target = hostport
        self.authority = ("%s:%d" % (args.server_host_override, args.port)
                          if args.server_host_override else hostport)
        self.ca = None
        if args.use_tls and args.ca_file:
            with open(args.ca_file, "rb") as f:
                self.ca = f.read()
        self.channel = self.new_channel()
        self.stub = test_pb2_grpc.TestServiceStub(self.channel)
        self._closers = []

    def new_channel(self, options=()):
        opts = list(options)
        if self.args.use_tls:
            if self.args.server_host_override:
                opts.append(("grpc.ssl_target_name_override", self.args.server_host_override))
            creds = grpc.ssl_channel_credentials(root_certificates=self.ca)
            return grpc.secure_channel(self.target, creds, options=opts)
        return grpc.insecure_channel(self.target, options=opts)

    def tapped_channel(self, options=()):
        """A fresh channel through an h2tap relay; returns (channel, stub, recorder)."""
        rec = Recorder()
        upstream_ssl = None
        sni = None
        if self.args.use_tls:
            upstream_ssl = ssl.create_default_context(cafile=self.args.ca_file)
            upstream_ssl.set_alpn_protocols(["h2"])
            sni = self.args.server_host_override or self.host
        proxy = h2tap.TapProxy((self.host, self.port), rec.taps_for, host="127.0.0.1", port=0,
                               upstream_ssl=upstream_ssl, upstream_sni=sni)
        opts = list(options) + [("grpc.default_authority", self.authority)]
        channel = grpc.insecure_channel("127.0.0.1:%d" % proxy.port, options=opts)
        self._closers.append(proxy.close)
        self._closers.append(channel.close)
        return channel, test_pb2_grpc.TestServiceStub(channel), rec

    def close_extras(self):
        while self._closers:
            try:
                self._closers.pop()()
            except Exception:  # noqa: BLE001
                pass


def expect_code(fn, code, details=None):
    """Run fn (which performs an RPC); it must fail with `code` (and `details`)."""
    try:
        fn()
    except grpc.RpcError as e:
        check(e.code() == code, "expected %s, got %s (%r)", code.name, e.code().name, e.details())
        if details is not None:
            check(e.details() == details, "expected message %r, got %r", details, e.details())
        return e
    raise CaseFailure("expected %s, but the call succeeded" % code.name)


def check_payload(resp, size, what="response"):
    check(resp.payload.type == m.COMPRESSABLE, "%s payload type %d", what, resp.payload.type)
    check(len(resp.payload.body) == size, "%s payload size %d, want %d", what, len(resp.payload.body), size)
    check(resp.payload.body == zeros(size), "%s payload is not all zeros", what)


def simple(response_size, payload_size, **kw):
    return m.SimpleRequest(response_type=m.COMPRESSABLE, response_size=response_size,
                           payload=m.Payload(body=zeros(payload_size)), **kw)


def streaming_req(sizes, payload_size=0, **kw):
    params = [s if isinstance(s, m.ResponseParameters) else m.ResponseParameters(size=s) for s in sizes]
    req = m.StreamingOutputCallRequest(response_type=m.COMPRESSABLE, response_parameters=params, **kw)
    if payload_size:
        req.payload.body = zeros(payload_size)
    return req


# --------------------------------------------------------------------------- cases

PP_RESPONSE_SIZES = (31415, 9, 2653, 58979)
PP_PAYLOAD_SIZES = (27182, 8, 1828, 45904)


def empty_unary(env):
    resp = env.stub.EmptyCall(empty_pb2.Empty(), timeout=RPC_TIMEOUT)
    check(isinstance(resp, empty_pb2.Empty), "response is %s", type(resp).__name__)
    check(resp.ByteSize() == 0, "response is not empty")


def large_unary(env):
    resp = env.stub.UnaryCall(simple(314159, 271828), timeout=RPC_TIMEOUT)
    check_payload(resp, 314159)


def client_compressed_unary(env):
    _, stub, rec = env.tapped_channel()
    # 1. feature probe: uncompressed message that claims to be compressed
    expect_code(lambda: stub.UnaryCall(simple(314159, 271828, expect_compressed=m.BoolValue(value=True)),
                                       timeout=RPC_TIMEOUT),
                grpc.StatusCode.INVALID_ARGUMENT)
    # 2. compressed message
    resp = stub.UnaryCall(simple(314159, 271828, expect_compressed=m.BoolValue(value=True)),
                          compression=grpc.Compression.Gzip, timeout=RPC_TIMEOUT)
    check_payload(resp, 314159)
    # 3. uncompressed message
    resp = stub.UnaryCall(simple(314159, 271828, expect_compressed=m.BoolValue(value=False)),
                          timeout=RPC_TIMEOUT)
    check_payload(resp, 314159)
    sent = rec.streams(rec.c2s)
    check(len(sent) == 3, "relay saw %d request streams, want 3", len(sent))
    check([s[0][0] & 1 for s in sent] == [0, 1, 0],
          "request compressed flags on the wire %s, want [0, 1, 0]", [s[0][0] for s in sent])


def server_compressed_unary(env):
    _, stub, rec = env.tapped_channel()
    for compressed in (True, False):
        resp = stub.UnaryCall(simple(314159, 271828, response_compressed=m.BoolValue(value=compressed)),
                              timeout=RPC_TIMEOUT)
        check_payload(resp, 314159)
    got = rec.streams(rec.s2c)
    check(len(got) == 2 and all(len(s) == 1 for s in got),
          "relay saw response messages %s, want one per call", got)
    flags = [s[0][0] & 1 for s in got]
    check(flags == [1, 0], "response compressed flags %s, want [1, 0] (response_compressed true, false)",
          flags)


def client_streaming(env):
    reqs = [m.StreamingInputCallRequest(payload=m.Payload(body=zeros(n))) for n in PP_PAYLOAD_SIZES]
    resp = env.stub.StreamingInputCall(iter(reqs), timeout=RPC_TIMEOUT)
    check(resp.aggregated_payload_size == 74922, "aggregated_payload_size %d, want 74922",
          resp.aggregated_payload_size)


def client_compressed_streaming(env):
    _, stub, rec = env.tapped_channel()
    probe = m.StreamingInputCallRequest(payload=m.Payload(body=zeros(27182)),
                                        expect_compressed=m.BoolValue(value=True))
    expect_code(lambda: stub.StreamingInputCall(iter([probe]), timeout=RPC_TIMEOUT),
                grpc.StatusCode.INVALID_ARGUMENT)
    # grpcio's Python API compresses every message of a call or none, so the second
    # (expect_compressed=false) message goes compressed too; that is allowed.
    reqs = [probe,
            m.StreamingInputCallRequest(payload=m.Payload(body=zeros(45904)),
                                        expect_compressed=m.BoolValue(value=False))]
    resp = stub.StreamingInputCall(iter(reqs), compression=grpc.Compression.Gzip, timeout=RPC_TIMEOUT)
    check(resp.aggregated_payload_size == 73086, "aggregated_payload_size %d, want 73086",
          resp.aggregated_payload_size)
    sent = rec.streams(rec.c2s)
    check(len(sent) == 2, "relay saw %d request streams, want 2", len(sent))
    check(sent[0][0][0] & 1 == 0 and sent[1][0][0] & 1 == 1,
          "request compressed flags probe=%d first=%d, want 0 and 1", sent[0][0][0], sent[1][0][0])


def server_streaming(env):
    it = env.stub.StreamingOutputCall(streaming_req(PP_RESPONSE_SIZES), timeout=RPC_TIMEOUT)
    got = list(it)
    check(len(got) == 4, "%d responses, want 4", len(got))
    for i, (resp, size) in enumerate(zip(got, PP_RESPONSE_SIZES)):
        check_payload(resp, size, "response %d" % i)
    check(it.code() == grpc.StatusCode.OK, "status %s", it.code())


def server_compressed_streaming(env):
    _, stub, rec = env.tapped_channel()
    req = streaming_req([m.ResponseParameters(size=31415, compressed=m.BoolValue(value=True)),
                         m.ResponseParameters(size=92653, compressed=m.BoolValue(value=False))])
    got = list(stub.StreamingOutputCall(req, timeout=RPC_TIMEOUT))
    check(len(got) == 2, "%d responses, want 2", len(got))
    check_payload(got[0], 31415, "response 0")
    check_payload(got[1], 92653, "response 1")
    wire = rec.streams(rec.s2c)
    check(len(wire) == 1 and len(wire[0]) == 2, "relay saw response messages %s", wire)
    flags = [f & 1 for f, _ in wire[0]]
    check(flags == [1, 0], "response compressed flags %s, want [1, 0]", flags)


def ping_pong(env):
    pipe = Pipe()
    try:
        it = env.stub.FullDuplexCall(pipe, timeout=RPC_TIMEOUT)
        for i, (rsize, psize) in enumerate(zip(PP_RESPONSE_SIZES, PP_PAYLOAD_SIZES)):
            pipe.add(streaming_req([rsize], psize))
            resp = next(it)
            check_payload(resp, rsize, "response %d" % i)
        pipe.close()
        rest = list(it)
        check(not rest, "%d extra responses after half-close", len(rest))
        check(it.code() == grpc.StatusCode.OK, "status %s", it.code())
    finally:
        pipe.close()


def empty_stream(env):
    pipe = Pipe()
    pipe.close()
    it = env.stub.FullDuplexCall(pipe, timeout=RPC_TIMEOUT)
    got = list(it)
    check(not got, "%d responses, want 0", len(got))
    check(it.code() == grpc.StatusCode.OK, "status %s", it.code())


def custom_metadata(env):
    md = ((ECHO_INITIAL_KEY, INITIAL_MD_VALUE), (ECHO_TRAILING_KEY, TRAILING_MD_VALUE))

    def validate(call, what):
        initial = dict(call.initial_metadata() or ())
        trailing = dict(call.trailing_metadata() or ())
        check(initial.get(ECHO_INITIAL_KEY) == INITIAL_MD_VALUE, "%s: initial metadata %s=%r, want %r",
              what, ECHO_INITIAL_KEY, initial.get(ECHO_INITIAL_KEY), INITIAL_MD_VALUE)
        check(trailing.get(ECHO_TRAILING_KEY) == TRAILING_MD_VALUE, "%s: trailing metadata %s=%r, want %r",
              what, ECHO_TRAILING_KEY, trailing.get(ECHO_TRAILING_KEY), TRAILING_MD_VALUE)

    resp, call = env.stub.UnaryCall.with_call(simple(314159, 271828), metadata=md, timeout=RPC_TIMEOUT)
    check_payload(resp, 314159)
    validate(call, "UnaryCall")

    pipe = Pipe()
    try:
        it = env.stub.FullDuplexCall(pipe, metadata=md, timeout=RPC_TIMEOUT)
        pipe.add(streaming_req([314159], 271828))
        check_payload(next(it), 314159)
        pipe.close()
        rest = list(it)
        check(not rest, "%d extra responses", len(rest))
        validate(it, "FullDuplexCall")
    finally:
        pipe.close()


def _status_case(env, code, message):
    status = grpc.StatusCode.UNKNOWN if code == 2 else None
    req = simple(1, 1, response_status=m.EchoStatus(code=code, message=message))
    expect_code(lambda: env.stub.UnaryCall(req, timeout=RPC_TIMEOUT), status, message)
    return status


def status_code_and_message(env):
    message = "test status message"
    _status_case(env, 2, message)
    pipe = Pipe()
    try:
        it = env.stub.FullDuplexCall(pipe, timeout=RPC_TIMEOUT)
        pipe.add(streaming_req([1], 1, response_status=m.EchoStatus(code=2, message=message)))
        pipe.close()
        expect_code(lambda: list(it), grpc.StatusCode.UNKNOWN, message)
    finally:
        pipe.close()


def special_status_message(env):
    _status_case(env, 2, SPECIAL_STATUS_MESSAGE)


def unimplemented_method(env):
    expect_code(lambda: env.stub.UnimplementedCall(empty_pb2.Empty(), timeout=RPC_TIMEOUT),
                grpc.StatusCode.UNIMPLEMENTED)


def unimplemented_service(env):
    stub = test_pb2_grpc.UnimplementedServiceStub(env.channel)
    expect_code(lambda: stub.UnimplementedCall(empty_pb2.Empty(), timeout=RPC_TIMEOUT),
                grpc.StatusCode.UNIMPLEMENTED)


def cancel_after_begin(env):
    pipe = Pipe()
    try:
        fut = env.stub.StreamingInputCall.future(pipe, timeout=RPC_TIMEOUT)
        fut.cancel()
        check(fut.cancelled(), "future not cancelled")
        check(fut.code() == grpc.StatusCode.CANCELLED, "status %s, want CANCELLED", fut.code())
    finally:
        pipe.close()


def cancel_after_first_response(env):
    pipe = Pipe()
    try:
        it = env.stub.FullDuplexCall(pipe, timeout=RPC_TIMEOUT)
        pipe.add(streaming_req([31415], 27182))
        next(it)
        it.cancel()
        expect_code(lambda: next(it), grpc.StatusCode.CANCELLED)
    finally:
        pipe.close()


def timeout_on_sleeping_server(env):
    pipe = Pipe()
    try:
        it = env.stub.FullDuplexCall(pipe, timeout=0.001)
        pipe.add(streaming_req([], 27182))
        expect_code(lambda: next(it), grpc.StatusCode.DEADLINE_EXCEEDED)
    finally:
        pipe.close()


# ---- robustness cases (ours, not upstream)


def _one_connection(rec):
    check(rec.connections == 1, "the channel needed %d connections, want 1 (server dropped it?)",
          rec.connections)
    check(rec.goaways == 0, "server sent GOAWAY")


def concurrent_streams(env):
    """64 concurrent unary calls (64 KiB each way) on one channel and one connection."""
    _, stub, rec = env.tapped_channel()
    stub.EmptyCall(empty_pb2.Empty(), timeout=RPC_TIMEOUT)  # connect first: one connection
    n, size = 64, 65536
    futs = [stub.UnaryCall.future(simple(size, size), timeout=RPC_TIMEOUT) for _ in range(n)]
    errors = []
    for i, f in enumerate(futs):
        try:
            check_payload(f.result(), size, "call %d" % i)
        except grpc.RpcError as e:
            errors.append("call %d: %s %s" % (i, e.code().name, e.details()))
        except CaseFailure as e:
            errors.append(str(e))
    check(not errors, "%d/%d failed, first: %s", len(errors), n, errors[0] if errors else "")
    _one_connection(rec)


def cancel_storm(env):
    """200 FullDuplexCalls cancelled at random points; then the connection still works."""
    _, stub, rec = env.tapped_channel()
    stub.EmptyCall(empty_pb2.Empty(), timeout=RPC_TIMEOUT)
    seed = env.args.seed if env.args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    plans = [(rng.randrange(6), rng.randrange(1 << 16), rng.randrange(4)) for _ in range(200)]

    def one(plan):
        mode, size, reads = plan
        pipe = Pipe()
        try:
            it = stub.FullDuplexCall(pipe, timeout=RPC_TIMEOUT)
            if mode == 0:  # before anything is sent
                pass
            elif mode == 1:  # after a request that asks for nothing
                pipe.add(streaming_req([], size))
            elif mode == 2:  # after the first response
                pipe.add(streaming_req([size], size))
                next(it)
            elif mode == 3:  # in the middle of a response stream
                pipe.add(streaming_req([m.ResponseParameters(size=16384, interval_us=1000)] * 5, 100))
                for _ in range(reads):
                    next(it)
            elif mode == 4:  # while the server sends a large response
                pipe.add(streaming_req([1 << 20], 0))
            else:  # after half-close, racing the server's OK
                pipe.add(streaming_req([size], 0))
                next(it)
                pipe.close()
            it.cancel()
            code = it.code()
            ok = (grpc.StatusCode.CANCELLED,) + ((grpc.StatusCode.OK,) if mode == 5 else ())
            if code not in ok:
                return "mode %d: status %s (%s)" % (mode, code.name, it.details())
            return None
        except grpc.RpcError as e:
            return "mode %d: %s %s" % (mode, e.code().name, e.details())
        except Exception as e:  # noqa: BLE001
            return "mode %d: %r" % (mode, e)
        finally:
            pipe.close()

    with futures.ThreadPoolExecutor(max_workers=64) as pool:
        results = list(pool.map(one, plans))
    errors = [r for r in results if r]
    check(not errors, "seed %d: %d/200 calls misbehaved, first: %s", seed, len(errors),
          errors[0] if errors else "")
    resp = stub.EmptyCall(empty_pb2.Empty(), timeout=RPC_TIMEOUT)
    check(isinstance(resp, empty_pb2.Empty), "empty_unary after the storm failed")
    check_payload(stub.UnaryCall(simple(314159, 271828), timeout=RPC_TIMEOUT), 314159)
    _one_connection(rec)


def large_payloads(env):
    """Unary call with 4 MiB - 1 KiB request and response payloads (within the 4 MiB default limit)."""
    size = MAX_MESSAGE - 1024
    resp = env.stub.UnaryCall(simple(size, size), timeout=RPC_TIMEOUT)
    check_payload(resp, size)
    pipe = Pipe()
    try:
        it = env.stub.FullDuplexCall(pipe, timeout=RPC_TIMEOUT)
        pipe.add(streaming_req([size], size))
        check_payload(next(it), size)
        pipe.close()
        check(not list(it), "extra responses")
    finally:
        pipe.close()


def oversized_status_message(env):
    """A status message of any length (here one the server echoes from the request) comes back cut
    to 1 KiB of UTF-8 at a character boundary, marked, promptly: whole, 7 KiB made grpcio fail with
    RESOURCE_EXHAUSTED (past its 16 KiB header list limit once percent-encoded) and 1 MiB got no
    answer at all."""
    marker = "\u2026(truncated)"
    for length in (7 * 1024, 1 << 20):
        message = ("\u00e9" * length)[:length]
        e = expect_code(lambda: env.stub.UnaryCall(simple(1, 1, response_status=m.EchoStatus(code=2, message=message)),
                                                   timeout=RPC_TIMEOUT), grpc.StatusCode.UNKNOWN)
        details = e.details()
        check(details.endswith(marker), "message of %d characters not marked as cut: %r", length, details[-40:])
        check(len(details.encode("utf-8")) <= 1024, "message of %d characters came back with %d bytes", length,
              len(details.encode("utf-8")))
        check(details[:-len(marker)] == message[:len(details) - len(marker)], "message of %d characters: not its prefix",
              length)


def status_details(env):
    raise Skip("grpc-status-details-bin is not part of the upstream interop cases")


CASES = [
    ("empty_unary", empty_unary),
    ("large_unary", large_unary),
    ("client_compressed_unary", client_compressed_unary),
    ("server_compressed_unary", server_compressed_unary),
    ("client_streaming", client_streaming),
    ("client_compressed_streaming", client_compressed_streaming),
    ("server_streaming", server_streaming),
    ("server_compressed_streaming", server_compressed_streaming),
    ("ping_pong", ping_pong),
    ("empty_stream", empty_stream),
    ("custom_metadata", custom_metadata),
    ("status_code_and_message", status_code_and_message),
    ("special_status_message", special_status_message),
    ("unimplemented_method", unimplemented_method),
    ("unimplemented_service", unimplemented_service),
    ("cancel_after_begin", cancel_after_begin),
    ("cancel_after_first_response", cancel_after_first_response),
    ("timeout_on_sleeping_server", timeout_on_sleeping_server),
    ("concurrent_streams", concurrent_streams),
    ("cancel_storm", cancel_storm),
    ("large_payloads", large_payloads),
]
EXTRA = {"status_details": status_details,  # runnable by name only, not part of "all"
         "oversized_status_message": oversized_status_message}


# --------------------------------------------------------------------------- runner


def run_case(env, fn, timeout):
    box = {}

    def target():
        try:
            fn(env)
            box["ok"] = True
        except Skip as e:
            box["skip"] = str(e)
        except CaseFailure as e:
            box["err"] = str(e)
        except grpc.RpcError as e:
            box["err"] = "unexpected RPC error %s: %r" % (e.code().name, e.details())
        except StopIteration:
            box["err"] = "stream ended early"
        except Exception as e:  # noqa: BLE001
            box["err"] = "%s: %s" % (type(e).__name__, e)
            if env.args.verbose:
                traceback.print_exc()

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        return "err", "timed out after %.0fs" % timeout
    if "ok" in box:
        return "ok", None
    if "skip" in box:
        return "skip", box["skip"]
    return "err", box.get("err", "unknown error")


def _bool(v):
    return str(v).lower() in ("1", "true", "yes", "on")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", "--server_host", dest="host", default="127.0.0.1")
    ap.add_argument("--port", "--server_port", dest="port", type=int, default=7199)
    ap.add_argument("--use_tls", nargs="?", const="true", default="false", type=_bool)
    ap.add_argument("--ca_file", help="PEM root CA(s) to trust (default: system roots)")
    ap.add_argument("--server_host_override", help="TLS server name and :authority host")
    ap.add_argument("--test_case", default="all", help="comma-separated case names, or all")
    ap.add_argument("--case_timeout", type=float, default=CASE_TIMEOUT,
                    help="seconds per case (default %(default)s)")
    ap.add_argument("--total_timeout", type=float, default=TOTAL_TIMEOUT,
                    help="seconds for the whole run (default %(default)s)")
    ap.add_argument("--connect_timeout", type=float, default=5.0,
                    help="seconds to wait for the first connection before running (default %(default)s)")
    ap.add_argument("--seed", type=int, help="seed for cancel_storm")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--list", action="store_true", help="print the case names and exit")
    args = ap.parse_args(argv)

    known = dict(CASES)
    known.update(EXTRA)
    if args.list:
        print("\n".join(name for name, _ in CASES))
        return 0
    names = []
    for part in args.test_case.split(","):
        part = part.strip()
        if part == "all":
            names.extend(n for n, _ in CASES)
        elif part:
            if part not in known:
                ap.error("unknown test case %r (try --list)" % part)
            names.append(part)

    deadline = time.monotonic() + args.total_timeout
    env = Env(args)
    try:
        grpc.channel_ready_future(env.channel).result(timeout=args.connect_timeout)
    except grpc.FutureTimeoutError:
        print("warning: no connection to %s after %.1fs; running anyway" % (env.target, args.connect_timeout),
              file=sys.stderr, flush=True)
    passed = failed = 0
    for name in names:
        started = time.monotonic()
        budget = min(args.case_timeout, deadline - started)
        if budget <= 0:
            outcome, why = "err", "not run: the %.0fs budget of the whole run is spent" % args.total_timeout
        else:
            outcome, why = run_case(env, known[name], budget)
        env.close_extras()
        took = time.monotonic() - started
        if outcome == "ok":
            passed += 1
            print("PASS %s" % name, flush=True)
        elif outcome == "skip":
            print("SKIP %s: %s" % (name, why), flush=True)
        else:
            failed += 1
            print("FAIL %s: %s" % (name, " ".join(why.split()) if why else why), flush=True)
        if args.verbose:
            print("  (%s took %.2fs)" % (name, took), file=sys.stderr, flush=True)
    print("%d passed, %d failed" % (passed, failed), flush=True)
    sys.stdout.flush()
    sys.stderr.flush()
    # Abandoned case threads (after a timeout) must not keep the process alive.
    os._exit(1 if failed else 0)


if __name__ == "__main__":
    main()

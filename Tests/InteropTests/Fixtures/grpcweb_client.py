#!/usr/bin/env python3
"""gRPC-Web client cases against a server or an edge, over HTTP/1.1.

Uses sonora (a stock gRPC-Web client: unary and server-streaming calls) and, where sonora has
no API (client streaming, half-duplex bidi, grpc-web-text, CORS), plain HTTP/1.1 requests
through urllib3 framed with sonora's own protocol helpers.

    grpcweb_client.py --url http://127.0.0.1:PORT --test_case all
    grpcweb_client.py --url http://127.0.0.1:PORT --test_case identity   # rendezvous.identity.v1

Prints `PASS <case>` or `FAIL <case>: <reason>` per case, then `<N> passed, <M> failed`; exits 0
iff nothing failed.
"""

import argparse
import base64
import io
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import interop_common  # noqa: E402

empty_pb2, messages_pb2, test_pb2_grpc, _, _ = interop_common.load_protos()
# proto-docs' google/rpc and rendezvous/ stubs live in the same generated folder.
import google  # noqa: E402

if os.path.join(interop_common.GEN, "google") not in google.__path__:
    google.__path__.append(os.path.join(interop_common.GEN, "google"))
from google.rpc import error_details_pb2, status_pb2  # noqa: E402
from rendezvous.identity.v1 import identity_pb2  # noqa: E402

import grpc  # noqa: E402
import sonora.client  # noqa: E402
import sonora.protocol  # noqa: E402
import urllib3  # noqa: E402

TEST = "/grpc.testing.TestService/"
SPECIAL_STATUS_MESSAGE = "\t\ntest with whitespace\r\nand Unicode BMP \u263a and non-BMP \U0001f608\t\n"
INITIAL_MD_VALUE = "test_initial_metadata_value"
TRAILING_MD_VALUE = b"\x0a\x0b\x0a\x0b\x0a\x0b"
LARGE = 4 * 1024 * 1024 - 1024


class CaseFailure(Exception):
    pass


def check(cond, fmt, *args):
    if not cond:
        raise CaseFailure(fmt % args if args else fmt)


def zeros(n):
    return messages_pb2.Payload(body=b"\0" * n)


class StubChannel:
    """sonora's channel as grpcio's generated stubs call it: newer grpcio-tools pass
    `_registered_method`, which sonora 0.2.3 does not take."""

    def __init__(self, channel):
        self.channel = channel

    def unary_unary(self, path, request_serializer=None, response_deserializer=None, **_):
        return self.channel.unary_unary(path, request_serializer, response_deserializer)

    def unary_stream(self, path, request_serializer=None, response_deserializer=None, **_):
        return self.channel.unary_stream(path, request_serializer, response_deserializer)

    def stream_unary(self, path, request_serializer=None, response_deserializer=None, **_):
        return self.channel.stream_unary(path, request_serializer, response_deserializer)

    def stream_stream(self, path, request_serializer=None, response_deserializer=None, **_):
        return self.channel.stream_stream(path, request_serializer, response_deserializer)


class Env:
    def __init__(self, args):
        self.url = args.url.rstrip("/")
        self.channel = sonora.client.insecure_web_channel(self.url)
        self.stub = test_pb2_grpc.TestServiceStub(StubChannel(self.channel))
        self.http = urllib3.PoolManager()


def sonora_call(env, method, request, response_type, metadata=()):
    """A unary call kept as its sonora call object, so a failed call's trailers can be read."""
    metadata = [("x-user-agent", "grpc-web-python/0.1"), ("content-type", "application/grpc-web+proto")] + list(
        sonora.protocol.encode_headers(metadata))
    call = sonora.client.UnaryUnaryCall(request, None, metadata, env.url + method, env.channel._session,
                                        request.SerializeToString, response_type.FromString)
    try:
        return call(), call, None
    except sonora.protocol.WebRpcError as error:
        return None, call, error


def expect_error(error, code, message=None):
    check(error is not None, "expected %s, the call succeeded", code.name)
    check(error.code() == code, "expected %s, got %s: %r", code.name, error.code().name, error.details())
    if message is not None:
        check(error.details() == message, "expected message %r, got %r", message, error.details())


def status_details(call):
    """The google.rpc.Status in grpc-status-details-bin: from the trailer frame, else the head."""
    fields = dict(call.trailing_metadata() or [])
    if "grpc-status-details-bin" not in fields:
        fields = dict(call.initial_metadata())
    check("grpc-status-details-bin" in fields, "no grpc-status-details-bin among %r", sorted(fields))
    status = status_pb2.Status.FromString(base64.b64decode(fields["grpc-status-details-bin"] + "=="))
    reasons = []
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            reasons.append(info.reason)
    return status, reasons


def raw_call(env, method, frames, content_type="application/grpc-web+proto", headers=None):
    """POSTs a body of framed messages over HTTP/1.1; returns (response, messages, trailers).

    `-text` bodies go base64-encoded, one padded segment per message, and the response is decoded
    segment by segment (PROTOCOL-WEB.md lets a server pad wherever it flushes)."""
    text = "grpc-web-text" in content_type
    body = b"".join(
        (base64.b64encode(sonora.protocol.wrap_message(False, False, f)) if text else
         sonora.protocol.wrap_message(False, False, f)) for f in frames)
    all_headers = {"content-type": content_type, "x-grpc-web": "1"}
    all_headers.update(headers or {})
    response = env.http.request("POST", env.url + method, body=body, headers=all_headers, timeout=10.0)
    data = response.data
    if text:
        check(all(c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=" for c in data),
              "the -text response is not base64: %r", data[:40])
        decoded, rest = b"", data
        while rest:
            # Each segment ends at its padding or at the end of the body.
            end = len(rest)
            for i in range(0, len(rest), 4):
                if rest[i:i + 4].endswith(b"="):
                    end = i + 4
                    break
            decoded += base64.b64decode(rest[:end])
            rest = rest[end:]
        data = decoded
    messages, trailers = [], None
    for is_trailer, _, payload in sonora.protocol.unwrap_message_stream(io.BytesIO(data)):
        if is_trailer:
            trailers = dict(sonora.protocol.unpack_trailers(payload))
        else:
            check(trailers is None, "a message after the trailer frame")
            messages.append(payload)
    return response, messages, trailers


# --------------------------------------------------------------------------- grpc.testing cases


def empty_unary(env):
    response = env.stub.EmptyCall(empty_pb2.Empty())
    check(response == empty_pb2.Empty(), "unexpected response %r", response)


def large_unary(env):
    response = env.stub.UnaryCall(messages_pb2.SimpleRequest(response_size=314159, payload=zeros(271828)))
    check(len(response.payload.body) == 314159, "payload of %d bytes", len(response.payload.body))


def large_payloads(env):
    response = env.stub.UnaryCall(messages_pb2.SimpleRequest(response_size=LARGE, payload=zeros(LARGE)))
    check(len(response.payload.body) == LARGE, "payload of %d bytes", len(response.payload.body))


def server_streaming(env):
    sizes = (31415, 9, 2653, 58979)
    request = messages_pb2.StreamingOutputCallRequest(
        response_parameters=[messages_pb2.ResponseParameters(size=s) for s in sizes])
    got = [len(r.payload.body) for r in env.stub.StreamingOutputCall(request)]
    check(got == list(sizes), "response sizes %r", got)


def client_streaming(env):
    sizes = (27182, 8, 1828, 45904)
    frames = [messages_pb2.StreamingInputCallRequest(payload=zeros(s)).SerializeToString() for s in sizes]
    response, messages, trailers = raw_call(env, TEST + "StreamingInputCall", frames)
    check(response.status == 200, "HTTP %d", response.status)
    check(trailers is not None and trailers.get("grpc-status") == "0", "trailers %r", trailers)
    check(len(messages) == 1, "%d messages", len(messages))
    aggregated = messages_pb2.StreamingInputCallResponse.FromString(messages[0]).aggregated_payload_size
    check(aggregated == sum(sizes), "aggregated_payload_size %d", aggregated)


def half_duplex(env):
    """FullDuplexCall with every request in the body: the answers stream back in order."""
    sizes = (31415, 9, 2653, 58979)
    frames = [messages_pb2.StreamingOutputCallRequest(
        response_parameters=[messages_pb2.ResponseParameters(size=s)], payload=zeros(s // 2)).SerializeToString()
        for s in sizes]
    response, messages, trailers = raw_call(env, TEST + "FullDuplexCall", frames)
    check(trailers is not None and trailers.get("grpc-status") == "0", "trailers %r", trailers)
    got = [len(messages_pb2.StreamingOutputCallResponse.FromString(m).payload.body) for m in messages]
    check(got == list(sizes), "response sizes %r", got)


def custom_metadata(env):
    metadata = [("x-grpc-test-echo-initial", INITIAL_MD_VALUE), ("x-grpc-test-echo-trailing-bin", TRAILING_MD_VALUE)]
    response, call, error = sonora_call(env, TEST + "UnaryCall", messages_pb2.SimpleRequest(
        response_size=314159, payload=zeros(271828)), messages_pb2.SimpleResponse, metadata)
    check(error is None, "call failed: %s", error)
    check(len(response.payload.body) == 314159, "payload of %d bytes", len(response.payload.body))
    initial = dict(call.initial_metadata())
    check(initial.get("x-grpc-test-echo-initial") == INITIAL_MD_VALUE, "initial metadata %r", initial)
    trailing = dict(call.trailing_metadata())
    check(base64.b64decode(trailing.get("x-grpc-test-echo-trailing-bin", "") + "==") == TRAILING_MD_VALUE,
          "trailing metadata %r", trailing)
    check(trailing.get("grpc-status") == "0", "trailing metadata %r", trailing)
    # The same on a server stream.
    request = messages_pb2.StreamingOutputCallRequest(response_parameters=[messages_pb2.ResponseParameters(size=314159)])
    stream = env.stub.StreamingOutputCall(request, metadata=metadata)
    got = [len(r.payload.body) for r in stream]
    check(got == [314159], "response sizes %r", got)
    check(dict(stream.initial_metadata()).get("x-grpc-test-echo-initial") == INITIAL_MD_VALUE, "stream initial metadata")
    trailing = dict(stream.trailing_metadata())
    check(base64.b64decode(trailing.get("x-grpc-test-echo-trailing-bin", "") + "==") == TRAILING_MD_VALUE,
          "stream trailing metadata %r", trailing)


def status_code_and_message(env):
    message = "test status message"
    _, _, error = sonora_call(env, TEST + "UnaryCall", messages_pb2.SimpleRequest(
        response_status=messages_pb2.EchoStatus(code=2, message=message)), messages_pb2.SimpleResponse)
    expect_error(error, grpc.StatusCode.UNKNOWN, message)
    request = messages_pb2.StreamingOutputCallRequest(response_status=messages_pb2.EchoStatus(code=2, message=message))
    try:
        list(env.stub.StreamingOutputCall(request))
        error = None
    except sonora.protocol.WebRpcError as e:
        error = e
    expect_error(error, grpc.StatusCode.UNKNOWN, message)


def special_status_message(env):
    _, _, error = sonora_call(env, TEST + "UnaryCall", messages_pb2.SimpleRequest(
        response_status=messages_pb2.EchoStatus(code=2, message=SPECIAL_STATUS_MESSAGE)), messages_pb2.SimpleResponse)
    expect_error(error, grpc.StatusCode.UNKNOWN, SPECIAL_STATUS_MESSAGE)


def error_details(env):
    """A handler's error with its reason in grpc-status-details-bin (google.rpc.Status + ErrorInfo)."""
    _, call, error = sonora_call(env, TEST + "UnaryCall", messages_pb2.SimpleRequest(response_size=-1),
                                 messages_pb2.SimpleResponse)
    expect_error(error, grpc.StatusCode.INVALID_ARGUMENT, "response_size must not be negative")
    status, reasons = status_details(call)
    check(status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0], "details code %d", status.code)
    check(reasons == ["INVALID_ARGUMENT"], "reasons %r", reasons)


def unimplemented_method(env):
    _, call, error = sonora_call(env, TEST + "UnimplementedCall", empty_pb2.Empty(), empty_pb2.Empty)
    expect_error(error, grpc.StatusCode.UNIMPLEMENTED)


def unimplemented_service(env):
    """A path no service registered: the router's answer, before any handler runs."""
    _, call, error = sonora_call(env, "/grpc.testing.UnimplementedService/UnimplementedCall", empty_pb2.Empty(),
                                 empty_pb2.Empty)
    expect_error(error, grpc.StatusCode.UNIMPLEMENTED)
    _, reasons = status_details(call)
    check(reasons == ["UNIMPLEMENTED"], "reasons %r", reasons)


def timeout_on_sleeping_server(env):
    """The server's deadline (grpc-timeout 300 ms) ends a call whose answer would take 5 s."""
    request = messages_pb2.StreamingOutputCallRequest(
        response_parameters=[messages_pb2.ResponseParameters(size=1, interval_us=5_000_000)])
    started = time.monotonic()
    try:
        list(env.stub.StreamingOutputCall(request, metadata=[("grpc-timeout", "300m")]))
        error = None
    except sonora.protocol.WebRpcError as e:
        error = e
    elapsed = time.monotonic() - started
    expect_error(error, grpc.StatusCode.DEADLINE_EXCEEDED)
    check(error.details() == "deadline exceeded", "the status came from the client, not the server: %r",
          error.details())
    check(elapsed < 3.0, "took %.1f s", elapsed)


def server_streaming_incremental(env):
    """Each message reaches the client when it is sent, not when the stream ends: the edge must
    not buffer a server stream (a browser's realtime feed depends on it)."""
    import http.client
    from urllib.parse import urlsplit

    request = messages_pb2.StreamingOutputCallRequest(response_parameters=[
        messages_pb2.ResponseParameters(size=10), messages_pb2.ResponseParameters(size=10, interval_us=1_500_000)])
    target = urlsplit(env.url)
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=10)
    started = time.monotonic()
    connection.request("POST", TEST + "StreamingOutputCall",
                       body=sonora.protocol.wrap_message(False, False, request.SerializeToString()),
                       headers={"content-type": "application/grpc-web+proto", "x-grpc-web": "1"})
    response = connection.getresponse()
    received, arrivals = b"", []
    while True:
        chunk = response.read1(65536)
        if not chunk:
            break
        received += chunk
        frames = list(sonora.protocol.unwrap_message_stream(io.BytesIO(received)))
        while len(arrivals) < len(frames):
            arrivals.append(time.monotonic() - started)
    connection.close()
    frames = list(sonora.protocol.unwrap_message_stream(io.BytesIO(received)))
    check([f[0] for f in frames] == [False, False, True], "frames %r", frames)
    check(arrivals[0] < 1.0, "the first message arrived after %.2f s, with the second", arrivals[0])
    check(arrivals[1] >= 1.4, "the second message arrived after %.2f s", arrivals[1])


def web_text_unary(env):
    request = messages_pb2.SimpleRequest(response_size=70000, payload=zeros(50001))
    response, messages, trailers = raw_call(env, TEST + "UnaryCall", [request.SerializeToString()],
                                            content_type="application/grpc-web-text")
    check(response.headers.get("content-type") == "application/grpc-web-text", "content-type %r",
          response.headers.get("content-type"))
    check(trailers is not None and trailers.get("grpc-status") == "0", "trailers %r", trailers)
    check(len(messages) == 1, "%d messages", len(messages))
    size = len(messages_pb2.SimpleResponse.FromString(messages[0]).payload.body)
    check(size == 70000, "payload of %d bytes", size)


def web_text_streaming(env):
    sizes = (31415, 9, 2653, 58979)
    request = messages_pb2.StreamingOutputCallRequest(
        response_parameters=[messages_pb2.ResponseParameters(size=s) for s in sizes])
    response, messages, trailers = raw_call(env, TEST + "StreamingOutputCall", [request.SerializeToString()],
                                            content_type="application/grpc-web-text+proto")
    check(response.headers.get("content-type") == "application/grpc-web-text+proto", "content-type %r",
          response.headers.get("content-type"))
    check(trailers is not None and trailers.get("grpc-status") == "0", "trailers %r", trailers)
    got = [len(messages_pb2.StreamingOutputCallResponse.FromString(m).payload.body) for m in messages]
    check(got == list(sizes), "response sizes %r", got)


CASES = [
    ("empty_unary", empty_unary),
    ("large_unary", large_unary),
    ("large_payloads", large_payloads),
    ("server_streaming", server_streaming),
    ("client_streaming", client_streaming),
    ("half_duplex", half_duplex),
    ("custom_metadata", custom_metadata),
    ("status_code_and_message", status_code_and_message),
    ("special_status_message", special_status_message),
    ("error_details", error_details),
    ("unimplemented_method", unimplemented_method),
    ("unimplemented_service", unimplemented_service),
    ("timeout_on_sleeping_server", timeout_on_sleeping_server),
    ("server_streaming_incremental", server_streaming_incremental),
    ("web_text_unary", web_text_unary),
    ("web_text_streaming", web_text_streaming),
]


# --------------------------------------------------------------------------- rendezvous.identity.v1


def identity(env):
    """Anonymous sign-in, then GetAccount with its bearer token; without one, UNAUTHENTICATED."""
    path = "/rendezvous.identity.v1.Identity/"
    session, call, error = sonora_call(env, path + "SignInAnonymously", identity_pb2.SignInAnonymouslyRequest(
        app="swivo", device_name="browser"), identity_pb2.AuthSession)
    check(error is None, "SignInAnonymously failed: %s", error)
    check(session.access_token.count(".") == 2, "access token %r", session.access_token)
    check(session.account.app == "swivo", "account %r", session.account)

    account, _, error = sonora_call(env, path + "GetAccount", identity_pb2.GetAccountRequest(), identity_pb2.Account,
                                    [("authorization", "Bearer " + session.access_token)])
    check(error is None, "GetAccount failed: %s", error)
    check(account.id == session.account.id, "GetAccount answered account %r, signed in as %r", account.id,
          session.account.id)

    for metadata, reason in (([], "MISSING_TOKEN"), ([("authorization", "Bearer not-a-token")], "MALFORMED_TOKEN")):
        _, call, error = sonora_call(env, path + "GetAccount", identity_pb2.GetAccountRequest(), identity_pb2.Account,
                                     metadata)
        expect_error(error, grpc.StatusCode.UNAUTHENTICATED)
        _, reasons = status_details(call)
        check(reasons == [reason], "reasons %r, expected %s", reasons, reason)


EXTRA = {"identity": identity}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="http://HOST:PORT of the server or edge")
    ap.add_argument("--test_case", default="all", help="comma-separated case names, or all")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    known = dict(CASES)
    known.update(EXTRA)
    names = []
    for part in args.test_case.split(","):
        part = part.strip()
        if part == "all":
            names.extend(n for n, _ in CASES)
        elif part:
            if part not in known:
                ap.error("unknown test case %r" % part)
            names.append(part)
    env = Env(args)
    passed = failed = 0
    for name in names:
        try:
            known[name](env)
            print("PASS %s" % name, flush=True)
            passed += 1
        except CaseFailure as e:
            print("FAIL %s: %s" % (name, e), flush=True)
            failed += 1
        except Exception as e:  # noqa: BLE001
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e), flush=True)
            if args.verbose:
                traceback.print_exc()
            failed += 1
    print("%d passed, %d failed" % (passed, failed), flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

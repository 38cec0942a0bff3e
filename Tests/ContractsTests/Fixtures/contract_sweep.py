#!/usr/bin/env python3
"""The contract sweep (issue 25): every RPC of every service, called over the wire with hostile
credentials and inputs, held to what proto-docs/ promises of any answer.

  contract_sweep.py --proto-root proto-docs --bin-dir .build/debug [--fields N] [--seed S] [--only REGEX]

Reads every service from the .proto files (protoc -> descriptor set, as consumer_contracts.py),
starts the real executables (identity, discovery, media, production, messaging, interop-server;
as consumer_contracts.py starts them, each with its own service credential) on the Postgres the
environment names, finds which executable serves each RPC (a method every executable answers
UNIMPLEMENTED is "not served"; only the benchmark's rendezvous.bench package may be), and
sweeps each (RPC, executable) generically -- a new RPC is swept with no new code:

  base     a valid-ish request built from the descriptor (UUIDs in *_id fields, the app in `app`,
           a Timestamp an hour ahead, the first non-zero enum value, one element per repeated
           field, the first member of each oneof), sent with each candidate credential (none, an
           ordinary email member of every app, every service's credential); the most successful
           one is the RPC's credential for the input cases. Only `response_status` is left unset
           (interop's Echo Status answers whatever status it names, INTEROP.md).
  auth     no token, a garbage token, a well-formed ES256 JWT signed by another key (expired, the
           real kid), another app's member token; an ordinary member's token on methods whose
           comments say admins/producers/hosts only or that take a service credential must not
           answer OK.
  input    per kind, up to --fields fields (sampled by --seed; every kind that applies to the
           RPC is covered): string at 0 bytes, 1 MiB, invalid UTF-8 (wire bytes); *_id malformed;
           Timestamp at year 10000 and nanos -1; enum at 999; repeated with 100,000 entries (fewer
           when that would pass 4 MiB); numbers at their type's min and max; the encoding truncated
           and with trailing garbage; each bool set to true.
  Streaming RPCs get one message and a half-close, and are read to their status unless they stay
  quiet for 0.5 s or still send after 3 s (a subscription, answering). Every call has a 10 s deadline.
  A base refused for what it holds is tried without each of its fields in turn.
  writes   up to 3 calls per RPC that its handler refused, replayed one at a time with the row
           counts of the service's schema before and after: a refused call writes nothing.

Checked on every answer: never INTERNAL or UNKNOWN; an answer within 10 s; every non-OK answer
carries a google.rpc.ErrorInfo (grpc-status-details-bin) whose reason an *ErrorReason enum of the
RPC's file, its package's ErrorReason or rendezvous.platform.v1.ErrorReason declares, with the status that value's
(rendezvous.options.v1.status) names; grpc-message and the trailers under 8 KiB.

Output: one line per failure on stdout ("<rpc> @<executable> [<case>] <kind>: <what came back,
against what the contract says>"), the summary on stderr (RPCs swept, calls made, failures by RPC and kind,
run time). Exit 1 on any failure, 2 when the sweep cannot start.
"""

import argparse
import base64
import collections
import concurrent.futures
import hashlib
import json
import os
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import consumer_contracts as cc  # noqa: E402  (start_service, start_services, load_pool's way)

SERVICES = cc.SERVICES  # start order
DEADLINE = 10.0
STREAM_QUIET = 0.5
STREAM_BUSY = 3.0
LIMIT = 8 * 1024
MAX_MESSAGE = 4 * 1024 * 1024
STATUS_OPTION = 50001  # rendezvous.options.v1.status on EnumValueOptions
PLACEHOLDER = "SWEEP-INVALID-UTF8-PLACEHOLDER"
INVALID_UTF8 = (b"\xc3\x28\xff\xfe" * 16)[:len(PLACEHOLDER)]
# A method's (or its service's) comment that restricts it; "Filming notes for producers only" is
# about a field, so the role must start the phrase.
RESTRICTED = re.compile(r"(^|[.:;]\s+|\n\s*)(Admins?|Producers?|Hosts?)( and (admins?|producers?|hosts?))? only\b|"
                        r"service credential")
# A file header's policy line, e.g. "P7 ledger: producers only (every Ledger method)."
HEADER_POLICY = re.compile(r"\b(admins?|producers?|hosts?)( and (admins?|producers?|hosts?))? only\b", re.I)
INT_RANGES = {  # FieldDescriptor.TYPE_* -> (min, max)
    3: (-2**63, 2**63 - 1), 18: (-2**63, 2**63 - 1), 16: (-2**63, 2**63 - 1),  # int64 sint64 sfixed64
    5: (-2**31, 2**31 - 1), 17: (-2**31, 2**31 - 1), 15: (-2**31, 2**31 - 1),  # int32 sint32 sfixed32
    4: (0, 2**64 - 1), 6: (0, 2**64 - 1), 13: (0, 2**32 - 1), 7: (0, 2**32 - 1),  # uint64 fixed64 uint32 fixed32
}
FLOATS = (1, 2)  # double, float
STRING, BYTES, BOOL, ENUM, MESSAGE = 9, 12, 8, 14, 11


def fail_setup(message):
    print("contract_sweep.py: " + message, file=sys.stderr)
    sys.exit(2)


# --- descriptors ---------------------------------------------------------------------------------

def load(proto_root):
    """(pool, {full method name: comment text of the method and its service})."""
    import grpc_tools
    from grpc_tools import protoc
    from google.protobuf import descriptor_pb2, descriptor_pool

    files = sorted(os.path.relpath(os.path.join(d, n), proto_root)
                   for d, _, names in os.walk(proto_root) for n in names if n.endswith(".proto"))
    well_known = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    out = tempfile.mkdtemp(prefix="rv-sweep-")
    try:
        target = os.path.join(out, "set.pb")
        if protoc.main(["protoc", "-I" + proto_root, "-I" + well_known, "--include_imports",
                        "--include_source_info", "--descriptor_set_out=" + target, *files]) != 0:
            fail_setup("protoc failed on %s" % proto_root)
        with open(target, "rb") as handle:
            descriptor_set = descriptor_pb2.FileDescriptorSet.FromString(handle.read())
    finally:
        shutil.rmtree(out, ignore_errors=True)
    pool = descriptor_pool.DescriptorPool()
    comments = {}
    for file in descriptor_set.file:
        pool.Add(file)
        located = {tuple(loc.path): loc.leading_comments + loc.trailing_comments for loc in file.source_code_info.location}
        restricted_by_header = header_restrictions(os.path.join(proto_root, file.name), file)
        for s, service in enumerate(file.service):
            service_comment = located.get((6, s), "")
            for m, method in enumerate(service.method):
                name = "%s.%s/%s" % (file.package, service.name, method.name)
                comments[name] = service_comment + "\n" + located.get((6, s, 2, m), "")
                if (service.name, method.name) in restricted_by_header:
                    comments[name] += "\n[file header] " + restricted_by_header[(service.name, method.name)]
    return pool, comments, [f.name for f in descriptor_set.file]


def header_restrictions(path, file):
    """{(service, method): policy text} of a file header's policy items ("P7 ledger: producers only
    (every Ledger method)", "P11 ...: producers only (Content.GenerateScript, UpdateScript)")."""
    if not os.path.exists(path):
        return {}
    header = []
    with open(path) as handle:
        for line in handle:
            if not line.startswith("//"):
                break
            header.append(line[2:].strip())
    items = re.split(r"\s(?=P\d+ )", " ".join(header))
    found = {}
    services = {service.name: [m.name for m in service.method] for service in file.service}
    for item in items:
        if not HEADER_POLICY.search(item):
            continue
        named = set()
        for every in re.findall(r"every (\w+) method", item):
            named.update((every, m) for m in services.get(every, []))
        for group in re.findall(r"\(([^)]*)\)", item):
            current = None
            for token in re.findall(r"[\w.]+", group):
                if "." in token:
                    current, token = token.split(".", 1)
                if current in services and token in services[current]:
                    named.add((current, token))
        for key in named:
            found[key] = item
    return found


def declared_reasons(pool, package, name="ErrorReason"):
    """{reason name: status name} of `package`.`name` (empty when it has none)."""
    try:
        enum = pool.FindEnumTypeByName(package + "." + name)
    except KeyError:
        return {}
    statuses = pool.FindEnumTypeByName("rendezvous.options.v1.StatusCode")
    reasons = {}
    for value in enum.values:
        status = option_varint(value.GetOptions().SerializeToString(), STATUS_OPTION)
        reasons[value.name] = statuses.values_by_number[status].name if status in statuses.values_by_number else None
    return reasons


def read_varint(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def option_varint(data, number):
    at = 0
    while at < len(data):
        tag, at = read_varint(data, at)
        kind = tag & 7
        if kind == 0:
            value, at = read_varint(data, at)
            if tag >> 3 == number:
                return value
        elif kind == 2:
            length, at = read_varint(data, at)
            at += length
        elif kind == 1:
            at += 8
        elif kind == 5:
            at += 4
        else:
            return None
    return None


def is_repeated(field):
    return cc.is_repeated(field)


def is_map(field):
    return field.message_type is not None and field.message_type.GetOptions().map_entry


# --- requests ------------------------------------------------------------------------------------

def plausible_string(field, app):
    name = field.name
    if name == "id" or name.endswith("_id") or name.endswith("_ids"):
        return str(uuid.uuid4())
    if name == "app" or name.endswith("_app"):
        return app
    if "email" in name:
        return "sweep-%s@example.com" % secrets.token_hex(6)
    if "password" in name:
        return "Sweep-passw0rd-%s" % secrets.token_hex(4)
    if "currency" in name:
        return "USD"
    if "phone" in name:
        return "+1555%07d" % random.randrange(10**7)
    if "url" in name:
        return "https://example.com/sweep"
    if "code" in name:
        return "123456"
    if "content_type" in name or "mime" in name:
        return "image/png"
    return "sweep"


def fill(message, app, depth=0):
    """Fills every field of `message` with a plausible value (the first member of each oneof)."""
    for field in message.DESCRIPTOR.fields:
        if field.name == "response_status":  # interop Echo Status: answers the status it names
            continue
        oneof = field.containing_oneof
        if oneof is not None and oneof.fields[0] is not field:
            continue
        if is_map(field):
            key_field, value_field = field.message_type.fields_by_name["key"], field.message_type.fields_by_name["value"]
            if value_field.message_type is None:
                getattr(message, field.name)[scalar(key_field, app)] = scalar(value_field, app)
            continue
        if field.message_type is not None:
            if depth >= 4:
                continue
            target = getattr(message, field.name).add() if is_repeated(field) else getattr(message, field.name)
            if field.message_type.full_name == "google.protobuf.Timestamp":
                target.seconds = int(time.time()) + 3600
            else:
                fill(target, app, depth + 1)
                if not is_repeated(field):
                    target.SetInParent()
            continue
        value = scalar(field, app)
        if is_repeated(field):
            getattr(message, field.name).append(value)
        elif value is not None:
            setattr(message, field.name, value)


def scalar(field, app):
    if field.type == STRING:
        return plausible_string(field, app)
    if field.type == BYTES:
        return b"sweep"
    if field.type == BOOL:
        return False
    if field.type == ENUM:
        numbers = [v.number for v in field.enum_type.values if v.number != 0]
        return numbers[0] if numbers else 0
    if field.type in FLOATS:
        return 1.0
    return 1


def walk(message, path=()):
    """(path, field) of every set field; a path is ((name, index or None), ...)."""
    for field, value in message.ListFields():
        if is_map(field):
            continue
        if is_repeated(field):
            yield path + ((field.name, None),), field
            if len(value):
                if field.message_type is not None:
                    yield from walk(value[0], path + ((field.name, 0),))
                else:
                    yield path + ((field.name, 0),), field
        else:
            yield path + ((field.name, None),), field
            if field.message_type is not None and field.message_type.full_name != "google.protobuf.Timestamp":
                yield from walk(value, path + ((field.name, None),))


def holder_of(message, path):
    for name, index in path[:-1]:
        message = getattr(message, name)
        if index is not None:
            message = message[index]
    return message


def assign(message, path, value):
    holder = holder_of(message, path)
    name, index = path[-1]
    if index is None:
        setattr(holder, name, value)
    else:
        getattr(holder, name)[index] = value


def mutations(base, rng, per_kind):
    """[(kind, description, request bytes)]: up to per_kind fields per kind."""
    by_kind = collections.defaultdict(list)
    for path, field in walk(base):
        label = ".".join(n if i is None else "%s[%d]" % (n, i) for n, i in path)
        element = path[-1][1] is not None or not is_repeated(field)
        if field.type == STRING and element:
            by_kind["string-empty"].append((label, path, field))
            by_kind["string-1MiB"].append((label, path, field))
            by_kind["string-invalid-utf8"].append((label, path, field))
            if field.name == "id" or field.name.endswith("_id") or field.name.endswith("_ids"):
                by_kind["id-malformed"].append((label, path, field))
        if field.type == ENUM and element:
            by_kind["enum-unknown"].append((label, path, field))
        if field.type in INT_RANGES and element or field.type in FLOATS and element:
            by_kind["number-min"].append((label, path, field))
            by_kind["number-max"].append((label, path, field))
        if field.message_type is not None and field.message_type.full_name == "google.protobuf.Timestamp" and element:
            by_kind["timestamp-year-10000"].append((label, path, field))
            by_kind["timestamp-nanos-negative"].append((label, path, field))
        if is_repeated(field) and path[-1][1] is None:
            by_kind["repeated-100k"].append((label, path, field))
    # bools are false in the base; each set to true (e.g. interop's expect_compressed)
    holders = [((), base)] + [(path, None) for path, field in walk(base)
                              if field.message_type is not None and (path[-1][1] is not None or not is_repeated(field))
                              and field.message_type.full_name != "google.protobuf.Timestamp"]
    for path, holder in holders:
        message = holder if holder is not None else holder_of(base, path + (("", None),))
        for field in message.DESCRIPTOR.fields:
            if field.type == BOOL and not is_repeated(field):
                label = ".".join([n if i is None else "%s[%d]" % (n, i) for n, i in path] + [field.name])
                by_kind["bool-true"].append((label, path + ((field.name, None),), field))
    cases = []
    for kind in sorted(by_kind):
        chosen = by_kind[kind]
        if len(chosen) > per_kind:
            chosen = rng.sample(chosen, per_kind)
        for label, path, field in chosen:
            request = mutate(base, kind, path, field)
            if request is not None:
                cases.append((kind, label, request))
    encoded = base.SerializeToString()
    cases.append(("truncated", "last byte cut", encoded[:-1] if encoded else b"\x0a"))
    cases.append(("trailing-garbage", "3 bytes of a varint that never ends", encoded + b"\xff\xff\xff"))
    return cases


def mutate(base, kind, path, field):
    copy = type(base)()
    copy.CopyFrom(base)
    if kind == "bool-true":
        assign(copy, path, True)
    elif kind == "string-empty":
        assign(copy, path, "")
    elif kind == "string-1MiB":
        assign(copy, path, "a" * (1 << 20))
    elif kind == "string-invalid-utf8":
        assign(copy, path, PLACEHOLDER)
        return copy.SerializeToString().replace(PLACEHOLDER.encode(), INVALID_UTF8)
    elif kind == "id-malformed":
        assign(copy, path, "not-a-uuid'; --")
    elif kind == "enum-unknown":
        assign(copy, path, 999)
    elif kind in ("number-min", "number-max"):
        if field.type in FLOATS:
            value = float("-inf") if kind == "number-min" else float("inf")
        else:
            low, high = INT_RANGES[field.type]
            value = low if kind == "number-min" else high
            if kind == "number-min" and low == 0:
                value = 0
        assign(copy, path, value)
    elif kind in ("timestamp-year-10000", "timestamp-nanos-negative"):
        stamp = getattr(holder_of(copy, path), path[-1][0])
        if path[-1][1] is not None:
            stamp = stamp[path[-1][1]]
        if kind == "timestamp-year-10000":
            stamp.seconds = 253402300800
        else:
            stamp.nanos = -1
    elif kind == "repeated-100k":
        holder = holder_of(copy, path)
        values = getattr(holder, path[-1][0])
        if len(values) == 0:
            return None
        one = len(copy.SerializeToString())
        values.extend([values[0]] * 1)
        each = max(1, len(copy.SerializeToString()) - one)
        count = max(1, min(100_000, (MAX_MESSAGE - 64 * 1024 - one) // each))
        if field.message_type is not None:
            element = type(values[0])()
            element.CopyFrom(values[0])
            del values[:]
            for _ in range(count):
                values.add().CopyFrom(element)
        else:
            first = values[0]
            del values[:]
            values.extend([first] * count)
    return copy.SerializeToString()


# --- calls ---------------------------------------------------------------------------------------

class Answer:
    def __init__(self, code, message, trailers, seconds, streamed=False):
        self.code, self.message, self.trailers, self.seconds, self.streamed = code, message, trailers, seconds, streamed


def invoke(channel, method, request_bytes, metadata):
    """One call: unary or stream, one message then half-close, DEADLINE s; an Answer."""
    import grpc

    path = "/%s/%s" % (method.containing_service.full_name, method.name)
    identity = lambda b: b  # noqa: E731
    started = time.monotonic()
    try:
        if method.client_streaming and method.server_streaming:
            stub = channel.stream_stream(path, request_serializer=identity, response_deserializer=identity)
            call = stub(iter([request_bytes]), metadata=metadata, timeout=DEADLINE)
        elif method.client_streaming:
            stub = channel.stream_unary(path, request_serializer=identity, response_deserializer=identity)
            _, call = stub.with_call(iter([request_bytes]), metadata=metadata, timeout=DEADLINE)
            return Answer(call.code(), call.details() or "", call.trailing_metadata() or (), time.monotonic() - started)
        elif method.server_streaming:
            stub = channel.unary_stream(path, request_serializer=identity, response_deserializer=identity)
            call = stub(request_bytes, metadata=metadata, timeout=DEADLINE)
        else:
            stub = channel.unary_unary(path, request_serializer=identity, response_deserializer=identity)
            _, call = stub.with_call(request_bytes, metadata=metadata, timeout=DEADLINE)
            return Answer(call.code(), call.details() or "", call.trailing_metadata() or (), time.monotonic() - started)
        # A stream: read until its status, or until it has been quiet for STREAM_QUIET s (a
        # subscription that stays open, e.g. WatchEvents: answered, and cancelled here).
        progress = threading.Event()
        ended = threading.Event()

        def read():
            try:
                for _ in call:
                    progress.set()
            except grpc.RpcError:
                pass
            ended.set()
            progress.set()

        threading.Thread(target=read, daemon=True).start()
        while not ended.is_set():
            progress.clear()
            quiet = not progress.wait(STREAM_QUIET) and not ended.is_set()
            # quiet, or still sending after STREAM_BUSY s (e.g. 100,000 response_parameters
            # answered one by one): answering, so cancelled here
            if quiet or (not ended.is_set() and time.monotonic() - started > STREAM_BUSY):
                call.cancel()
                return Answer(grpc.StatusCode.OK, "", (), time.monotonic() - started, streamed=True)
        return Answer(call.code(), call.details() or "", call.trailing_metadata() or (), time.monotonic() - started)
    except grpc.RpcError as error:
        return Answer(error.code(), error.details() or "", error.trailing_metadata() or (), time.monotonic() - started)


def error_info(pool, trailers):
    """The ErrorInfo reason in grpc-status-details-bin, or None."""
    from google.protobuf import message_factory

    for key, value in trailers:
        if key == "grpc-status-details-bin":
            status = message_factory.GetMessageClass(pool.FindMessageTypeByName("google.rpc.Status")).FromString(value)
            info_class = message_factory.GetMessageClass(pool.FindMessageTypeByName("google.rpc.ErrorInfo"))
            for detail in status.details:
                if detail.type_url.endswith("/google.rpc.ErrorInfo"):
                    return info_class.FromString(detail.value).reason
    return None


def judge(pool, answer, reasons):
    """What is wrong with an answer: [(kind, text)]."""
    import grpc

    problems = []
    if answer.code == grpc.StatusCode.DEADLINE_EXCEEDED and answer.seconds >= DEADLINE - 0.5:
        return [("no-answer", "no answer within %.0f s" % DEADLINE)]
    if answer.code in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN):
        problems.append(("internal-or-unknown", "%s %r" % (answer.code.name, answer.message[:200])))
    size = sum(len(k) + len(v) for k, v in answer.trailers)
    if len(answer.message.encode("utf-8", "replace")) >= LIMIT:
        problems.append(("oversized", "grpc-message of %d bytes" % len(answer.message.encode("utf-8", "replace"))))
    if size >= LIMIT:
        problems.append(("oversized", "trailers of %d bytes" % size))
    if answer.code != grpc.StatusCode.OK:
        reason = error_info(pool, answer.trailers)
        if reason is None:
            problems.append(("no-reason", "%s %r without an ErrorInfo" % (answer.code.name, answer.message[:200])))
        elif reason not in reasons:
            problems.append(("undeclared-reason", "%s %s, a reason the contract does not declare" % (answer.code.name, reason)))
        elif reasons[reason] is not None and reasons[reason] != answer.code.name:
            problems.append(("wrong-status", "%s %s, declared with %s" % (answer.code.name, reason, reasons[reason])))
    return problems


# --- credentials ---------------------------------------------------------------------------------

def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def foreign_jwt(kid, app):
    """A well-formed ES256 JWT for `app` with identity's kid, signed by a key identity never had, expired."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, utils

    key = ec.generate_private_key(ec.SECP256R1())
    now = int(time.time())
    header = b64(json.dumps({"alg": "ES256", "typ": "JWT", "kid": kid}).encode())
    claims = b64(json.dumps({"iss": "rendezvous-identity", "sub": str(uuid.uuid4()), "app": app, "aud": app,
                             "iat": now - 7200, "nbf": now - 7200, "exp": now - 3600}).encode())
    der = key.sign(("%s.%s" % (header, claims)).encode(), ec.ECDSA(hashes.SHA256()))
    r, s = utils.decode_dss_signature(der)
    return "%s.%s.%s" % (header, claims, b64(r.to_bytes(32, "big") + s.to_bytes(32, "big")))


def sign_up_members(channel, pool, apps):
    """{app: access token} of a fresh email account per app."""
    tokens = {}
    for app in apps:
        response = cc.call(channel, pool, "rendezvous.identity.v1.Identity/SignUpWithEmail",
                           {"app": app, "email": "sweep-%s@example.com" % secrets.token_hex(8),
                            "password": "Sweep-passw0rd-" + secrets.token_hex(6), "device_name": "sweep"}, [], False)
        tokens[app] = response.access_token
    return tokens


def token_kid(token):
    header = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["kid"]


def rank(code, reason=None):
    """How far a call got: 0 OK, 1 refused by the handler's own checks, 2 refused for who the
    caller is, 2.5 for the caller's app, 3 unauthenticated."""
    import grpc

    if reason and reason.endswith("APP_NOT_SUPPORTED"):
        return 2.5
    if code == grpc.StatusCode.OK:
        return 0
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return 3
    if code in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNIMPLEMENTED):
        return 2
    return 1


# --- the sweep -----------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--proto-root", required=True)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--fields", type=int, default=3, help="fields per input kind per RPC (0: all)")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--only", default="", help="sweep only RPCs whose full name matches")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--log", help="a line per call (rpc, executable, case, status, reason) into this file")
    parser.add_argument("--no-writes-check", action="store_true", help="skip the row counts of refused calls")
    args = parser.parse_args()
    began = time.monotonic()
    try:
        import grpc
        from google.protobuf import message_factory
    except ImportError as error:
        fail_setup("Python protobuf or grpcio is missing (%s); run `make deps`" % error)
    pool, comments, files = load(os.path.abspath(args.proto_root))
    # Every service (and `identity grant-role`) on the cluster TestDatabase uses: RV_PG_URL_<S>, or
    # one made of RV_PG_HOST, RV_PG_PORT, RV_PG_DATABASE (never the executables' own default, :7432).
    for name in SERVICES:
        os.environ.setdefault("RV_PG_URL_%s" % name.upper(), pg_url(name))
    # Media's signed URLs and blobs: the caller's (ContractSweepTests passes MediaStack's), else the sweep's own.
    os.environ.setdefault("RV_MEDIA_URL_SECRET", "contract-sweep-" + secrets.token_hex(16))
    own_storage = None
    if "RV_MEDIA_STORAGE_DIR" not in os.environ:
        own_storage = os.environ["RV_MEDIA_STORAGE_DIR"] = tempfile.mkdtemp(prefix="rv-sweep-media-")
    platform = declared_reasons(pool, "rendezvous.platform.v1")
    apps = ["elite", "firstdate", "swivo", "unseen", "momento"]

    executables = {name: os.path.join(args.bin_dir, name) for name in SERVICES}
    executables["interop"] = os.path.join(args.bin_dir, "interop-server")
    for name, path in executables.items():
        if not os.access(path, os.X_OK):
            fail_setup("%s is not built at %s; run `swift build`" % (name, path))
    secret_of = {name: "contract-sweep-" + secrets.token_hex(16) for name in SERVICES}
    logs = tempfile.mkdtemp(prefix="rv-sweep-logs-")
    started = {}
    calls = collections.Counter()
    outcomes_by_kind = collections.defaultdict(collections.Counter)
    log = open(args.log, "w") if args.log else None
    replayed = [0, 0]
    refused = collections.defaultdict(list)  # (rpc, executable) -> [(case, request, metadata)] a handler refused
    failures = []
    lock = threading.Lock()
    try:
        cc.start_services(list(SERVICES), executables, secret_of, logs, started)
        started["interop"] = cc.start_service("interop-server", executables["interop"], {}, logs, settings_name="interop")
        channels = {name: grpc.insecure_channel("127.0.0.1:%d" % port, options=[
            ("grpc.max_receive_message_length", 64 << 20), ("grpc.max_metadata_size", 1 << 20)])
            for name, (_, port) in started.items()}
        kid = token_kid(sign_up_members(channels["identity"], pool, ["firstdate"])["firstdate"])
        candidates = [("none", None)] + [("member:" + app, app) for app in apps] + [("service:" + name, None) for name in SERVICES]

        class Members:
            """A job's own ordinary members, one per app, made on first use and again when a call
            of the job revoked, deleted or changed the one it had (SignOut, DeleteAccount, a role)."""
            def __init__(self):
                self.tokens = {}

            def token(self, app, role=None):
                key = (app, role)
                if key not in self.tokens:
                    with lock:
                        calls["identity"] += 1
                    if role is None:
                        self.tokens[key] = sign_up_members(channels["identity"], pool, [app])[app]
                    else:
                        # a member the operator made `role` (`identity grant-role`), signed in again
                        email, password = "sweep-%s@example.com" % secrets.token_hex(8), "Sweep-passw0rd-" + secrets.token_hex(6)
                        request = {"app": app, "email": email, "password": password, "device_name": "sweep"}
                        account = cc.call(channels["identity"], pool, "rendezvous.identity.v1.Identity/SignUpWithEmail", request, [], False)
                        result = subprocess.run([executables["identity"], "grant-role", "--app", app, "--account-id",
                                                 account.account.id, "--role", role], capture_output=True, text=True, timeout=60)
                        if result.returncode != 0:
                            self.tokens[key] = None
                        else:
                            self.tokens[key] = cc.call(channels["identity"], pool, "rendezvous.identity.v1.Identity/SignInWithEmail",
                                                       request, [], False).access_token
                return self.tokens[key]

            def renew(self, label):
                kind, app = label.split(":", 1)
                self.tokens.pop((app, None if kind == "member" else kind), None)

            def metadata(self, label):
                if label == "none":
                    return []
                kind, name = label.split(":", 1)
                if kind in ("member", "admin", "host"):
                    token = self.token(name, None if kind == "member" else kind)
                    return None if token is None else [("authorization", "Bearer " + token)]
                return [("authorization", "Service %s:%s" % (name, secret_of[name]))]

        methods = []
        for file_name in files:
            file = pool.FindFileByName(file_name)
            for service in file.services_by_name.values():
                for method in service.methods:
                    full = "%s/%s" % (service.full_name, method.name)
                    if args.only and not re.search(args.only, full):
                        continue
                    methods.append((full, method))

        def call(target, method, request, metadata):
            with lock:
                calls[target] += 1
            return invoke(channels[target], method, request, metadata)

        # Which executables serve each method.
        def served_by(entry):
            full, method = entry
            found = []
            for target in started:
                answer = call(target, method, b"", [])
                reason = error_info(pool, answer.trailers)
                if not (answer.code == grpc.StatusCode.UNIMPLEMENTED and reason == "UNIMPLEMENTED"):
                    found.append(target)
            return found

        with concurrent.futures.ThreadPoolExecutor(args.workers) as executor:
            serving = dict(zip([m[0] for m in methods], executor.map(served_by, methods)))
        unserved = sorted(full for full, targets in serving.items() if not targets)
        for full in unserved:
            # OTLP's TraceService is the collector's: the services call it (trace export), none serves it.
            if not full.startswith("rendezvous.bench.") and not full.startswith("grpc.testing.UnimplementedService/") \
                    and not full.startswith("opentelemetry.proto.") \
                    and full != "grpc.testing.TestService/UnimplementedCall":
                failures.append((full, "-", "served", "not-served", "every executable answers UNIMPLEMENTED"))

        def sweep(job):
            full, method, target = job
            found = []
            package = method.containing_service.file.package
            reasons = dict(platform)
            reasons.update(declared_reasons(pool, package))
            for enum in method.containing_service.file.enum_types_by_name.values():
                if enum.name.endswith("ErrorReason"):
                    reasons.update(declared_reasons(pool, package, enum.name))
            request_class = message_factory.GetMessageClass(method.input_type)
            rng = random.Random("%d:%s:%s" % (args.seed, full, target))

            members = Members()

            def check(case, request, label_or_metadata):
                metadata = members.metadata(label_or_metadata) if isinstance(label_or_metadata, str) else label_or_metadata
                answer = call(target, method, request, metadata)
                if isinstance(label_or_metadata, str) and label_or_metadata.split(":")[0] in ("member", "admin", "host") and \
                        error_info(pool, answer.trailers) in ("TOKEN_REVOKED", "TOKEN_STALE", "ACCOUNT_NOT_FOUND"):
                    # an earlier call of this job signed this member out, deleted it or changed its
                    # role: judge that answer, then call again as a fresh member
                    for kind, text in judge(pool, answer, reasons):
                        found.append((full, target, case, kind, text))
                    members.renew(label_or_metadata)
                    metadata = members.metadata(label_or_metadata)
                    answer = call(target, method, request, metadata)
                with lock:
                    outcomes_by_kind[case.split(" ")[0] + " " + (case.split(" ")[1] if case.startswith("input") else "")][
                        answer.code.name + ("" if answer.code == grpc.StatusCode.OK else " " + str(error_info(pool, answer.trailers)))] += 1
                for kind, text in judge(pool, answer, reasons):
                    found.append((full, target, case, kind, text))
                reason = error_info(pool, answer.trailers)
                if log is not None:
                    with lock:
                        log.write("%s\t%s\t%s\t%s\t%s\t%.3f\n" % (full, target, case, answer.code.name, reason, answer.seconds))
                if answer.code != grpc.StatusCode.OK and reason not in NOT_REACHED and target in SERVICES \
                        and len(refused[(full, target)]) < 3:
                    refused[(full, target)].append((case, request, metadata))
                return answer

            # base, per candidate credential; the best is the credential of the input cases
            open_by_contract = "not authenticated" in comments.get(full, "").lower() or not package.startswith("rendezvous.")
            best = None
            outcomes = {}
            for label, app in candidates:
                base = request_class()
                fill(base, app or "firstdate")
                answer = check("base with %s" % label, base.SerializeToString(), label)
                outcomes[label] = answer
                key = (rank(answer.code, error_info(pool, answer.trailers)),
                       0 if label == "none" and open_by_contract else 1 if label.startswith("member") else 2)
                if best is None or key < best[0]:
                    best = (key, label, app, base)
            if best[0][0] >= 2:
                # refused to every member: an operator-made admin or host of each app may pass
                for role in ("admin", "host"):
                    for app in apps:
                        label = "%s:%s" % (role, app)
                        if members.metadata(label) is None:
                            continue
                        base = request_class()
                        fill(base, app)
                        answer = check("base with %s" % label, base.SerializeToString(), label)
                        key = (rank(answer.code, error_info(pool, answer.trailers)), 3)
                        if key < best[0]:
                            best = (key, label, app, base)
            _, label, app, base = best
            if best[0][0] == 1:
                # refused for what it holds: without one of its fields it may pass (e.g. a
                # referral code the app does not offer), and the input cases then reach further
                for field, _ in base.ListFields():
                    trial = type(base)()
                    trial.CopyFrom(base)
                    trial.ClearField(field.name)
                    answer = check("base without %s with %s" % (field.name, label), trial.SerializeToString(), label)
                    if answer.code == grpc.StatusCode.OK:
                        base = trial
                        break
            comment = comments.get(full, "")
            restricted = RESTRICTED.search(comment) or ("[file header]" in comment and HEADER_POLICY.search(comment.split("[file header]")[1]))
            if restricted or label.startswith("service:"):
                for member in [c for c in candidates if c[0].startswith("member:")]:
                    if outcomes[member[0]].code == grpc.StatusCode.OK and not outcomes[member[0]].streamed:
                        found.append((full, target, "auth: ordinary %s" % member[0], "member-allowed",
                                      "OK, but the contract restricts it (%r)" % restricted.group(0) if restricted else
                                      "OK, but it answers a service credential"))
            # auth cases on the base request (with that app in it)
            encoded = base.SerializeToString()
            other_app = next(a for a in apps if a != (app or "firstdate"))
            auth_cases = [("auth: garbage token", [("authorization", "Bearer garbage.not-a.jwt")]),
                          ("auth: foreign-signed expired JWT", [("authorization", "Bearer " + foreign_jwt(kid, app or "firstdate"))]),
                          ("auth: %s token of another app" % other_app, "member:" + other_app)]
            if label.startswith("service:"):
                auth_cases.append(("auth: user token on service method", "member:firstdate"))
            for case, auth in auth_cases:
                answer = check(case, encoded, auth)
                if not open_by_contract and "another app" not in case and answer.code == grpc.StatusCode.OK and not answer.streamed:
                    found.append((full, target, case, "accepted-bad-credential", "OK"))
            if label != "none" and not open_by_contract and outcomes["none"].code == grpc.StatusCode.OK \
                    and not outcomes["none"].streamed:
                found.append((full, target, "auth: no token", "accepted-no-token", "OK, and the comment does not say `Not authenticated`"))
            # input cases
            for kind, where, request in mutations(base, rng, args.fields if args.fields > 0 else 10**9):
                check("input %s %s (with %s)" % (kind, where, label), request, label)
            return found

        jobs = [(full, method, target) for full, method in methods for target in serving[full]]
        with concurrent.futures.ThreadPoolExecutor(args.workers) as executor:
            for found in executor.map(sweep, jobs):
                failures.extend(found)
        if not args.no_writes_check:
            methods_by_name = dict(methods)
            for full, target, case, text in writes_of_refused_calls(refused, methods_by_name, channels, calls, lock, replayed):
                failures.append((full, target, case, "refused-but-wrote", text))
        for channel in channels.values():
            channel.close()
    finally:
        cc.stop_services(started)
        shutil.rmtree(logs, ignore_errors=True)
        if own_storage:
            shutil.rmtree(own_storage, ignore_errors=True)

    failures.sort()
    for full, target, case, kind, text in failures:
        print("%s @%s [%s] %s: %s" % (full, target, case, kind, text))
    swept = len({full for full, _, _ in jobs})
    print("contract sweep: %d RPCs swept on %d (RPC, executable) pairs, %d not served (%s), %d calls, %d failures, %.0f s"
          % (swept, len(jobs), len(unserved), ", ".join(unserved), sum(calls.values()), len(failures),
             time.monotonic() - began), file=sys.stderr)
    print("writes check: %d refused calls replayed one at a time, each with %d table row counts before and after"
          % (replayed[0], replayed[1] // max(1, replayed[0])) + (" on average" if replayed[0] else ""), file=sys.stderr)
    print("answers by case kind (status reason: count):", file=sys.stderr)
    for kind, counter in sorted(outcomes_by_kind.items()):
        print("  %-32s %s" % (kind, ", ".join("%s: %d" % item for item in counter.most_common(6))), file=sys.stderr)
    grouped = collections.Counter((f[0], f[3]) for f in failures)
    for (full, kind), count in sorted(grouped.items()):
        print("  %-70s %-26s %d" % (full, kind, count), file=sys.stderr)
    return 1 if failures else 0


# Reasons that refuse a call before its handler: nothing to check for writes.
NOT_REACHED = {None, "MALFORMED_MESSAGE", "MESSAGE_TOO_LARGE", "NO_MESSAGE", "TOO_MANY_MESSAGES", "UNIMPLEMENTED",
               "MISSING_TOKEN", "MALFORMED_TOKEN", "UNKNOWN_KEY", "BAD_SIGNATURE", "TOKEN_EXPIRED", "TOKEN_NOT_YET_VALID",
               "WRONG_ISSUER", "WRONG_APP", "TOKEN_REVOKED", "TOKEN_STALE", "MISSING_SERVICE_CREDENTIAL",
               "BAD_SERVICE_CREDENTIAL", "SERVICE_NOT_ALLOWED"}


def pg_url(service):
    return os.environ.get("RV_PG_URL_%s" % service.upper()) or "postgresql://rv_%s:%s@%s:%s/%s" % (
        service, os.environ.get("RV_PG_PASSWORD_%s" % service.upper(), "rv_%s_local" % service),
        os.environ.get("RV_PG_HOST", "127.0.0.1"), os.environ.get("RV_PG_PORT", "7432"),
        os.environ.get("RV_PG_DATABASE", "rendezvous"))


class RowCounts:
    """Row counts of every table of one service's schema, through one psql session."""
    def __init__(self, service):
        url = pg_url(service)
        self.process = subprocess.Popen(["psql", url, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=0"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        tables = self.run("SELECT table_name FROM information_schema.tables WHERE table_schema = '%s' "
                          "AND table_type = 'BASE TABLE' ORDER BY 1;" % service)
        self.query = " UNION ALL ".join("SELECT '%s', count(*) FROM %s.%s" % (t, service, t) for t in tables) + ";"

    def run(self, sql):
        self.process.stdin.write(sql + "\n\\echo __sweep_end__\n")
        self.process.stdin.flush()
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line or line.strip() == "__sweep_end__":
                return lines
            lines.append(line.strip())

    def counts(self):
        return dict(line.split("|", 1) for line in self.run(self.query) if "|" in line) if self.query != ";" else {}

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def writes_of_refused_calls(refused, methods, channels, calls, lock, replayed):
    """Replays, one at a time, up to 3 calls per RPC that its handler refused, with the row counts
    of the service's schema before and after; a change that a quiet interval as long does not show
    is a write by a refused call. [(rpc, executable, case, tables changed)]."""
    sessions = {}
    found = []
    try:
        for (full, target), cases in sorted(refused.items(), key=lambda item: item[0]):
            if target not in sessions:
                sessions[target] = RowCounts(target)
            counts = sessions[target]
            for case, request, metadata in cases:
                before = counts.counts()
                started = time.monotonic()
                with lock:
                    calls[target] += 1
                answer = invoke(channels[target], methods[full], request, metadata)
                after = counts.counts()
                replayed[0] += 1
                replayed[1] += len(before)
                if answer.code.name == "OK" or before == after:
                    continue
                # background work (event consumers, jobs) or the call? a quiet interval as long
                time.sleep(max(0.05, time.monotonic() - started))
                quiet = counts.counts()
                changed = sorted(t for t in after if after[t] != before.get(t))
                if quiet == after:
                    found.append((full, target, "writes: " + case, "%s %s, and rows changed in %s" % (
                        answer.code.name, answer.message[:120], ", ".join("%s %s->%s" % (t, before.get(t), after[t]) for t in changed))))
    finally:
        for session in sessions.values():
            session.close()
    return found


if __name__ == "__main__":
    sys.exit(main())

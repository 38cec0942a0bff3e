#!/usr/bin/env python3
"""Consumer contracts: what each service relies on in another's API, checked against the provider.

A consumer states its expectations in one file, Shared/Contracts/Consumers/<consumer>.json:

  {"consumer": "messaging", "about": "...", "provider": "identity",
   "setup": [ step, ... ],                      optional: calls that make the provider's state
   "calls": [ {"rpc": "pkg.Service/Method", "request": "pkg.Req", "response": "pkg.Resp",
               "streaming": "server",           optional: the RPC streams its responses
               "credential": "service"|"none"|"bearer",
               "example": {...},                a request (proto3 JSON) the live check sends
               "sends": ["field.path", ...],    request fields the consumer sets
               "reads": ["field.path", ...]} ]} response fields the consumer reads

  step: {"rpc": ..., "request": {...}, "bearer": "${name}", "save": {"name": "field.path"}}
  "${name}" in a request or bearer is a value saved by an earlier step, or ${random_hex64} (${random_hex16});
  "${name_sha256}" is the lowercase hex SHA-256 of saved value `name` trimmed and lowercased
  (how devices hash a contact's email before sending it).

Modes:
  static --proto-root DIR --consumers DIR
      Every expectation against the provider's contract (proto-docs compiled by protoc): the RPC
      exists with those request and response types and that streaming, and every field path the
      consumer sends or reads exists. One line per failure; exit 1 when any.
  live --proto-root DIR --consumers DIR --executable PROVIDER=PATH ...
      Starts each provider's real executable (environment passed through, RV_<P>_PORT=0), runs
      each consumer's setup and calls with grpcio as the consumer would (its own service
      credential: every consumer is accepted by RV_SERVICE_CREDENTIALS), and fails unless each
      call answers OK and every field the consumer reads is populated in what comes back (for a
      stream, in one of the messages within 10 s). One line per failure; exit 1 when any.
Exit 2 when protobuf, grpcio or a provider cannot be loaded or started.
"""

import argparse
import glob
import importlib
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

FIELD_REFERENCE = re.compile(r"\$\{([a-z0-9_]+)\}")


def fail_setup(message):
    print("consumer_contracts.py: " + message, file=sys.stderr)
    sys.exit(2)


def load_pool(proto_root):
    """protoc's descriptors of every .proto under proto_root, in a fresh pool."""
    try:
        import grpc_tools
        from grpc_tools import protoc
        from google.protobuf import descriptor_pb2, descriptor_pool
    except ImportError as error:
        fail_setup("Python protobuf or grpcio-tools is missing (%s); run `make deps`" % error)
    files = sorted(os.path.relpath(os.path.join(directory, name), proto_root)
                   for directory, _, names in os.walk(proto_root) for name in names if name.endswith(".proto"))
    well_known = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    out = tempfile.mkdtemp(prefix="rv-consumers-")
    try:
        target = os.path.join(out, "set.pb")
        if protoc.main(["protoc", "-I" + proto_root, "-I" + well_known, "--include_imports",
                        "--descriptor_set_out=" + target, *files]) != 0:
            fail_setup("protoc failed on %s" % proto_root)
        with open(target, "rb") as handle:
            descriptor_set = descriptor_pb2.FileDescriptorSet.FromString(handle.read())
    finally:
        shutil.rmtree(out, ignore_errors=True)
    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_set.file:
        pool.Add(file)
    return pool


def load_consumers(directory):
    consumers = []
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        with open(path) as handle:
            try:
                consumers.append((os.path.basename(path), json.load(handle)))
            except ValueError as error:
                consumers.append((os.path.basename(path), {"error": "not JSON: %s" % error}))
    return consumers


def resolve(message_descriptor, path):
    """The field descriptors along `path` ("a.b.c"); raises KeyError naming the missing part."""
    fields = []
    current = message_descriptor
    for part in path.split("."):
        if current is None:
            raise KeyError("%s: %s is not a message" % (path, fields[-1].name))
        field = current.fields_by_name.get(part)
        if field is None:
            raise KeyError("%s: %s has no field %s" % (path, current.full_name, part))
        fields.append(field)
        current = field.message_type
        if current is not None and current.GetOptions().map_entry:
            current = None
    return fields


def static_failures(pool, consumers):
    failures = []
    for file, consumer in consumers:
        if "error" in consumer:
            failures.append("%s: %s" % (file, consumer["error"]))
            continue
        for key in ("consumer", "about", "provider", "calls"):
            if key not in consumer:
                failures.append("%s: no %r" % (file, key))
        for call in consumer.get("calls", []):
            where = "%s: %s" % (file, call.get("rpc"))
            try:
                service_name, method_name = call["rpc"].split("/")
                service = pool.FindServiceByName(service_name)
            except (KeyError, ValueError):
                failures.append("%s: the provider has no service %s" % (where, call.get("rpc", "").split("/")[0]))
                continue
            method = service.methods_by_name.get(method_name)
            if method is None:
                failures.append("%s: %s has no RPC %s" % (where, service.full_name, method_name))
                continue
            if method.input_type.full_name != call.get("request"):
                failures.append("%s: takes %s, not %s" % (where, method.input_type.full_name, call.get("request")))
            if method.output_type.full_name != call.get("response"):
                failures.append("%s: returns %s, not %s" % (where, method.output_type.full_name, call.get("response")))
            streams = "server" if method.server_streaming and not method.client_streaming else \
                "client" if method.client_streaming and not method.server_streaming else \
                "bidi" if method.server_streaming else None
            if streams != call.get("streaming"):
                failures.append("%s: streaming is %s, the consumer expects %s" % (where, streams, call.get("streaming")))
            if not call.get("reads"):
                failures.append("%s: names no field it reads" % where)
            for key, message in (("sends", method.input_type), ("reads", method.output_type)):
                for path in call.get(key, []):
                    try:
                        resolve(message, path)
                    except KeyError as error:
                        failures.append("%s: %s %s" % (where, key, error.args[0]))
    return failures


# --- live ---------------------------------------------------------------------------------------

def message_class(pool, name):
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))


def substitute(value, saved):
    if isinstance(value, str):
        def replace(match):
            name = match.group(1)
            if name in ("random_hex16", "random_hex64"):
                return secrets.token_hex(int(name[len("random_hex"):]) // 2)
            if name.endswith("_sha256") and name[:-len("_sha256")] in saved:
                return hashlib.sha256(saved[name[:-len("_sha256")]].strip().lower().encode("utf-8")).hexdigest()
            if name not in saved:
                raise KeyError("no saved value ${%s}" % name)
            return saved[name]
        return FIELD_REFERENCE.sub(replace, value)
    if isinstance(value, list):
        return [substitute(item, saved) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, saved) for key, item in value.items()}
    return value


def is_repeated(field):
    if hasattr(field, "is_repeated"):  # protobuf >= 6; `label` is gone in 7
        return field.is_repeated
    return field.label == field.LABEL_REPEATED


def leaves(message, path):
    """(holder, field) at the end of `path` ("a.b.c"); repeated messages on the way fan out."""
    holders = [message]
    parts = path.split(".")
    for part in parts[:-1]:
        following = []
        for holder in holders:
            field = holder.DESCRIPTOR.fields_by_name[part]
            if is_repeated(field):
                following.extend(getattr(holder, part))
            elif holder.HasField(part):
                following.append(getattr(holder, part))
        holders = following
    return [(holder, holder.DESCRIPTOR.fields_by_name[parts[-1]]) for holder in holders]


def populated(message, path):
    """Whether `path` holds something other than its default in `message` (any element of a list)."""
    for holder, field in leaves(message, path):
        value = getattr(holder, field.name)
        if is_repeated(field):
            if len(value) > 0:
                return True
        elif field.message_type is not None or getattr(field, "has_presence", False):
            if holder.HasField(field.name):
                return True
        elif value != field.default_value:
            return True
    return False


def saved_value(message, path):
    found = leaves(message, path)
    if not found:
        raise KeyError("nothing at %s to save" % path)
    holder, field = found[0]
    return str(getattr(holder, field.name))


def start_provider(name, executable):
    env = dict(os.environ)
    env["RV_%s_PORT" % name.upper()] = "0"
    env["RV_%s_ADMIN_PORT" % name.upper()] = "0"
    env.setdefault("RV_LOG_LEVEL", "warning")
    process = subprocess.Popen([executable], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    prefix = "%s listening on " % name
    deadline = time.time() + 60
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if line.startswith(prefix):
            return process, int(line.strip().rsplit(":", 1)[1])
    process.kill()
    fail_setup("%s did not start: %s" % (name, process.stderr.read()[-4000:]))


def call(channel, pool, rpc, request_json, metadata, streaming, deadline=10):
    from google.protobuf import json_format

    service_name, method_name = rpc.split("/")
    method = pool.FindServiceByName(service_name).methods_by_name[method_name]
    request = message_class(pool, method.input_type.full_name)()
    json_format.ParseDict(request_json, request)
    response_class = message_class(pool, method.output_type.full_name)
    path = "/%s/%s" % (service_name, method_name)
    if streaming:
        stub = channel.unary_stream(path, request_serializer=lambda m: m.SerializeToString(),
                                    response_deserializer=response_class.FromString)
        return stub(request, metadata=metadata, timeout=deadline)
    stub = channel.unary_unary(path, request_serializer=lambda m: m.SerializeToString(),
                               response_deserializer=response_class.FromString)
    return stub(request, metadata=metadata, timeout=deadline)


def live_failures(pool, consumers, executables):
    import grpc

    failures = []
    secret_of = {consumer["consumer"]: "consumer-contract-" + secrets.token_hex(16)
                 for _, consumer in consumers if "consumer" in consumer}
    os.environ["RV_SERVICE_CREDENTIALS"] = ",".join("%s=%s" % item for item in sorted(secret_of.items()))
    providers = {}
    try:
        for _, consumer in consumers:
            provider = consumer.get("provider")
            if provider in providers:
                continue
            if provider not in executables:
                fail_setup("no --executable for provider %s" % provider)
            providers[provider] = start_provider(provider, executables[provider])
        for file, consumer in consumers:
            _, port = providers[consumer["provider"]]
            channel = grpc.insecure_channel("127.0.0.1:%d" % port)
            service = [("authorization", "Service %s:%s" % (consumer["consumer"], secret_of[consumer["consumer"]]))]
            saved = {}
            try:
                for step in consumer.get("setup", []):
                    metadata = []
                    if "bearer" in step:
                        metadata = [("authorization", "Bearer " + substitute(step["bearer"], saved))]
                    response = call(channel, pool, step["rpc"], substitute(step["request"], saved), metadata, False)
                    for name, path in step.get("save", {}).items():
                        saved[name] = saved_value(response, path)
            except (grpc.RpcError, KeyError) as error:
                reason = "%s %s" % (error.code(), error.details()) if isinstance(error, grpc.RpcError) else error.args[0]
                failures.append("%s: setup %s failed: %s" % (file, step["rpc"], reason))
                continue
            for expectation in consumer["calls"]:
                where = "%s: %s" % (file, expectation["rpc"])
                metadata = service if expectation.get("credential") == "service" else []
                try:
                    request = substitute(expectation.get("example", {}), saved)
                    if expectation.get("streaming") == "server":
                        missing = set(expectation["reads"])
                        stream = call(channel, pool, expectation["rpc"], request, metadata, True)
                        try:
                            for message in stream:
                                if all(populated(message, path) for path in expectation["reads"]):
                                    missing = set()
                                    break
                                missing &= {path for path in expectation["reads"] if not populated(message, path)}
                        except grpc.RpcError as error:
                            if error.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
                                raise
                        finally:
                            stream.cancel()
                    else:
                        response = call(channel, pool, expectation["rpc"], request, metadata, False)
                        missing = {path for path in expectation["reads"] if not populated(response, path)}
                    for path in sorted(missing):
                        failures.append("%s: the provider leaves %s empty, and the consumer reads it" % (where, path))
                except grpc.RpcError as error:
                    failures.append("%s: %s %s" % (where, error.code(), error.details()))
                except KeyError as error:
                    failures.append("%s: %s" % (where, error.args[0]))
            channel.close()
    finally:
        for process, _ in providers.values():
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["static", "live"])
    parser.add_argument("--proto-root", required=True)
    parser.add_argument("--consumers", required=True)
    parser.add_argument("--executable", action="append", default=[], help="PROVIDER=PATH")
    args = parser.parse_args()
    pool = load_pool(os.path.abspath(args.proto_root))
    consumers = load_consumers(args.consumers)
    if not consumers:
        fail_setup("no consumer files in %s" % args.consumers)
    failures = static_failures(pool, consumers)
    if args.mode == "live" and not failures:
        executables = dict(item.split("=", 1) for item in args.executable)
        failures = live_failures(pool, consumers, executables)
    for failure in failures:
        print(failure)
    print("%d consumer file(s), %d expectation(s), %d failure(s)" % (
        len(consumers), sum(len(c.get("calls", [])) for _, c in consumers), len(failures)), file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

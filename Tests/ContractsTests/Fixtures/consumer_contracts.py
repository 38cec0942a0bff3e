#!/usr/bin/env python3
"""Consumer contracts: what each service relies on in another's API, checked against the provider.

A consumer states its expectations of one provider in one file,
Shared/Contracts/Consumers/<consumer>.json (or <consumer>-<provider>.json when the consumer has several):

  {"consumer": "messaging", "about": "...", "provider": "identity",
   "setup": [ step, ... ],                      optional: calls that make the provider's state
   "calls": [ {"rpc": "pkg.Service/Method", "request": "pkg.Req", "response": "pkg.Resp",
               "streaming": "server",           optional: the RPC streams its responses
               "credential": "service"|"none"|"bearer",
               "example": {...},                a request (proto3 JSON) the live check sends
               "sends": ["field.path", ...],    request fields the consumer sets
               "reads": ["field.path", ...],    response fields the consumer reads
               "events": [ event, ... ]} ]}     optional, on WatchEvents: the event types it applies

  step: {"rpc": ..., "request": {...}, "bearer": "${name}", "save": {"name": "field.path"},
         "service": "identity",                 optional: the service called (default: the provider),
                                                e.g. identity for a sign-in whose token the provider takes
         "retry": {"while": "NOT_FOUND", "seconds": 10}}   optional: repeats the step while it fails
                                                with that status, e.g. until the provider has applied
                                                an event of an earlier step
  or {"service": "identity", "command": ["grant-role", "--role", "host", ...]}: runs the service's
     executable with those arguments, as an operator would (e.g. a role no RPC grants)
  event: {"type": "MatchCreated", "payload": "pkg.Message",   the message `payload` holds for that type
          "reads": ["field.path", ...],                         payload fields the consumer reads
          "caused_by_setup": {"field.path": "${name}", ...}}     optional: the setup makes one, whose
                                                                payload holds those values (saved
                                                                ones, or JSON literals such as false)
  "${name}" in a request or bearer is a value saved by an earlier step, or ${random_hex64} (${random_hex16});
  "${name_sha256}" is the lowercase hex SHA-256 of saved value `name` trimmed and lowercased
  (how devices hash a contact's email before sending it); ${now_plus_<n>s} is the RFC 3339 UTC
  time n seconds from now (a Timestamp in proto3 JSON).

Modes:
  static --proto-root DIR --consumers DIR
      Every expectation against the provider's contract (proto-docs compiled by protoc): the RPC
      exists with those request and response types and that streaming, and every field path the
      consumer sends or reads exists; an event's payload message exists with every field the
      consumer reads, and the example asks for exactly the declared types. One line per failure;
      exit 1 when any.
  live --proto-root DIR --consumers DIR --executable SERVICE=PATH ...
      Starts the real executable of every service the contracts call (providers and setup
      services; identity always, whose keys the others verify tokens with), each with the
      environment passed through plus RV_<S>_PORT=0, its own service credential and
      RV_IDENTITY_ADDRESS; runs each consumer's setup and calls with grpcio as the consumer would
      (its own service credential: every consumer and service is in RV_SERVICE_CREDENTIALS), and
      fails unless each call answers OK and every field the consumer reads is populated in what
      comes back (for a stream, in one of the messages within 10 s). A WatchEvents call with
      "events" sends only the types it asks for, each payload decoding as the declared message;
      each event the setup causes (its payload holding the values named) must arrive within 15 s
      with every other payload field the consumer reads populated; when the setup causes none,
      the stream must stay open without an error for 3 s.
      One line per failure; exit 1 when any.
Exit 2 when protobuf, grpcio or a provider cannot be loaded or started.
"""

import argparse
import datetime
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
import threading
import time

FIELD_REFERENCE = re.compile(r"\$\{([a-z0-9_]+)\}")
NOW_PLUS = re.compile(r"now_plus_([0-9]+)s")
EVENT = "rendezvous.events.v1.Event"
# Start order: identity first (the others verify tokens with its keys), a provider before its followers.
SERVICES = ("identity", "discovery", "media", "production", "messaging")


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
            if "events" in call:
                failures.extend(event_failures(pool, where, call))
    return failures


def event_failures(pool, where, call):
    """What is wrong with a call's "events": each payload message and the fields read from it
    must exist, and the example must ask for exactly the declared types (the consumer's filter)."""
    failures = []
    if call.get("response") != EVENT:
        return ["%s: declares events, but returns %s, not %s" % (where, call.get("response"), EVENT)]
    declared = [event.get("type") for event in call["events"]]
    asked = call.get("example", {}).get("types", [])
    for name in sorted(set(declared) - set(asked)):
        failures.append("%s: example.types does not ask for %s, which events declares" % (where, name))
    for name in sorted(set(asked) - set(declared)):
        failures.append("%s: example.types asks for %s, which events does not declare" % (where, name))
    for event in call["events"]:
        at = "%s: event %s" % (where, event.get("type"))
        try:
            payload = pool.FindMessageTypeByName(event.get("payload", ""))
        except KeyError:
            failures.append("%s: the provider has no message %s" % (at, event.get("payload")))
            continue
        if not event.get("reads"):
            failures.append("%s: names no payload field it reads" % at)
        for path in event.get("reads", []):
            try:
                resolve(payload, path)
            except KeyError as error:
                failures.append("%s: reads %s" % (at, error.args[0]))
        if "caused_by_setup" not in event:
            continue
        caused = event["caused_by_setup"]
        if not isinstance(caused, dict) or not caused:
            failures.append("%s: caused_by_setup names no payload field that tells the setup's event" % at)
            continue
        for path in caused:
            try:
                resolve(payload, path)
            except KeyError as error:
                failures.append("%s: caused_by_setup %s" % (at, error.args[0]))
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
            later = NOW_PLUS.fullmatch(name)
            if later:
                moment = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=int(later.group(1)))
                return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
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


def holds(message, path, value):
    """Whether `path` in `message` is `value` (for a list: has it), compared as JSON text."""
    for holder, field in leaves(message, path):
        found = getattr(holder, field.name)
        if any(as_text(item) == as_text(value) for item in (found if is_repeated(field) else [found])):
            return True
    return False


def as_text(value):
    return json.dumps(value) if isinstance(value, bool) else str(value)


def saved_value(message, path):
    found = leaves(message, path)
    if not found:
        raise KeyError("nothing at %s to save" % path)
    holder, field = found[0]
    return str(getattr(holder, field.name))


def start_service(name, executable, settings, log_directory, settings_name=None):
    """Starts executable `name` with the environment plus `settings` (None removes a variable)
    and its ports (RV_<SETTINGS_NAME>_PORT, default the name's) at 0; (process, port) once it
    prints `<name> listening on HOST:PORT`. Its standard error goes to a file (a pipe nobody
    reads would fill and block its logging), its later standard output is drained."""
    env = dict(os.environ)
    for key, value in settings.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    env["RV_%s_PORT" % (settings_name or name).upper()] = "0"
    env["RV_%s_ADMIN_PORT" % (settings_name or name).upper()] = "0"
    env.setdefault("RV_LOG_LEVEL", "warning")
    log = os.path.join(log_directory, name + ".log")
    with open(log, "w") as errors:
        process = subprocess.Popen([executable], env=env, stdout=subprocess.PIPE, stderr=errors, text=True)
    prefix = "%s listening on " % name
    deadline = time.time() + 60
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if line.startswith(prefix):
            threading.Thread(target=process.stdout.read, daemon=True).start()
            return process, int(line.strip().rsplit(":", 1)[1])
    process.kill()
    process.wait()
    with open(log) as errors:
        fail_setup("%s did not start: %s" % (name, errors.read()[-4000:]))


def services_called(consumers):
    """Every service the contracts call: providers, the services of setup steps, and identity."""
    names = {"identity"}
    for _, consumer in consumers:
        names.add(consumer.get("provider"))
        for step in consumer.get("setup", []):
            names.add(step.get("service", consumer.get("provider")))
    unknown = sorted(name for name in names if name not in SERVICES)
    if unknown:
        fail_setup("not a service: %s (services: %s)" % (", ".join(map(str, unknown)), ", ".join(SERVICES)))
    return [name for name in SERVICES if name in names]


def stop_services(started):
    """Stops what start_service started ({name: (process, port)}), the last started first."""
    for process, _ in reversed(list(started.values())):
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def start_services(names, executables, secret_of, log_directory, started):
    """Starts `names` in order into `started` ({name: (process, port)}): each with its own
    credential and the addresses of those started before it (identity's first), none of any
    other, so no service follows a developer's stack on the default ports; messaging, which
    always follows discovery, gets an address nobody answers when discovery is not started."""
    credentials = ",".join("%s=%s" % item for item in sorted(secret_of.items()))
    for name in names:
        if name not in executables:
            fail_setup("no --executable for service %s" % name)
        settings = {"RV_SERVICE_NAME": name, "RV_SERVICE_SECRET": secret_of[name], "RV_SERVICE_CREDENTIALS": credentials}
        for other in SERVICES:
            if other != name:
                settings["RV_%s_ADDRESS" % other.upper()] = \
                    "127.0.0.1:%d" % started[other][1] if other in started else None
        if name == "messaging" and settings["RV_DISCOVERY_ADDRESS"] is None:
            settings["RV_DISCOVERY_ADDRESS"] = "127.0.0.1:9"
        started[name] = start_service(name, executables[name], settings, log_directory)


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


def run_command(executable, arguments):
    """Runs a service's executable as a command (the environment passed through); a failure
    raises KeyError with its output, as a setup step's failure."""
    try:
        result = subprocess.run([executable, *arguments], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise KeyError("%s did not finish in 60 s" % " ".join(arguments))
    if result.returncode != 0:
        raise KeyError("exit %d: %s" % (result.returncode, (result.stdout + result.stderr)[-2000:]))


def call_step(channel, pool, step, saved, metadata):
    """A setup step's response, repeating the step while it fails with its "retry" status."""
    import grpc

    retry = step.get("retry", {})
    deadline = time.time() + retry.get("seconds", 0)
    while True:
        try:
            return call(channel, pool, step["rpc"], substitute(step["request"], saved), metadata, False)
        except grpc.RpcError as error:
            if error.code().name != retry.get("while") or time.time() > deadline:
                raise
            time.sleep(0.1)


def watch(channel, pool, expectation, request, metadata, saved):
    """The failures of one server-streaming call (see the module's doc for what is awaited)."""
    import grpc
    from google.protobuf.message import DecodeError

    where = expectation["rpc"]
    reads = expectation["reads"]
    events = {event["type"]: event for event in expectation.get("events", [])}
    # Per type the setup causes: the payload values that tell its event from earlier ones.
    awaited = {name: substitute(event["caused_by_setup"], saved)
               for name, event in events.items() if event.get("caused_by_setup")}
    asked = set(request.get("types", [])) if expectation.get("response") == EVENT else set()
    expects_messages = not events or bool(awaited)
    missing = set(reads) if expects_messages else set()
    unread = {name: None for name in awaited}  # per awaited type: payload fields empty in every one so far
    failures = []
    stream = call(channel, pool, expectation["rpc"], request, metadata, True,
                  deadline=15 if awaited else 10 if expects_messages else 3)
    try:
        for message in stream:
            if asked and message.type not in asked:
                failures.append("%s: the provider sent a %s event, which the consumer did not ask for" % (where, message.type))
                break
            missing &= {path for path in reads if not populated(message, path)}
            if message.type in events:
                payload = message_class(pool, events[message.type]["payload"])()
                try:
                    payload.ParseFromString(message.payload)
                except DecodeError:
                    failures.append("%s: a %s event's payload is not a %s" % (where, message.type, events[message.type]["payload"]))
                    break
                if message.type in awaited and all(holds(payload, path, value)
                                                   for path, value in awaited[message.type].items()):
                    empty = {path for path in events[message.type]["reads"]
                             if path not in awaited[message.type] and not populated(payload, path)}
                    unread[message.type] = empty if unread[message.type] is None else unread[message.type] & empty
            # Done once the setup's events came (nothing later changes them), or, awaiting
            # none, once the stream showed every field the consumer reads.
            if all(empty is not None for empty in unread.values()) if awaited else not missing:
                break
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
            raise
    finally:
        stream.cancel()
    for path in sorted(missing):
        failures.append("%s: the provider leaves %s empty, and the consumer reads it" % (where, path))
    for name in sorted(unread):
        if unread[name] is None:
            failures.append("%s: no %s event with %s came within 15 s of the setup that causes it" % (
                where, name, ", ".join("%s %s" % (path, as_text(value)) for path, value in sorted(awaited[name].items()))))
        for path in sorted(unread[name] or ()):
            failures.append("%s: the provider's %s events leave %s empty, and the consumer reads it" % (where, name, path))
    return failures


def live_failures(pool, consumers, executables):
    import grpc

    failures = []
    names = services_called(consumers)
    secret_of = {name: "consumer-contract-" + secrets.token_hex(16)
                 for name in set(names) | {consumer["consumer"] for _, consumer in consumers if "consumer" in consumer}}
    log_directory = tempfile.mkdtemp(prefix="rv-consumers-logs-")
    started = {}
    try:
        start_services(names, executables, secret_of, log_directory, started)
        channels = {name: grpc.insecure_channel("127.0.0.1:%d" % port) for name, (_, port) in started.items()}
        for file, consumer in consumers:
            provider = consumer["provider"]
            channel = channels[provider]
            service = [("authorization", "Service %s:%s" % (consumer["consumer"], secret_of[consumer["consumer"]]))]
            saved = {}
            try:
                for step in consumer.get("setup", []):
                    if "command" in step:
                        run_command(executables[step.get("service", provider)], substitute(step["command"], saved))
                        continue
                    metadata = []
                    if "bearer" in step:
                        metadata = [("authorization", "Bearer " + substitute(step["bearer"], saved))]
                    response = call_step(channels[step.get("service", provider)], pool, step, saved, metadata)
                    for name, path in step.get("save", {}).items():
                        saved[name] = saved_value(response, path)
            except (grpc.RpcError, KeyError) as error:
                reason = "%s %s" % (error.code(), error.details()) if isinstance(error, grpc.RpcError) else error.args[0]
                failures.append("%s: setup %s failed: %s" % (file, step.get("rpc") or " ".join(step["command"]), reason))
                continue
            for expectation in consumer["calls"]:
                where = "%s: %s" % (file, expectation["rpc"])
                metadata = service if expectation.get("credential") == "service" else []
                try:
                    request = substitute(expectation.get("example", {}), saved)
                    if expectation.get("streaming") == "server":
                        failures.extend("%s: %s" % (file, failure)
                                        for failure in watch(channel, pool, expectation, request, metadata, saved))
                    else:
                        response = call(channel, pool, expectation["rpc"], request, metadata, False)
                        for path in sorted(path for path in expectation["reads"] if not populated(response, path)):
                            failures.append("%s: the provider leaves %s empty, and the consumer reads it" % (where, path))
                except grpc.RpcError as error:
                    failures.append("%s: %s %s" % (where, error.code(), error.details()))
                except KeyError as error:
                    failures.append("%s: %s" % (where, error.args[0]))
        for channel in channels.values():
            channel.close()
    finally:
        stop_services(started)
        shutil.rmtree(log_directory, ignore_errors=True)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["static", "live"])
    parser.add_argument("--proto-root", required=True)
    parser.add_argument("--consumers", required=True)
    parser.add_argument("--executable", action="append", default=[], help="SERVICE=PATH")
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

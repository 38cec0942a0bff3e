#!/usr/bin/env python3
"""Python protobuf's view of proto-docs/, for the Swift codec conformance test.

The message classes are the ones protoc generates from proto-docs/ (via
Tests/InteropTests/Fixtures/gen_protos.sh, into a temporary directory), so
Python's protobuf runtime, not our Swift code, decides what the bytes mean.

Modes (one message per stdin line, any number of lines per run):

  conformance.py decode <full.Message.Name>   stdin: hex of serialized bytes
      stdout: <canonical JSON> <TAB> <hex of deterministic re-serialization>
  conformance.py encode <full.Message.Name>   stdin: proto3 JSON of the message
      stdout: <hex of deterministic serialization>
  conformance.py batch                         stdin: JSON requests, one a line
      {"id": ..., "op": "decode", "type": "grpc.testing.Payload", "hex": "0802"}
      {"id": ..., "op": "encode", "type": "grpc.testing.Payload", "json": {...}}
      {"id": ..., "op": "list"}   (json: every message's full name, as a JSON list)
      stdout: one JSON reply a line, in request order:
      {"id": ..., "hex": "...", "json": "<canonical JSON>"} or {"id": ..., "error": "..."}

Canonical JSON is json_format.MessageToDict(preserving_proto_field_name=True)
(bytes as base64, enums by name when known, default values omitted), dumped
with sorted keys and no spaces. Serialization is SerializeToString(
deterministic=True); google.protobuf.Any values packed from JSON are re-packed
deterministically too, since json_format packs them without that flag.
Deterministic is not canonical: upb, Python's default runtime, writes a map
key after the longer keys it is a prefix of ("ab" before "a"), unlike C++.

Exit status 0 once every line has been answered (bad lines get an error
reply in batch mode); 1 on a bad line in decode/encode mode; 2 on bad
arguments or when protobuf or the generated modules cannot be loaded.
"""

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GEN_PROTOS = os.path.join(HERE, "..", "..", "InteropTests", "Fixtures", "gen_protos.sh")


def fail_setup(message):
    print("conformance.py: " + message, file=sys.stderr)
    sys.exit(2)


def load_classes():
    """Generates the Python modules from proto-docs/ and maps full names to classes."""
    try:
        import grpc
        import grpc_tools  # noqa: F401  (gen_protos.sh runs its protoc)
        from google.protobuf import json_format  # noqa: F401
    except ImportError as error:
        fail_setup("Python protobuf, grpcio or grpcio-tools is missing (%s); run `make deps`" % error)
    gen = tempfile.mkdtemp(prefix="rv-conformance-")
    try:
        run = subprocess.run(["bash", GEN_PROTOS, gen], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0:
            fail_setup("gen_protos.sh failed:\n" + run.stdout)
        # The modules import each other as grpc.testing.*, google.rpc.*: put GEN on the
        # path, and GEN/grpc on grpcio's package path (as interop_common.load_protos does).
        grpc.__path__.append(os.path.join(gen, "grpc"))
        sys.path.append(gen)
        classes = {}
        for directory, _, files in sorted(os.walk(gen)):
            for file in sorted(files):
                if not file.endswith("_pb2.py"):
                    continue
                relative = os.path.relpath(os.path.join(directory, file), gen)
                module = importlib.import_module(relative[:-3].replace(os.sep, "."))
                for descriptor in module.DESCRIPTOR.message_types_by_name.values():
                    classes[descriptor.full_name] = getattr(module, descriptor.name)
        return classes
    finally:
        shutil.rmtree(gen, ignore_errors=True)


def repack_any(message, classes):
    """Re-serializes every google.protobuf.Any value in `message` deterministically."""
    from google.protobuf import any_pb2

    if isinstance(message, any_pb2.Any):
        inner_name = message.type_url.split("/")[-1]
        if inner_name in classes:
            inner = classes[inner_name].FromString(message.value)
            repack_any(inner, classes)
            message.value = inner.SerializeToString(deterministic=True)
        return
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            continue
        values = value if is_repeated(field) else [value]
        for item in values:
            repack_any(item, classes)


def is_repeated(field):
    if hasattr(field, "is_repeated"):  # protobuf >= 6; `label` is gone in 7
        return field.is_repeated
    return field.label == field.LABEL_REPEATED


def canonical_json(message):
    from google.protobuf import json_format

    data = json_format.MessageToDict(message, preserving_proto_field_name=True)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def decode(classes, type_name, hex_bytes):
    """Returns (canonical JSON, hex of deterministic re-serialization)."""
    message = classes[type_name].FromString(bytes.fromhex(hex_bytes))
    return canonical_json(message), message.SerializeToString(deterministic=True).hex()


def encode(classes, type_name, json_value):
    """Returns (canonical JSON of the parsed message, hex of deterministic serialization)."""
    from google.protobuf import json_format

    message = classes[type_name]()
    json_format.ParseDict(json_value, message)
    repack_any(message, classes)
    return canonical_json(message), message.SerializeToString(deterministic=True).hex()


def answer(request, classes):
    reply = {"id": request.get("id")}
    try:
        if request["op"] == "list":
            reply["json"] = json.dumps(sorted(classes))
            return reply
        type_name = request["type"]
        if type_name not in classes:
            raise KeyError("unknown message type %s" % type_name)
        if request["op"] == "decode":
            reply["json"], reply["hex"] = decode(classes, type_name, request["hex"])
        elif request["op"] == "encode":
            reply["json"], reply["hex"] = encode(classes, type_name, request["json"])
        else:
            raise ValueError("unknown op %r" % request["op"])
    except Exception as error:  # every bad request gets its own error reply
        reply["error"] = "%s: %s" % (type(error).__name__, error)
    return reply


def main(argv):
    if len(argv) == 2 and argv[1] == "batch":
        classes = load_classes()
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                request = json.loads(line)
            except ValueError as error:
                print(json.dumps({"id": None, "error": "bad request line: %s" % error}), flush=True)
                continue
            print(json.dumps(answer(request, classes), ensure_ascii=False), flush=True)
        return 0
    if len(argv) == 3 and argv[1] in ("decode", "encode"):
        classes = load_classes()
        if argv[2] not in classes:
            fail_setup("unknown message type %s; known: %s" % (argv[2], ", ".join(sorted(classes))))
        for line in sys.stdin:
            if not line.strip():
                continue
            if argv[1] == "decode":
                text, hex_bytes = decode(classes, argv[2], line.strip())
                print(text + "\t" + hex_bytes, flush=True)
            else:
                print(encode(classes, argv[2], json.loads(line))[1], flush=True)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

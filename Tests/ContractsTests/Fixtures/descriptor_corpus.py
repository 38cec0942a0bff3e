#!/usr/bin/env python3
"""Message values built from descriptors, for the Swift codec conformance test.

Python's protobuf compiles the .proto files (grpc_tools.protoc, into a temporary directory),
then, for every message type they declare, builds values from the type's descriptor alone: no
hand-written case lists, so a message added to a .proto is covered the day it lands.

Values per message type (names are stable, so a failure names its value):
  empty      nothing set
  zeros      every field with presence (messages, proto3 `optional`, oneof arms) set to its
             zero value: presence must survive a round trip even when the value is the default
  edge<i>    every field set, scalars from an edge-value table (0 excluded: min/max of each
             width, multi-byte varints, non-ASCII and long strings, binary bytes), enums
             cycling through their declared values plus an unknown number (open enums keep it),
             repeated fields with three elements, maps with three entries, nested messages
             filled two levels deep; edge<i> takes the i-th oneof arm, so there are as many as
             the message's largest oneof has arms (at least three)
  unknown    edge0 followed by fields of every wire type whose numbers the message does not use

Usage:
  descriptor_corpus.py corpus  -I ROOT [-I ROOT ...] FILE.proto ...
      stdout: one JSON object a line: {"type", "name", "hex", "known_hex", "json", "maps"}
      hex is the value as sent (with the unknown fields for `unknown`); known_hex and json are
      the deterministic serialization and canonical JSON of its known fields; maps says whether
      it holds a map of two or more entries (whose order protobuf leaves to each runtime).
  descriptor_corpus.py decode  -I ROOT [-I ROOT ...] FILE.proto ...
      stdin: {"id", "type", "hex"} a line; stdout: {"id", "json", "hex"} or {"id", "error"}
  descriptor_corpus.py list    -I ROOT [-I ROOT ...] FILE.proto ...
      stdout: the JSON list of every message type the files declare

FILE.proto are paths relative to one of the roots; "all" means every .proto under the first.
Canonical JSON: json_format.MessageToDict(preserving_proto_field_name=True), sorted keys.
Exit 0 when every line was answered; 2 when protobuf, grpcio-tools or a .proto fails to load.
"""

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

EDGE_VALUES = {
    "int32": [1, -1, 2147483647, -2147483648, 150],
    "sint32": [1, -1, 2147483647, -2147483648, -64],
    "sfixed32": [1, -1, 2147483647, -2147483648, 7],
    "int64": [1, -1, 9223372036854775807, -9223372036854775808, 300],
    "sint64": [1, -1, 9223372036854775807, -9223372036854775808, -65],
    "sfixed64": [1, -1, 9223372036854775807, -9223372036854775808, 7],
    "uint32": [1, 4294967295, 128, 16384, 2],
    "fixed32": [1, 4294967295, 128, 3, 2],
    "uint64": [1, 18446744073709551615, 128, 2097152, 2],
    "fixed64": [1, 18446744073709551615, 128, 3, 2],
    "float": [1.5, -2.25, 3.4028234663852886e38, 1.401298464324817e-45, -1e-10],
    "double": [1.5, -2.5e-300, 1.7976931348623157e308, 5e-324, -0.1],
    "bool": [True],
    "string": ["x", "h\u00e9llo \U0001F600 \u4e16\u754c", "a" * 300, "tab\there", "\u0000nul"],
    "bytes": [b"\x00\xff", b"\x80" * 200, b"\x01", b"ab\x00", b"\xfe"],
}
# Map keys that are not prefixes of one another: Python's upb writes a key after the longer keys
# it prefixes, Swift in plain sorted order; with these both orders are the sorted one.
MAP_STRING_KEYS = ["k\u00e9y", "alpha", "b-2", "zz", "m"]
UNKNOWN_FIELDS = [(0, b"\x96\x01"), (1, b"\x01\x02\x03\x04\x05\x06\x07\x08"),
                  (2, b"\x03abc"), (5, b"\x01\x02\x03\x04")]
REPEATED_COUNT = 3
MAX_DEPTH = 2


def fail_setup(message):
    print("descriptor_corpus.py: " + message, file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    roots, files = [], []
    index = 0
    while index < len(argv):
        if argv[index] == "-I" and index + 1 < len(argv):
            roots.append(os.path.abspath(argv[index + 1]))
            index += 2
        else:
            files.append(argv[index])
            index += 1
    if not roots or not files:
        fail_setup("needs -I ROOT and at least one FILE.proto (or all)")
    if files == ["all"]:
        files = sorted(os.path.relpath(os.path.join(directory, name), roots[0])
                       for directory, _, names in os.walk(roots[0]) for name in names if name.endswith(".proto"))
    return roots, files


def load_messages(roots, files):
    """Compiles `files` and returns {full name: class} for every message they declare (nested too)."""
    try:
        import grpc_tools
        from grpc_tools import protoc
        from google.protobuf import json_format  # noqa: F401
    except ImportError as error:
        fail_setup("Python protobuf or grpcio-tools is missing (%s); run `make deps`" % error)
    gen = tempfile.mkdtemp(prefix="rv-corpus-")
    try:
        well_known = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
        # Every .proto under the roots is compiled, so the files' imports have modules too.
        every = sorted(set(files) | {os.path.relpath(os.path.join(directory, name), root)
                                     for root in roots for directory, _, names in os.walk(root)
                                     for name in names if name.endswith(".proto")})
        args = ["protoc", *("-I" + root for root in roots), "-I" + well_known, "--python_out=" + gen, *every]
        if protoc.main(args) != 0:
            fail_setup("protoc failed on %s" % " ".join(files))
        # Imports between generated modules are absolute (grpc.health.v1..., google.rpc...):
        # the generated tree goes first on the path, and packages that exist elsewhere
        # (grpc from grpcio, google from protobuf, opentelemetry from opentelemetry-proto) get
        # its folders on their package path.
        sys.path.insert(0, gen)
        for package in ("grpc", "google", "opentelemetry"):
            if os.path.isdir(os.path.join(gen, package)):
                module = importlib.import_module(package)
                module.__path__.append(os.path.join(gen, package))
        classes = {}
        for file in files:
            module = importlib.import_module(file[:-len(".proto")].replace("-", "_").replace(os.sep, ".") + "_pb2")
            for descriptor in module.DESCRIPTOR.message_types_by_name.values():
                collect(descriptor, module, classes)
        return classes
    finally:
        shutil.rmtree(gen, ignore_errors=True)


def collect(descriptor, module, classes):
    from google.protobuf import message_factory

    if descriptor.GetOptions().map_entry:
        return
    classes[descriptor.full_name] = message_factory.GetMessageClass(descriptor)
    for nested in descriptor.nested_types:
        collect(nested, module, classes)


def is_repeated(field):
    if hasattr(field, "is_repeated"):  # protobuf >= 6; `label` is gone in 7
        return field.is_repeated
    return field.label == field.LABEL_REPEATED


def is_synthetic(oneof):
    """The oneof protoc makes for a proto3 `optional` field (named after it)."""
    return len(oneof.fields) == 1 and oneof.name == "_" + oneof.fields[0].name


def has_presence(field):
    return getattr(field, "has_presence", False)


TYPE_NAMES = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64", 7: "fixed32",
              8: "bool", 9: "string", 12: "bytes", 13: "uint32", 15: "sfixed32", 16: "sfixed64",
              17: "sint32", 18: "sint64"}


def scalar(field, index):
    if field.enum_type is not None:
        values = [value.number for value in field.enum_type.values if value.number != 0]
        closed = getattr(field.enum_type, "is_closed", False)
        choices = values + ([] if closed else [99])
        return choices[index % len(choices)] if choices else 0
    table = EDGE_VALUES[TYPE_NAMES[field.type]]
    return table[index % len(table)]


def fill(message, index, depth):
    """Sets every field of `message`; `index` picks edge values and the oneof arms."""
    descriptor = message.DESCRIPTOR
    if descriptor.full_name == "google.protobuf.Timestamp":
        message.seconds = [1_795_000_000, 0, 253402300799, 1][index % 4]
        message.nanos = [5_000, 999_999_999, 0, 1][index % 4]
        return
    if descriptor.full_name == "google.protobuf.Any":
        # json_format must resolve the packed type; pack a value of the message that holds it.
        return
    chosen_arms = {}
    for oneof in descriptor.oneofs:
        if not is_synthetic(oneof):
            chosen_arms[oneof.name] = oneof.fields[index % len(oneof.fields)].name
    for field in descriptor.fields:
        oneof = field.containing_oneof
        if oneof is not None and oneof.name in chosen_arms and chosen_arms[oneof.name] != field.name:
            continue
        set_field(message, field, index, depth)


def set_field(message, field, index, depth):
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        key_field = field.message_type.fields_by_name["key"]
        value_field = field.message_type.fields_by_name["value"]
        container = getattr(message, field.name)
        for offset in range(REPEATED_COUNT):
            key = map_key(key_field, index + offset)
            if value_field.message_type is not None:
                if depth < MAX_DEPTH:
                    fill(container[key], index + offset, depth + 1)
                else:
                    container[key].SetInParent()
            else:
                container[key] = scalar(value_field, index + offset)
        return
    if is_repeated(field):
        container = getattr(message, field.name)
        for offset in range(REPEATED_COUNT):
            if field.message_type is not None:
                item = container.add()
                if depth < MAX_DEPTH:
                    fill(item, index + offset, depth + 1)
            else:
                container.append(scalar(field, index + offset))
        return
    if field.message_type is not None:
        child = getattr(message, field.name)
        child.SetInParent()
        if field.message_type.full_name == "google.protobuf.Any":
            pack_any(child, message)
        elif depth < MAX_DEPTH:
            fill(child, index, depth + 1)
        return
    setattr(message, field.name, scalar(field, index))


def map_key(field, index):
    if field.type == 9:  # string
        return MAP_STRING_KEYS[index % len(MAP_STRING_KEYS)]
    if field.type == 8:  # bool
        return index % 2 == 1
    table = EDGE_VALUES[TYPE_NAMES[field.type]]
    return table[index % len(table)]


def pack_any(any_value, holder):
    """Packs a message json_format can resolve: the holder's own empty type (always importable)."""
    any_value.Pack(type(holder)(), deterministic=True)


def zeros(message):
    """Every field with presence set to its zero value; repeated and map fields left empty."""
    for field in message.DESCRIPTOR.fields:
        if is_repeated(field):
            continue
        oneof = field.containing_oneof
        if oneof is not None and not is_synthetic(oneof) and oneof.fields[0] is not field:
            continue  # one arm per oneof: the first
        if field.message_type is not None:
            getattr(message, field.name).SetInParent()
        elif has_presence(field):
            setattr(message, field.name, field.default_value)


def unknown_suffix(descriptor):
    used = {field.number for field in descriptor.fields}
    suffix = b""
    number = 9000
    for wire_type, payload in UNKNOWN_FIELDS:
        while number in used:
            number += 1
        suffix += varint(number << 3 | wire_type) + payload
        number += 1
    return suffix


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def has_ordered_map(message):
    """Whether `message` holds, at any depth, a map with two or more entries: protobuf defines no
    order for them, and Python's upb writes integer keys in another order than Swift (and C++)."""
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            if len(value) > 1:
                return True
            items = value.values() if field.message_type.fields_by_name["value"].message_type is not None else []
        else:
            items = value if is_repeated(field) else [value]
        if any(has_ordered_map(item) for item in items):
            return True
    return False


def canonical_json(message):
    from google.protobuf import json_format

    data = json_format.MessageToDict(message, preserving_proto_field_name=True)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def values_of(cls):
    descriptor = cls.DESCRIPTOR
    arms = max([len(oneof.fields) for oneof in descriptor.oneofs if not is_synthetic(oneof)] + [3])
    empty = cls()
    yield "empty", empty, b""
    zero = cls()
    zeros(zero)
    yield "zeros", zero, b""
    for index in range(arms):
        value = cls()
        fill(value, index, 0)
        yield "edge%d" % index, value, b""
    first = cls()
    fill(first, 0, 0)
    yield "unknown", first, unknown_suffix(descriptor)


def corpus(classes):
    for name in sorted(classes):
        for value_name, value, suffix in values_of(classes[name]):
            known = value.SerializeToString(deterministic=True)
            print(json.dumps({"type": name, "name": value_name, "hex": (known + suffix).hex(),
                              "known_hex": known.hex(), "json": canonical_json(value),
                              "maps": has_ordered_map(value)}, ensure_ascii=False))


def decode(classes):
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = {}
        try:
            request = json.loads(line)
            reply["id"] = request.get("id")
            message = classes[request["type"]].FromString(bytes.fromhex(request["hex"]))
            reply["json"] = canonical_json(message)
            reply["hex"] = message.SerializeToString(deterministic=True).hex()
        except Exception as error:  # every bad request gets its own error reply
            reply["error"] = "%s: %s" % (type(error).__name__, error)
        print(json.dumps(reply, ensure_ascii=False), flush=True)


def main(argv):
    if len(argv) < 2 or argv[1] not in ("corpus", "decode", "list"):
        print(__doc__, file=sys.stderr)
        return 2
    roots, files = parse_args(argv[2:])
    classes = load_messages(roots, files)
    if argv[1] == "list":
        print(json.dumps(sorted(classes)))
    elif argv[1] == "corpus":
        corpus(classes)
    else:
        decode(classes)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

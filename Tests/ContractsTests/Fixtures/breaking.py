#!/usr/bin/env python3
"""Wire- and source-compatibility of proto-docs/ against a recorded baseline (like `buf breaking`).

  breaking.py check    --baseline FILE --proto-root DIR   compare DIR's protos with FILE
  breaking.py snapshot --out FILE      --proto-root DIR   record DIR's protos as the baseline
  breaking.py rules                                       list the rules, one a line

Every .proto under DIR is compiled with protoc (or `python3 -m grpc_tools.protoc` when protoc is
not installed) into a google.protobuf.FileDescriptorSet. Well-known types (google/protobuf/*)
come from the include path and are not part of the contract. The baseline is that set in
protobuf text format, files sorted by name, custom options spelled as extensions
(`[rendezvous.options.v1.status]: INVALID_ARGUMENT`), so that a change to it reads as a diff.
A baseline ending in .pb or .binpb is read as a binary FileDescriptorSet instead.

Elements are matched by what the wire and generated code depend on: files by path; messages,
enums and services by full name (moving one between files of a package is not a change);
fields and extensions by number; enum values by name and number; RPCs by name. Map fields
are compared as map<key, value>, and their generated *Entry messages are not reported apart.
Additions of any kind are compatible. `check` prints one line per breaking change,

  <file>: [<rule>] <element>: <what changed>

and exits 1 if there is any, 0 otherwise; 2 when protoc, protobuf or the baseline is missing.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

WELL_KNOWN_PREFIX = "google/protobuf/"

# Every rule `check` applies, in the order it reports them. Tests/ContractsTests/Fixtures/
# breaking-cases/<rule>/{before,after} proves each one fires.
RULES = {
    "file-removed": "a .proto file is gone (its importers no longer compile)",
    "package-changed": "a file's package changed (every full name and RPC path in it moves)",
    "message-removed": "a message is gone",
    "field-removed": "a field is gone and its number is not reserved (it could be reused with another meaning)",
    "field-name-unreserved": "a field is gone, its number reserved but its name neither reserved nor unused (JSON and text format)",
    "field-renamed": "a field number now has another name (JSON, text format and generated code)",
    "field-type-changed": "a field's type changed, map key and value types included (any change, int32 to int64 too)",
    "field-label-changed": "a field changed between singular, repeated and required",
    "field-optional-changed": "a proto3 scalar field gained or lost `optional` (presence, generated code)",
    "field-oneof-changed": "a field moved into, out of or between oneofs",
    "field-json-name-changed": "a field's json_name changed (proto3 JSON)",
    "reserved-removed": "a reserved field or enum value number or name is no longer reserved",
    "enum-removed": "an enum is gone",
    "enum-value-removed": "an enum value is gone and its number is not reserved",
    "enum-value-name-unreserved": "an enum value is gone, its number reserved but its name not (JSON and text format)",
    "enum-value-renamed": "an enum number now has another name",
    "enum-value-renumbered": "an enum value name now has another number",
    "reason-status-changed": "an error reason's (rendezvous.options.v1.status) changed (apps handle the status they were promised)",
    "extension-removed": "an extension (e.g. a custom option) is gone",
    "service-removed": "a service is gone",
    "rpc-removed": "an RPC is gone",
    "rpc-request-changed": "an RPC's request message changed",
    "rpc-response-changed": "an RPC's response message changed",
    "rpc-streaming-changed": "an RPC changed between unary, client, server and bidirectional streaming",
}

RULES_ORDER = {rule: index for index, rule in enumerate(RULES)}

HEADER = """\
# proto-file: google/protobuf/descriptor.proto
# proto-message: google.protobuf.FileDescriptorSet
#
# The recorded gRPC contract of proto-docs/: what BreakingChangeTests compares proto-docs/ with.
# Written by `make proto-baseline` (Tests/ContractsTests/Fixtures/breaking.py snapshot); do not
# edit by hand. Rewrite it with every intended contract change, additions included, so they are
# protected from then on.
"""


def fail_setup(message):
    print("breaking.py: " + message, file=sys.stderr)
    sys.exit(2)


try:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format
except ImportError as error:
    fail_setup("Python protobuf is missing (%s); run `make deps`" % error)

FieldProto = descriptor_pb2.FieldDescriptorProto


# Compiling ---------------------------------------------------------------------------------

def contract_files(root):
    """The .proto files under `root` as import paths, sorted, well-known types left out."""
    found = []
    for directory, _, files in os.walk(root):
        for file in files:
            if file.endswith(".proto"):
                path = os.path.relpath(os.path.join(directory, file), root).replace(os.sep, "/")
                if not path.startswith(WELL_KNOWN_PREFIX):
                    found.append(path)
    return sorted(found)


def protoc_command(root):
    """protoc (else grpc_tools' bundled one) with `root`, then the well-known types, to import from."""
    try:
        import grpc_tools
        well_known = ["-I" + os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")]
    except ImportError:
        grpc_tools = None
        well_known = []  # Debian's protoc finds them in /usr/include (libprotobuf-dev)
    if shutil.which("protoc"):
        return ["protoc", "-I" + root] + well_known
    if grpc_tools is None:
        fail_setup("neither protoc nor grpcio-tools is installed; run `make deps`")
    return [sys.executable, "-m", "grpc_tools.protoc", "-I" + root] + well_known


def compile_set(root):
    """(every import of the contract as a serialized FileDescriptorSet, the contract's paths)."""
    if not os.path.isdir(root):
        fail_setup("no proto root %s" % root)
    paths = contract_files(root)
    if not paths:
        fail_setup("no .proto under %s" % root)
    scratch = tempfile.mkdtemp(prefix="rv-breaking-")
    try:
        out = os.path.join(scratch, "set.binpb")
        command = protoc_command(root) + ["--include_imports", "--descriptor_set_out=" + out]
        run = subprocess.run(command + paths, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0:
            fail_setup("protoc failed on %s:\n%s" % (root, run.stdout))
        with open(out, "rb") as file:
            return file.read(), set(paths)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def current_set(root):
    """The contract under `root` as a FileDescriptorSet of its own files."""
    serialized, paths = compile_set(root)
    compiled = descriptor_pb2.FileDescriptorSet.FromString(serialized)
    result = descriptor_pb2.FileDescriptorSet()
    result.file.extend(sorted((f for f in compiled.file if f.name in paths), key=lambda f: f.name))
    return result


def snapshot_text(root):
    """The baseline text: the contract's files, custom options resolved through their imports."""
    serialized, paths = compile_set(root)
    compiled = descriptor_pb2.FileDescriptorSet.FromString(serialized)
    # Parse again with classes from a pool that holds the contract's own option extensions,
    # so text format prints them by name instead of dropping them as unknown fields.
    pool = descriptor_pool.DescriptorPool()
    names = {f.name for f in compiled.file}
    if descriptor_pb2.DESCRIPTOR.name not in names:
        pool.Add(descriptor_pb2.FileDescriptorProto.FromString(descriptor_pb2.DESCRIPTOR.serialized_pb))
    for file in compiled.file:  # protoc writes imports before their importers
        pool.Add(file)
    set_class = message_factory.GetMessageClass(pool.FindMessageTypeByName("google.protobuf.FileDescriptorSet"))
    resolved = set_class.FromString(serialized)
    result = set_class()
    for file in sorted((f for f in resolved.file if f.name in paths), key=lambda f: f.name):
        result.file.add().CopyFrom(file)
    return HEADER + text_format.MessageToString(result)


def read_baseline(path):
    if not os.path.isfile(path):
        fail_setup("no baseline at %s; record one with `make proto-baseline`" % path)
    result = descriptor_pb2.FileDescriptorSet()
    if path.endswith((".pb", ".binpb")):
        with open(path, "rb") as file:
            result.ParseFromString(file.read())
    else:
        with open(path, encoding="utf-8") as file:
            text = file.read()
        # First without the custom options, to learn the files; then again with classes from a
        # pool holding those files, so option values (an error reason's status) survive as
        # option bytes the checks can read.
        text_format.Parse(text, result, allow_unknown_extension=True)
        pool = descriptor_pool.DescriptorPool()
        pool.Add(descriptor_pb2.FileDescriptorProto.FromString(descriptor_pb2.DESCRIPTOR.serialized_pb))
        for file in result.file:
            if file.name != "google/protobuf/descriptor.proto":
                try:
                    pool.Add(file)
                except Exception:  # a file the pool cannot take keeps its options unresolved
                    pass
        set_class = message_factory.GetMessageClass(pool.FindMessageTypeByName("google.protobuf.FileDescriptorSet"))
        resolved = set_class()
        text_format.Parse(text, resolved, allow_unknown_extension=True)
        result = descriptor_pb2.FileDescriptorSet.FromString(resolved.SerializeToString())
    kept = [f for f in result.file if not f.name.startswith(WELL_KNOWN_PREFIX)]
    del result.file[:]
    result.file.extend(kept)
    return result


# Indexing ----------------------------------------------------------------------------------

class Contract:
    """A FileDescriptorSet's elements by full name (type names without the leading dot)."""

    def __init__(self, descriptor_set):
        self.files = {}
        self.messages = {}    # full name -> (file name, DescriptorProto)
        self.enums = {}       # full name -> (file name, EnumDescriptorProto)
        self.services = {}    # full name -> (file name, ServiceDescriptorProto)
        self.extensions = {}  # (extendee, number) -> (file name, scope, FieldDescriptorProto)
        for file in descriptor_set.file:
            self.files[file.name] = file
            prefix = file.package + "." if file.package else ""
            self._add_scope(file.name, prefix, file.message_type, file.enum_type, file.extension)
            for service in file.service:
                self.services[prefix + service.name] = (file.name, service)

    def _add_scope(self, file, prefix, messages, enums, extensions):
        for enum in enums:
            self.enums[prefix + enum.name] = (file, enum)
        for extension in extensions:
            key = (extension.extendee.lstrip("."), extension.number)
            self.extensions[key] = (file, prefix.rstrip("."), extension)
        for message in messages:
            name = prefix + message.name
            self.messages[name] = (file, message)
            self._add_scope(file, name + ".", message.nested_type, message.enum_type, message.extension)

    def map_entry(self, field):
        """The map entry message of a map field, else None."""
        if field.type != FieldProto.TYPE_MESSAGE or field.label != FieldProto.LABEL_REPEATED:
            return None
        found = self.messages.get(field.type_name.lstrip("."))
        if found and found[1].options.map_entry:
            return found[1]
        return None

    def type_of(self, field):
        """A field's type as written in .proto: `int64`, `rendezvous.x.v1.Foo`, `map<string, Foo>`."""
        entry = self.map_entry(field)
        if entry is not None:
            key, value = sorted(entry.field, key=lambda f: f.number)
            return "map<%s, %s>" % (self.type_of(key), self.type_of(value))
        if field.type in (FieldProto.TYPE_MESSAGE, FieldProto.TYPE_ENUM):
            return field.type_name.lstrip(".")
        if field.type == FieldProto.TYPE_GROUP:
            return "group " + field.type_name.lstrip(".")
        return FieldProto.Type.Name(field.type)[len("TYPE_"):].lower()

    def label_of(self, field):
        if self.map_entry(field) is not None:
            return "map"
        return {FieldProto.LABEL_REPEATED: "repeated", FieldProto.LABEL_REQUIRED: "required"}.get(
            field.label, "singular")


STATUS_OPTION_FIELD = 50001  # rendezvous.options.v1.status on EnumValueOptions


def status_option(value):
    """The gRPC status number an enum value carries as (rendezvous.options.v1.status), or None."""
    data = value.options.SerializeToString()
    index = 0

    def varint():
        nonlocal index
        result, shift = 0, 0
        while True:
            byte = data[index]
            index += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return result

    found = None
    while index < len(data):
        tag = varint()
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            item = varint()
            if number == STATUS_OPTION_FIELD:
                found = item
        elif wire == 1:
            index += 8
        elif wire == 2:
            index += varint()
        elif wire == 5:
            index += 4
        else:
            return found
    return found


def oneof_of(message, field):
    """The name of the real (not proto3-optional) oneof holding `field`, else None."""
    if field.HasField("oneof_index") and not field.proto3_optional:
        return message.oneof_decl[field.oneof_index].name
    return None


def oneof_text(oneof):
    return "in oneof %s" % oneof if oneof else "in no oneof"


def declared(label, type_name):
    """A field's type as declared: `repeated int32`, `map<string, int32>`, `int32`."""
    return type_name if label in ("singular", "map") else label + " " + type_name


def json_name(field):
    if field.HasField("json_name"):
        return field.json_name
    head, *rest = field.name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def streaming_kind(method):
    return {
        (False, False): "unary", (True, False): "client streaming",
        (False, True): "server streaming", (True, True): "bidirectional streaming",
    }[(method.client_streaming, method.server_streaming)]


def field_ranges(message):
    """A message's reserved numbers as inclusive (start, end) pairs (protoc's end is exclusive)."""
    return [(r.start, r.end - 1) for r in message.reserved_range]


def enum_ranges(enum):
    """An enum's reserved numbers as inclusive (start, end) pairs (protoc's end is inclusive)."""
    return [(r.start, r.end) for r in enum.reserved_range]


def is_reserved(number, ranges):
    return any(start <= number <= end for start, end in ranges)


def uncovered(ranges, covering):
    """The parts of inclusive `ranges` outside every range in `covering`."""
    left = []
    for start, end in ranges:
        pieces = [(start, end)]
        for cover_start, cover_end in covering:
            next_pieces = []
            for piece_start, piece_end in pieces:
                if cover_end < piece_start or cover_start > piece_end:
                    next_pieces.append((piece_start, piece_end))
                    continue
                if piece_start < cover_start:
                    next_pieces.append((piece_start, cover_start - 1))
                if cover_end < piece_end:
                    next_pieces.append((cover_end + 1, piece_end))
            pieces = next_pieces
        left.extend(pieces)
    return left


def range_text(start, end):
    return str(start) if start == end else "%d to %d" % (start, end)


# Comparing ---------------------------------------------------------------------------------

class Checker:
    """Compares a baseline Contract with the current one, collecting one line per break."""

    def __init__(self, baseline, current):
        self.old = baseline
        self.new = current
        self.findings = []

    def report(self, file, rule, element, detail):
        assert rule in RULES, rule
        self.findings.append((file, RULES_ORDER[rule], element, "%s: [%s] %s: %s" % (file, rule, element, detail)))

    def run(self):
        self.check_files()
        self.check_messages()
        self.check_enums()
        self.check_extensions()
        self.check_services()
        return [line for *_, line in sorted(self.findings)]

    def check_files(self):
        for name, old in self.old.files.items():
            new = self.new.files.get(name)
            if new is None:
                self.report(name, "file-removed", "file", "removed")
            elif new.package != old.package:
                self.report(name, "package-changed", "package %s" % (old.package or "(none)"),
                            "now %s" % (new.package or "(none)"))

    def check_messages(self):
        for name, (file, old) in self.old.messages.items():
            if old.options.map_entry:
                continue  # compared as its map field's key and value types
            found = self.new.messages.get(name)
            if found is None:
                self.report(file, "message-removed", "message " + name, "removed")
                continue
            new_file, new = found
            self.check_fields(new_file, name, old, new)
            self.check_reserved(new_file, "message " + name, field_ranges(old), field_ranges(new),
                                old.reserved_name, new.reserved_name,
                                {f.number: f.name for f in new.field})

    def check_fields(self, file, message_name, old, new):
        by_number = {f.number: f for f in new.field}
        by_name = {f.name: f for f in new.field}
        ranges = field_ranges(new)
        for field in old.field:
            element = "field %s.%s = %d" % (message_name, field.name, field.number)
            current = by_number.get(field.number)
            if current is not None:
                self.check_field(file, element, field, current, old, new)
            elif not is_reserved(field.number, ranges):
                self.report(file, "field-removed", element,
                            'removed without `reserved %d;` and `reserved "%s";`' % (field.number, field.name))
            elif field.name in by_name:
                self.report(file, "field-name-unreserved", element,
                            "removed, its name reused by field %d" % by_name[field.name].number)
            elif field.name not in new.reserved_name:
                self.report(file, "field-name-unreserved", element,
                            'removed without `reserved "%s";`' % field.name)

    def check_field(self, file, element, old, new, old_message=None, new_message=None):
        """Compares two fields (or extensions) with the same number."""
        if new.name != old.name:
            self.report(file, "field-renamed", element, "now named %s" % new.name)
        elif json_name(new) != json_name(old):
            self.report(file, "field-json-name-changed", element,
                        "JSON name %s, was %s" % (json_name(new), json_name(old)))
        old_type, new_type = self.old.type_of(old), self.new.type_of(new)
        old_label, new_label = self.old.label_of(old), self.new.label_of(new)
        if new_type != old_type:
            self.report(file, "field-type-changed", element, "type %s, was %s" % (
                declared(new_label, new_type), declared(old_label, old_type)))
        if new_label != old_label and "map" not in (old_label, new_label):
            self.report(file, "field-label-changed", element, "%s, was %s" % (new_label, old_label))
        elif (new_label == old_label == "singular" and new.proto3_optional != old.proto3_optional
              and FieldProto.TYPE_MESSAGE not in (old.type, new.type)):
            self.report(file, "field-optional-changed", element,
                        "now optional" if new.proto3_optional else "no longer optional")
        if old_message is not None:
            old_oneof, new_oneof = oneof_of(old_message, old), oneof_of(new_message, new)
            if new_oneof != old_oneof:
                self.report(file, "field-oneof-changed", element, "%s, was %s" % (
                    oneof_text(new_oneof), oneof_text(old_oneof)))

    def check_reserved(self, file, element, old_ranges, new_ranges, old_names, new_names, used):
        """Reserved numbers and names of the baseline must stay reserved."""
        for start, end in uncovered(old_ranges, new_ranges):
            users = sorted("%s = %d" % (used[n], n) for n in used if start <= n <= end)
            detail = "now used by " + ", ".join(users) if users else "no longer reserved"
            self.report(file, "reserved-removed", "%s reserved %s" % (element, range_text(start, end)), detail)
        in_use = set(used.values())
        for name in old_names:
            if name not in new_names:
                detail = "now in use" if name in in_use else "no longer reserved"
                self.report(file, "reserved-removed", '%s reserved "%s"' % (element, name), detail)

    def check_enums(self):
        for name, (file, old) in self.old.enums.items():
            found = self.new.enums.get(name)
            if found is None:
                self.report(file, "enum-removed", "enum " + name, "removed")
                continue
            new_file, new = found
            numbers_by_name = {v.name: v.number for v in new.value}
            names_by_number = {}
            for value in new.value:
                names_by_number.setdefault(value.number, []).append(value.name)
            ranges = enum_ranges(new)
            for value in old.value:
                element = "enum value %s.%s = %d" % (name, value.name, value.number)
                if value.name in numbers_by_name:
                    if numbers_by_name[value.name] != value.number:
                        self.report(new_file, "enum-value-renumbered", element,
                                    "now = %d" % numbers_by_name[value.name])
                    else:
                        now = next(v for v in new.value if v.name == value.name)
                        if status_option(value) is not None and status_option(now) != status_option(value):
                            self.report(new_file, "reason-status-changed", element,
                                        "status %s is now %s" % (status_option(value), status_option(now)))
                elif value.number in names_by_number:
                    self.report(new_file, "enum-value-renamed", element,
                                "%d is now named %s" % (value.number, ", ".join(names_by_number[value.number])))
                elif not is_reserved(value.number, ranges):
                    self.report(new_file, "enum-value-removed", element,
                                'removed without `reserved %d;` and `reserved "%s";`' % (value.number, value.name))
                elif value.name not in new.reserved_name:
                    self.report(new_file, "enum-value-name-unreserved", element,
                                'removed without `reserved "%s";`' % value.name)
            self.check_reserved(new_file, "enum " + name, enum_ranges(old), ranges,
                                old.reserved_name, new.reserved_name,
                                {number: names[0] for number, names in names_by_number.items()})

    def check_extensions(self):
        for (extendee, number), (file, scope, old) in self.old.extensions.items():
            element = "extension %s = %d (extends %s)" % (
                (scope + "." if scope else "") + old.name, number, extendee)
            found = self.new.extensions.get((extendee, number))
            if found is None:
                self.report(file, "extension-removed", element, "removed")
            else:
                self.check_field(found[0], element, old, found[2])

    def check_services(self):
        for name, (file, old) in self.old.services.items():
            found = self.new.services.get(name)
            if found is None:
                self.report(file, "service-removed", "service " + name, "removed")
                continue
            new_file, new = found
            methods = {m.name: m for m in new.method}
            for method in old.method:
                element = "rpc %s.%s" % (name, method.name)
                current = methods.get(method.name)
                if current is None:
                    self.report(file, "rpc-removed", element, "removed")
                    continue
                if current.input_type != method.input_type:
                    self.report(new_file, "rpc-request-changed", element, "request %s, was %s" % (
                        current.input_type.lstrip("."), method.input_type.lstrip(".")))
                if current.output_type != method.output_type:
                    self.report(new_file, "rpc-response-changed", element, "response %s, was %s" % (
                        current.output_type.lstrip("."), method.output_type.lstrip(".")))
                if streaming_kind(current) != streaming_kind(method):
                    self.report(new_file, "rpc-streaming-changed", element, "%s, was %s" % (
                        streaming_kind(current), streaming_kind(method)))



# Commands ----------------------------------------------------------------------------------

def check(arguments):
    baseline = Contract(read_baseline(arguments.baseline))
    current = Contract(current_set(arguments.proto_root))
    lines = Checker(baseline, current).run()
    for line in lines:
        print(line)
    if lines:
        print("breaking.py: %d breaking change%s against %s" % (
            len(lines), "" if len(lines) == 1 else "s", arguments.baseline), file=sys.stderr)
        return 1
    return 0


def snapshot(arguments):
    text = snapshot_text(arguments.proto_root)
    directory = os.path.dirname(os.path.abspath(arguments.out))
    os.makedirs(directory, exist_ok=True)
    with open(arguments.out, "w", encoding="utf-8") as file:
        file.write(text)
    return 0


def rules(_):
    for rule, meaning in RULES.items():
        print("%s\t%s" % (rule, meaning))
    return 0


def main(argv):
    parser = argparse.ArgumentParser(prog="breaking.py", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check_parser = commands.add_parser("check", help="compare --proto-root with --baseline")
    check_parser.add_argument("--baseline", required=True)
    check_parser.add_argument("--proto-root", required=True)
    check_parser.set_defaults(run=check)
    snapshot_parser = commands.add_parser("snapshot", help="write --proto-root's contract to --out")
    snapshot_parser.add_argument("--out", required=True)
    snapshot_parser.add_argument("--proto-root", required=True)
    snapshot_parser.set_defaults(run=snapshot)
    commands.add_parser("rules", help="list the rules").set_defaults(run=rules)
    arguments = parser.parse_args(argv[1:])
    return arguments.run(arguments)


if __name__ == "__main__":
    sys.exit(main(sys.argv))

/// One field as the generated code sees it: its Swift type, default, and the lines that write
/// and read it.
struct FieldPlan {
    enum Shape {
        /// A proto3 singular field: written when not the default.
        case singular
        /// A proto3 `optional` field: a Swift optional, written when set.
        case optional
        /// A singular message: a Swift optional, written when set.
        case message
        case repeated
        case map(key: FieldDescriptor, value: FieldDescriptor)
        /// A member of a real oneof (index into the message's oneofs).
        case oneofMember(Int32)
    }

    let field: FieldDescriptor
    let kind: FieldDescriptor.Kind
    let shape: Shape
    let propertyName: String
    /// The type of one value (element of a repeated field, payload of a oneof case).
    let valueType: String
    let swiftType: String
    let initialValue: String?
    let declaration: String
    let commentPath: [Int32]
    /// The Wire method suffix for scalars and enums.
    private let method: String
    private let packed: Bool
    private let mapKeyType: String
    private let mapValueType: String

    var oneof: Int32? {
        if case .oneofMember(let index) = shape { return index }
        return nil
    }

    init(field: FieldDescriptor, index: Int, in emitter: MessageEmitter) throws {
        let context = "\(emitter.fullName.dropFirst()).\(field.name)"
        guard let kind = field.kind, kind != .group else { throw GeneratorError("\(context): groups are not supported") }
        self.field = field
        self.kind = kind
        propertyName = SwiftName.escaped(SwiftName.lowerCamel(field.name))
        commentPath = emitter.path + [2, Int32(index)]
        let scope = emitter.scope + [emitter.message]

        func describe(_ field: FieldDescriptor) throws -> (type: String, method: String, packable: Bool) {
            guard let kind = field.kind else { throw GeneratorError("\(context): unknown field type") }
            switch kind {
            case .message: return (try emitter.file.typeName(field.typeName, scope: scope), "Message", false)
            case .enumeration: return (try emitter.file.typeName(field.typeName, scope: scope), "Enum", true)
            case .group: throw GeneratorError("\(context): groups are not supported")
            default:
                // Every kind but message, enum and group has a scalar description.
                let scalar = ScalarKind.of(kind)!
                return (scalar.swiftType, scalar.method, scalar.packable)
            }
        }

        let value = try describe(field)
        valueType = value.type
        method = value.method
        packed = value.packable && (field.packed ?? true)
        var keyType = "", mapValue = ""

        if field.label == .repeated, kind == .message, let entry = try? emitter.file.symbols.message(field.typeName),
           entry.isMapEntry {
            guard let key = entry.fields.first(where: { $0.number == 1 }),
                  let mapped = entry.fields.first(where: { $0.number == 2 }) else {
                throw GeneratorError("\(context): map entry without key or value")
            }
            keyType = try describe(key).type
            mapValue = try describe(mapped).type
            shape = .map(key: key, value: mapped)
            swiftType = "[\(keyType): \(mapValue)]"
            initialValue = "[:]"
            declaration = "map<\(Self.protoTypeName(key)), \(Self.protoTypeName(mapped))> \(field.name) = \(field.number);"
        } else if field.label == .repeated {
            shape = .repeated
            swiftType = "[\(value.type)]"
            initialValue = "[]"
            declaration = "repeated \(Self.protoTypeName(field)) \(field.name) = \(field.number);"
        } else if let oneof = field.oneofIndex, !field.isProto3Optional {
            shape = .oneofMember(oneof)
            oneofPropertyName = SwiftName.lowerCamel(emitter.message.oneofNames[Int(oneof)])
            swiftType = value.type
            initialValue = nil
            declaration = "\(Self.protoTypeName(field)) \(field.name) = \(field.number);"
        } else if field.isProto3Optional {
            shape = kind == .message ? .message : .optional
            swiftType = value.type + "?"
            initialValue = nil
            declaration = "optional \(Self.protoTypeName(field)) \(field.name) = \(field.number);"
        } else if kind == .message {
            shape = .message
            swiftType = value.type + "?"
            initialValue = nil
            declaration = "\(Self.protoTypeName(field)) \(field.name) = \(field.number);"
        } else {
            shape = .singular
            swiftType = value.type
            if kind == .enumeration {
                let item = try emitter.file.symbols.enumeration(field.typeName)
                if let zero = item.values.first(where: { $0.number == 0 }) {
                    initialValue = "." + SwiftName.escaped(SwiftName.enumCase(zero.name, enumName: item.name))
                } else {
                    initialValue = ".init(rawValue: 0)"
                }
            } else {
                // Scalars (the only remaining kinds) have a description.
                initialValue = ScalarKind.of(kind)!.defaultValue
            }
            declaration = "\(Self.protoTypeName(field)) \(field.name) = \(field.number);"
        }
        mapKeyType = keyType
        mapValueType = mapValue
    }

    /// The field's type as the .proto spells it (message and enum names without the package).
    static func protoTypeName(_ field: FieldDescriptor) -> String {
        switch field.kind {
        case .message?, .enumeration?:
            return String(field.typeName.split(separator: ".").last ?? "")
        case let kind?:
            switch kind {
            case .double: return "double"
            case .float: return "float"
            case .int64: return "int64"
            case .uint64: return "uint64"
            case .int32: return "int32"
            case .fixed64: return "fixed64"
            case .fixed32: return "fixed32"
            case .bool: return "bool"
            case .string: return "string"
            case .bytes: return "bytes"
            case .uint32: return "uint32"
            case .sfixed32: return "sfixed32"
            case .sfixed64: return "sfixed64"
            case .sint32: return "sint32"
            case .sint64: return "sint64"
            case .group, .message, .enumeration: return "group"
            }
        case nil:
            return "unknown"
        }
    }

    private var property: String { "self." + propertyName.replacingBackticks }
    private var number: Int32 { field.number }

    /// `writer.writeX(field: n, value)` for one value of this field's kind.
    private static func write(_ kind: FieldDescriptor.Kind, method: String, field: Int32, _ value: String,
                              writer: String = "writer") -> String {
        "\(writer).write\(method)(field: \(field), \(value))"
    }

    func encodeLines() -> [String] {
        switch shape {
        case .singular:
            return ["if \(ScalarKind.isSet(kind, property)) { \(Self.write(kind, method: method, field: number, property)) }"]
        case .optional, .message:
            return ["if let value = \(property) { \(Self.write(kind, method: method, field: number, "value")) }"]
        case .repeated:
            if packed {
                return ["writer.writePacked\(method)(field: \(number), \(property))"]
            }
            return ["for value in \(property) { \(Self.write(kind, method: method, field: number, "value")) }"]
        case .map(let key, let value):
            let keyMethod = ScalarKind.of(key.kind ?? .string)?.method ?? "String"
            let valueMethod = value.kind == .message ? "Message" : value.kind == .enumeration ? "Enum"
                : ScalarKind.of(value.kind ?? .string)?.method ?? "String"
            let order = key.kind == .bool ? "{ !$0.key && $1.key }" : "{ $0.key < $1.key }"
            return [
                "for (key, value) in \(property).sorted(by: \(order)) {",
                "    writer.writeMapEntry(field: \(number)) { $0.write\(keyMethod)(field: 1, key) } writeValue: {",
                "        $0.write\(valueMethod)(field: 2, value)",
                "    }",
                "}",
            ]
        case .oneofMember(let index):
            _ = index
            return ["if case .\(propertyName)(let value)? = \(oneofProperty) { \(Self.write(kind, method: method, field: number, "value")) }"]
        }
    }

    func decodeLines() -> [String] {
        switch shape {
        case .singular, .optional:
            return ["\(property) = \(read())"]
        case .message:
            return ["\(property) = try reader.mergeMessage(\(property))"]
        case .repeated:
            return ["try reader.readRepeated\(method)(into: &\(property))"]
        case .map(let key, let value):
            let keyRead = "try $0.read\(ScalarKind.of(key.kind ?? .string)?.method ?? "String")()"
            let keyDefault = ScalarKind.of(key.kind ?? .string)?.defaultValue ?? "\"\""
            let valueRead: String
            let valueDefault: String
            switch value.kind {
            case .message?:
                valueRead = "try $0.readMessage(\(mapValueType).self)"
                valueDefault = "\(mapValueType)()"
            case .enumeration?:
                valueRead = "try $0.readEnum(as: \(mapValueType).self)"
                valueDefault = "\(mapValueType)(rawValue: 0)"
            default:
                let scalar = ScalarKind.of(value.kind ?? .string)
                valueRead = "try $0.read\(scalar?.method ?? "String")()"
                valueDefault = scalar?.defaultValue ?? "\"\""
            }
            _ = mapKeyType
            return [
                "try reader.readMapEntry(into: &\(property), defaultKey: \(keyDefault), defaultValue: \(valueDefault)) {",
                "    \(keyRead)",
                "} readValue: {",
                "    \(valueRead)",
                "}",
            ]
        case .oneofMember:
            if kind == .message {
                return [
                    "if case .\(propertyName)(let existing)? = \(oneofProperty) {",
                    "    \(oneofProperty) = .\(propertyName)(try reader.mergeMessage(existing))",
                    "} else {",
                    "    \(oneofProperty) = .\(propertyName)(try reader.readMessage(\(valueType).self))",
                    "}",
                ]
            }
            return ["\(oneofProperty) = .\(propertyName)(\(read()))"]
        }
    }

    /// The expression reading one value of a scalar or enum field.
    private func read() -> String {
        kind == .enumeration ? "try reader.readEnum(as: \(valueType).self)" : "try reader.read\(method)()"
    }

    /// `self.<oneof property>` for oneof members.
    private var oneofProperty: String { "self." + oneofPropertyName }

    /// The oneof's property for oneof members; empty otherwise.
    private var oneofPropertyName = ""
}

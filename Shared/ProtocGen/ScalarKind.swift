/// How a proto field type is written in Swift and which Wire methods read and write it.
struct ScalarKind {
    /// The Swift type of a singular value (for enums and messages, filled in by the caller).
    var swiftType: String
    /// The suffix of `ProtoWriter.writeX`, `ProtoReader.readX`, `readRepeatedX`, `writePackedX`.
    var method: String
    /// Whether repeated values are packed by default in proto3.
    var packable: Bool
    var defaultValue: String

    static func of(_ kind: FieldDescriptor.Kind) -> ScalarKind? {
        switch kind {
        case .double: ScalarKind(swiftType: "Double", method: "Double", packable: true, defaultValue: "0")
        case .float: ScalarKind(swiftType: "Float", method: "Float", packable: true, defaultValue: "0")
        case .int64: ScalarKind(swiftType: "Int64", method: "Int64", packable: true, defaultValue: "0")
        case .uint64: ScalarKind(swiftType: "UInt64", method: "UInt64", packable: true, defaultValue: "0")
        case .int32: ScalarKind(swiftType: "Int32", method: "Int32", packable: true, defaultValue: "0")
        case .fixed64: ScalarKind(swiftType: "UInt64", method: "Fixed64", packable: true, defaultValue: "0")
        case .fixed32: ScalarKind(swiftType: "UInt32", method: "Fixed32", packable: true, defaultValue: "0")
        case .bool: ScalarKind(swiftType: "Bool", method: "Bool", packable: true, defaultValue: "false")
        case .string: ScalarKind(swiftType: "String", method: "String", packable: false, defaultValue: "\"\"")
        case .bytes: ScalarKind(swiftType: "[UInt8]", method: "Bytes", packable: false, defaultValue: "[]")
        case .uint32: ScalarKind(swiftType: "UInt32", method: "UInt32", packable: true, defaultValue: "0")
        case .sfixed32: ScalarKind(swiftType: "Int32", method: "SFixed32", packable: true, defaultValue: "0")
        case .sfixed64: ScalarKind(swiftType: "Int64", method: "SFixed64", packable: true, defaultValue: "0")
        case .sint32: ScalarKind(swiftType: "Int32", method: "SInt32", packable: true, defaultValue: "0")
        case .sint64: ScalarKind(swiftType: "Int64", method: "SInt64", packable: true, defaultValue: "0")
        case .enumeration, .message, .group: nil
        }
    }

    /// A Swift condition that is true when `value` is not the proto3 default.
    static func isSet(_ kind: FieldDescriptor.Kind, _ value: String) -> String {
        switch kind {
        case .bool: value
        case .string, .bytes: "!\(value).isEmpty"
        case .double, .float: "\(value).bitPattern != 0"
        case .enumeration: "\(value).rawValue != 0"
        default: "\(value) != 0"
        }
    }
}

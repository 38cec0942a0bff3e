/// Why decoding protobuf bytes failed, and in which field.
///
/// The description names the problem and the field number, never the bytes, so it is safe
/// to log and to return to a client.
public struct WireDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A kind of decoding failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: UInt8, Sendable {
            case truncated, malformedVarint, invalidWireType, invalidFieldNumber, wrongWireType
            case lengthOutOfRange, invalidUTF8, depthLimitExceeded, messageTooLarge
            case unmatchedEndGroup, noCurrentField
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The input ended inside a tag or value, a length ran past the enclosing message, or a
        /// packed run of fixed-size values was not a whole number of values.
        public static let truncated = Code(.truncated)
        /// A varint ran past ten bytes.
        public static let malformedVarint = Code(.malformedVarint)
        /// A tag carried wire type 6 or 7.
        public static let invalidWireType = Code(.invalidWireType)
        /// A tag carried field number 0 or one above 2^29-1.
        public static let invalidFieldNumber = Code(.invalidFieldNumber)
        /// A field's wire type does not fit the type the message declares for it.
        public static let wrongWireType = Code(.wrongWireType)
        /// A length prefix exceeds Int32.max.
        public static let lengthOutOfRange = Code(.lengthOutOfRange)
        /// A string field is not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// Messages or groups nest deeper than ``DecodingLimits/maxDepth``.
        public static let depthLimitExceeded = Code(.depthLimitExceeded)
        /// The input is larger than ``DecodingLimits/maxMessageSize``.
        public static let messageTooLarge = Code(.messageTooLarge)
        /// An end-group tag without a matching start-group tag.
        public static let unmatchedEndGroup = Code(.unmatchedEndGroup)
        /// A value reader was called with no field pending (message code read a field twice).
        public static let noCurrentField = Code(.noCurrentField)

        /// A short phrase naming the failure.
        public var description: String {
            switch value {
            case .truncated: "input truncated"
            case .malformedVarint: "malformed varint"
            case .invalidWireType: "invalid wire type"
            case .invalidFieldNumber: "invalid field number"
            case .wrongWireType: "wrong wire type for field"
            case .lengthOutOfRange: "length out of range"
            case .invalidUTF8: "invalid UTF-8 in string"
            case .depthLimitExceeded: "nesting depth limit exceeded"
            case .messageTooLarge: "message too large"
            case .unmatchedEndGroup: "unmatched end-group tag"
            case .noCurrentField: "no field pending to read"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The number of the field being decoded, when one was known.
    public var field: Int?

    /// Creates an error with `code`, blaming `field` when given.
    public init(_ code: Code, field: Int? = nil) {
        self.code = code
        self.field = field
    }

    /// For example "protobuf decoding failed: input truncated (field 3)".
    public var description: String {
        if let field {
            "protobuf decoding failed: \(code) (field \(field))"
        } else {
            "protobuf decoding failed: \(code)"
        }
    }
}

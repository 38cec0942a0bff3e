/// Reads protobuf-encoded fields from a byte array, one field at a time.
///
/// A message's `decodeField` is handed the reader positioned after a tag and reads exactly
/// one value with a `readX` method (or ``skipField()``). Every read is bounds-checked against
/// the enclosing message; malformed or hostile input throws ``WireDecodingError`` and never
/// traps. Nested messages are read in place, without copying their bytes.
public struct ProtoReader {
    /// The largest field number protobuf allows, 2^29-1.
    public static let maxFieldNumber = (1 << 29) - 1

    /// The limits this reader enforces.
    public let limits: DecodingLimits

    let bytes: [UInt8]
    /// Offset of the next unread byte. Invariant: `index <= end <= bytes.count`.
    var index: Int
    /// End of the message (or packed run) being read.
    var end: Int
    /// How many messages and groups enclose the one being read.
    var depth: Int
    /// Number of the field whose tag was read last; 0 before the first tag.
    var fieldNumber: Int
    /// Wire type of the current field while its value is still unread.
    var pendingWireType: WireType?
    private let isOversized: Bool

    /// Creates a reader over a whole serialized message.
    ///
    /// If `bytes` is larger than `limits.maxMessageSize`, the first ``nextField()`` throws
    /// ``WireDecodingError/Code-swift.struct/messageTooLarge``.
    public init(bytes: [UInt8], limits: DecodingLimits = .default) {
        self.bytes = bytes
        self.limits = limits
        index = 0
        end = bytes.count
        depth = 0
        fieldNumber = 0
        pendingWireType = nil
        isOversized = bytes.count > limits.maxMessageSize
    }

    /// Whether every byte of the message being read has been consumed.
    public var isAtEnd: Bool {
        index >= end && pendingWireType == nil
    }

    /// Next field's number and wire type, or nil at the end of the message.
    ///
    /// Throws on bad tags (field 0, above 2^29-1, wire type 6/7, a stray end-group). If the
    /// previous field's value was left unread it is skipped first.
    public mutating func nextField() throws -> (field: Int, wireType: WireType)? {
        if pendingWireType != nil {
            try skipField()
        }
        if isOversized {
            throw WireDecodingError(.messageTooLarge)
        }
        guard index < end else {
            return nil
        }
        let (field, wireType) = try readTag()
        guard wireType != .endGroup else {
            throw WireDecodingError(.unmatchedEndGroup, field: field)
        }
        fieldNumber = field
        pendingWireType = wireType
        return (field, wireType)
    }

    /// Skips the current field's value of any wire type (groups too, depth-checked).
    public mutating func skipField() throws {
        guard let wireType = pendingWireType else {
            throw WireDecodingError(.noCurrentField)
        }
        pendingWireType = nil
        try skipValue(wireType, field: fieldNumber)
    }

    /// Reads a length-delimited value as an embedded message whose fields `body` reads.
    ///
    /// `body` sees the reader confined to the embedded bytes, one level deeper; whatever it
    /// leaves unread is skipped. This is how ``readMessage(into:)`` and the map-entry readers
    /// work, and it lets hand-written code read an embedded message without a type for it.
    public mutating func readEmbedded<Result>(
        _ body: (inout ProtoReader) throws -> Result
    ) throws -> Result {
        try consume(.lengthDelimited)
        let length = try readLength()
        guard depth < limits.maxDepth else {
            throw fieldError(.depthLimitExceeded)
        }
        let outerEnd = end
        let outerField = fieldNumber
        // `readLength` checked `length <= end - index`, so the new end stays inside the old one.
        end = index + length
        depth += 1
        let result = try body(&self)
        while try nextField() != nil {}
        end = outerEnd
        depth -= 1
        fieldNumber = outerField
        return result
    }

    // MARK: - Internals shared by the value readers

    /// Marks the current value as read, checking it has wire type `expected`.
    @inline(__always)
    mutating func consume(_ expected: WireType) throws {
        guard let wireType = pendingWireType else {
            throw WireDecodingError(.noCurrentField)
        }
        guard wireType == expected else {
            throw fieldError(.wrongWireType)
        }
        pendingWireType = nil
    }

    /// An error blaming the current field.
    func fieldError(_ code: WireDecodingError.Code) -> WireDecodingError {
        WireDecodingError(code, field: fieldNumber == 0 ? nil : fieldNumber)
    }

    /// Reads a tag, validating its field number and wire type (end-group is allowed here).
    private mutating func readTag() throws -> (field: Int, wireType: WireType) {
        let tag = try readRawVarint()
        // `tag >> 3` is below 2^61, so it fits in `Int`.
        let field = Int(tag >> 3)
        guard field >= 1, field <= Self.maxFieldNumber else {
            throw WireDecodingError(.invalidFieldNumber)
        }
        guard let wireType = WireType(rawValue: UInt8(truncatingIfNeeded: tag & 7)) else {
            throw WireDecodingError(.invalidWireType, field: field)
        }
        return (field, wireType)
    }

    private mutating func skipValue(_ wireType: WireType, field: Int) throws {
        switch wireType {
        case .varint:
            _ = try readRawVarint()
        case .fixed64:
            try skipBytes(8)
        case .fixed32:
            try skipBytes(4)
        case .lengthDelimited:
            try skipBytes(try readLength())
        case .startGroup:
            try skipGroup(field: field)
        case .endGroup:
            throw WireDecodingError(.unmatchedEndGroup, field: field)
        }
    }

    /// Skips to the end-group tag matching `field`; recursion is bounded by `maxDepth`.
    private mutating func skipGroup(field: Int) throws {
        guard depth < limits.maxDepth else {
            throw WireDecodingError(.depthLimitExceeded, field: field)
        }
        depth += 1
        defer { depth -= 1 }
        while true {
            guard index < end else {
                throw WireDecodingError(.truncated, field: field)
            }
            let (innerField, wireType) = try readTag()
            if wireType == .endGroup {
                guard innerField == field else {
                    throw WireDecodingError(.unmatchedEndGroup, field: innerField)
                }
                return
            }
            try skipValue(wireType, field: innerField)
        }
    }

    @inline(__always)
    private mutating func skipBytes(_ count: Int) throws {
        guard count <= end - index else {
            throw fieldError(.truncated)
        }
        index += count
    }
}

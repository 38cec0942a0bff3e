/// A protobuf message with a hand-written codec.
///
/// Proto3 rules the conformer follows:
/// - `encode` skips fields holding their default value (0, false, "", empty, nil message) and
///   writes repeated scalars packed.
/// - `decodeField` replaces singular scalars (last one wins), appends to repeated fields and
///   merges into nested messages (``ProtoReader/readMessage(into:)``).
/// - Enums are stored as `Int32` or a ``ProtoEnum`` so unknown numbers survive.
/// - A map is a repeated entry message with the key in field 1 and the value in field 2;
///   `ProtoWriter.writeMap(field:_:)` and `ProtoReader.readMapEntry(into:)` handle them.
/// - A oneof is an optional enum property with one case per member field.
public protocol ProtoMessage: Sendable, Equatable {
    /// Creates the message with every field at its default.
    init()

    /// Appends the message's fields, without a length prefix.
    func encode(to writer: inout ProtoWriter)

    /// Decodes one field whose number `field` the reader just returned; unknown fields must
    /// call `reader.skipField()`.
    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws
}

extension ProtoMessage {
    /// Decodes a whole serialized message; the size limit is checked before any byte is read.
    public init(serializedBytes: [UInt8], limits: DecodingLimits = .default) throws {
        guard serializedBytes.count <= limits.maxMessageSize else {
            throw WireDecodingError(.messageTooLarge)
        }
        self.init()
        var reader = ProtoReader(bytes: serializedBytes, limits: limits)
        try reader.decodeFields(into: &self)
    }

    /// Merges a serialized message into this one, with the rules of repeated occurrences.
    public mutating func merge(serializedBytes: [UInt8], limits: DecodingLimits = .default) throws {
        guard serializedBytes.count <= limits.maxMessageSize else {
            throw WireDecodingError(.messageTooLarge)
        }
        var reader = ProtoReader(bytes: serializedBytes, limits: limits)
        try reader.decodeFields(into: &self)
    }

    /// The message's encoding.
    public func serializedBytes() -> [UInt8] {
        var writer = ProtoWriter()
        encode(to: &writer)
        return writer.bytes
    }

    /// The length of ``serializedBytes()``, computed by encoding.
    public func serializedSize() -> Int {
        serializedBytes().count
    }
}

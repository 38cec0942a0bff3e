import Testing
import Wire

/// One message value as Swift encodes it, the same value as proto3 JSON for Python, and a
/// check that some bytes decode (in Swift) back to that value.
struct ConformanceCase: Sendable, CustomTestStringConvertible {
    /// "<Swift type>.<what is set>", unique across the tables.
    var name: String
    /// The full protobuf name Python parses the bytes as, e.g. "grpc.testing.SimpleRequest".
    var protoName: String
    /// The value in proto3 JSON (json_format.ParseDict's input), written by hand.
    var json: String
    /// What Swift encodes the value to.
    var swiftBytes: [UInt8]
    /// How Swift's bytes compare to Python's deterministic serialization.
    var bytes: BytesExpectation
    /// Decodes bytes in Swift and expects the case's value (field by field, via Equatable).
    var expectDecodesToValue: @Sendable (_ bytes: [UInt8], _ source: String) throws -> Void
    /// Decodes bytes in Swift and encodes the result again.
    var reencode: @Sendable (_ bytes: [UInt8]) throws -> [UInt8]

    var testDescription: String { name }

    /// Protobuf defines no canonical encoding; deterministic serialization is per runtime.
    enum BytesExpectation: Sendable {
        /// The same bytes: fields once each, in field-number order, minimal varints.
        case identical
        /// The same top-level fields, byte for byte, in another order (map entries).
        case sameFieldsInAnotherOrder
    }

    init(_ name: String, proto protoName: String, json: String, swiftBytes: [UInt8],
         bytes: BytesExpectation = .identical,
         expectDecodesToValue: @escaping @Sendable ([UInt8], String) throws -> Void,
         reencode: @escaping @Sendable ([UInt8]) throws -> [UInt8]) {
        self.name = name
        self.protoName = protoName
        self.json = json
        self.swiftBytes = swiftBytes
        self.bytes = bytes
        self.expectDecodesToValue = expectDecodesToValue
        self.reencode = reencode
    }

    /// A case for a message value.
    init<M: ProtoMessage>(_ name: String, _ value: M, proto protoName: String, json: String,
                          bytes: BytesExpectation = .identical) {
        self.init("\(M.self).\(name)", proto: protoName, json: json, swiftBytes: value.serializedBytes(),
                  bytes: bytes,
                  expectDecodesToValue: { bytes, source in
                      let decoded = try M(serializedBytes: bytes)
                      #expect(decoded == value, "\(source) bytes \(bytes.hexPreview)")
                  },
                  reencode: { try M(serializedBytes: $0).serializedBytes() })
    }
}

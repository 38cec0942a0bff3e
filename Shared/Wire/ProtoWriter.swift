/// Appends protobuf-encoded fields to a byte array.
///
/// Field writers always write the tag and the value; skipping proto3 default values is the
/// message's decision. Field numbers must be in 1...2^29-1 (checked by `assert` only: they
/// come from our own code, never from input).
public struct ProtoWriter: Sendable {
    /// The encoded bytes so far.
    public var bytes: [UInt8]

    /// Creates an empty writer whose buffer can hold `reservingCapacity` bytes without growing.
    public init(reservingCapacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(reservingCapacity)
    }

    /// Appends `value` as a base-128 varint.
    @inline(__always)
    public mutating func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// Appends the tag for `field` with `wireType`.
    @inline(__always)
    public mutating func writeTag(field: Int, wireType: WireType) {
        assert(field >= 1 && field <= ProtoReader.maxFieldNumber, "invalid protobuf field number")
        writeVarint(UInt64(truncatingIfNeeded: field) << 3 | UInt64(wireType.rawValue))
    }

    /// Appends `raw` unchanged.
    @inline(__always)
    public mutating func writeRawBytes(_ raw: some Sequence<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Appends `value` as four little-endian bytes, without a tag.
    @inline(__always)
    public mutating func writeRawFixed32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends `value` as eight little-endian bytes, without a tag.
    @inline(__always)
    public mutating func writeRawFixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Writes a length-delimited field whose content `body` appends.
    ///
    /// The length is back-patched: content shorter than 128 bytes costs nothing extra, longer
    /// content is shifted once by the few extra bytes its length prefix needs.
    public mutating func writeLengthDelimited(field: Int, _ body: (inout ProtoWriter) -> Void) {
        writeTag(field: field, wireType: .lengthDelimited)
        let lengthIndex = bytes.count
        bytes.append(0)
        body(&self)
        let length = bytes.count - lengthIndex - 1
        if length < 0x80 {
            bytes[lengthIndex] = UInt8(truncatingIfNeeded: length)
        } else {
            var prefix = ProtoWriter(reservingCapacity: Varint.maxEncodedSize)
            prefix.writeVarint(UInt64(length))
            bytes.replaceSubrange(lengthIndex..<lengthIndex + 1, with: prefix.bytes)
        }
    }

    /// Writes `message` as a length-prefixed nested message.
    public mutating func writeMessage<M: ProtoMessage>(field: Int, _ message: M) {
        writeLengthDelimited(field: field) { message.encode(to: &$0) }
    }
}

/// The gRPC length-prefixed message framing (gRPC over HTTP/2, "Length-Prefixed-Message").
public enum GRPCFrame {
    /// One flag byte plus a four-byte big-endian length.
    public static let headerSize = 5

    /// Appends the 5-byte prefix (flag, big-endian UInt32 length) and the message.
    ///
    /// `message` must be shorter than 4 GiB; callers enforce a far smaller limit.
    public static func append(_ message: [UInt8], compressed: Bool, to buffer: inout [UInt8]) {
        let length = UInt32(truncatingIfNeeded: message.count)
        assert(Int(length) == message.count, "gRPC messages must be shorter than 4 GiB")
        buffer.reserveAdditionalCapacity(headerSize + message.count)
        buffer.append(compressed ? 1 : 0)
        buffer.append(UInt8(truncatingIfNeeded: length >> 24))
        buffer.append(UInt8(truncatingIfNeeded: length >> 16))
        buffer.append(UInt8(truncatingIfNeeded: length >> 8))
        buffer.append(UInt8(truncatingIfNeeded: length))
        buffer.append(contentsOf: message)
    }

    /// The framed message: prefix then payload.
    public static func encode(_ message: [UInt8], compressed: Bool) -> [UInt8] {
        var buffer: [UInt8] = []
        append(message, compressed: compressed, to: &buffer)
        return buffer
    }

    /// Encodes `message` behind its 5-byte prefix in one buffer, so the body is written once
    /// and never copied into a frame afterwards.
    public static func encode<M: ProtoMessage>(message: M) -> [UInt8] {
        var writer = ProtoWriter(reservingCapacity: 64)
        writer.bytes.append(contentsOf: [0, 0, 0, 0, 0])
        message.encode(to: &writer)
        let length = UInt32(truncatingIfNeeded: writer.bytes.count - headerSize)
        writer.bytes[1] = UInt8(truncatingIfNeeded: length >> 24)
        writer.bytes[2] = UInt8(truncatingIfNeeded: length >> 16)
        writer.bytes[3] = UInt8(truncatingIfNeeded: length >> 8)
        writer.bytes[4] = UInt8(truncatingIfNeeded: length)
        return writer.bytes
    }
}

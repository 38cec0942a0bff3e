/// Splits a gRPC-Web response body, arriving in pieces of any size, into frames. A frame's
/// declared length is checked against `maxMessageSize` as soon as its 5-byte header is complete,
/// before its body is buffered; the flag byte must be 0 (a message) or have the MSB set
/// (trailers): a compressed message (flag 1) is refused, since this client never asks for one.
package struct GRPCWebDeframer: Sendable {
    /// Why a body could not be split into frames.
    package enum Failure: Error, Equatable, Sendable {
        case messageTooLarge(size: Int, limit: Int)
        case invalidFlag(UInt8)
        /// The body ended inside a frame.
        case truncated
    }

    package let maxMessageSize: Int
    private var buffer: [UInt8] = []
    private var readIndex = 0

    package init(maxMessageSize: Int) {
        self.maxMessageSize = maxMessageSize
    }

    /// Bytes received and not yet returned as frames.
    package var bufferedByteCount: Int { buffer.count - readIndex }

    package mutating func append(_ bytes: some Sequence<UInt8>) {
        if readIndex > 0, readIndex >= buffer.count / 2 {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, nil when more bytes are needed.
    package mutating func next() throws(Failure) -> GRPCWebFrame? {
        guard buffer.count - readIndex >= 5 else { return nil }
        let flag = buffer[readIndex]
        var length = 0
        for byte in buffer[(readIndex + 1)..<(readIndex + 5)] { length = length << 8 | Int(byte) }
        guard flag == 0 || flag & 0x80 != 0 else { throw .invalidFlag(flag) }
        guard length <= maxMessageSize else { throw .messageTooLarge(size: length, limit: maxMessageSize) }
        guard buffer.count - readIndex - 5 >= length else { return nil }
        let body = Array(buffer[(readIndex + 5)..<(readIndex + 5 + length)])
        readIndex += 5 + length
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        }
        return flag & 0x80 != 0 ? .trailers(GRPCWebFrame.parseTrailers(body)) : .message(body)
    }

    /// Call at the end of the body: throws `truncated` when part of a frame is left.
    package func finish() throws(Failure) {
        if buffer.count > readIndex { throw .truncated }
    }
}

/// Streaming deframer: accepts bytes split across and packed within DATA frames in any way.
///
/// Bytes go into a staging buffer read through an index that is compacted occasionally, so
/// many small messages cost linear time. Once a message's header is complete its declared
/// length is checked against `maxMessageSize`, and if the body is still incomplete it moves
/// into a buffer of its own, sized once, which later bytes are appended to directly.
/// After an error the deframer drops its bytes and every later `next()` rethrows the error.
public struct GRPCDeframer: Sendable {
    /// A message whose header has been read and whose body is arriving in pieces.
    private struct PartialMessage: Sendable {
        var compressed: Bool
        var length: Int
        var payload: [UInt8]

        var isComplete: Bool { payload.count == length }
    }

    /// The largest payload, in bytes, a message may declare.
    public let maxMessageSize: Int

    private var buffer: [UInt8] = []
    /// Offset of the first unread byte in `buffer`.
    private var readIndex = 0
    private var partial: PartialMessage?
    private var failure: GRPCFramingError?

    /// The staging buffer keeps at most this much capacity once drained.
    private static let retainedCapacity = 1 << 16

    /// Creates a deframer rejecting messages that declare more than `maxMessageSize` bytes.
    public init(maxMessageSize: Int) {
        self.maxMessageSize = maxMessageSize
    }

    /// Bytes received and not yet returned by ``next()``, headers included.
    public var bufferedByteCount: Int {
        (buffer.count - readIndex) + (partial.map { GRPCFrame.headerSize + $0.payload.count } ?? 0)
    }

    /// Adds bytes received from the stream.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, !bytes.isEmpty else {
            return
        }
        var rest = bytes[...]
        if let current = partial, !current.isComplete {
            let taken = min(current.length - current.payload.count, rest.count)
            partial?.payload.append(contentsOf: rest.prefix(taken))
            rest = rest.dropFirst(taken)
        }
        guard !rest.isEmpty else {
            return
        }
        compact()
        buffer.append(contentsOf: rest)
        startMessageIfNeeded()
    }

    /// Adds bytes received from the stream.
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next complete message, nil if more bytes are needed.
    ///
    /// Checks the declared length against `maxMessageSize` as soon as the 5-byte header is
    /// complete, before buffering the body.
    public mutating func next() throws -> GRPCFramedMessage? {
        if let failure {
            throw failure
        }
        if let current = partial {
            guard current.isComplete else {
                return nil
            }
            partial = nil
            startMessageIfNeeded()
            return GRPCFramedMessage(compressed: current.compressed, payload: current.payload)
        }
        startMessageIfNeeded()
        if let failure {
            throw failure
        }
        guard partial == nil, let header = headerAtReadIndex() else {
            return nil
        }
        // `startMessageIfNeeded` left the message here only because its body is complete.
        let bodyStart = readIndex + GRPCFrame.headerSize
        let payload = Array(buffer[bodyStart..<(bodyStart + header.length)])
        readIndex = bodyStart + header.length
        compact()
        return GRPCFramedMessage(compressed: header.compressed, payload: payload)
    }

    /// Call at end of stream: throws truncatedAtEndOfStream if a partial message is buffered.
    ///
    /// Complete messages not yet taken with ``next()`` are not an error.
    public func finish() throws {
        if let failure {
            throw failure
        }
        if let partial, !partial.isComplete {
            throw GRPCFramingError.truncatedAtEndOfStream
        }
        var offset = readIndex
        while offset < buffer.count {
            guard let header = header(at: offset) else {
                throw GRPCFramingError.truncatedAtEndOfStream
            }
            guard buffer.count - offset - GRPCFrame.headerSize >= header.length else {
                throw GRPCFramingError.truncatedAtEndOfStream
            }
            offset += GRPCFrame.headerSize + header.length
        }
    }

    // MARK: - Internals

    /// Validates the header at `readIndex` and, if its body is incomplete, moves what has
    /// arrived of it into its own buffer.
    private mutating func startMessageIfNeeded() {
        guard partial == nil, failure == nil, let header = headerAtReadIndex() else {
            return
        }
        if let error = validate(header) {
            failure = error
            buffer = []
            readIndex = 0
            return
        }
        let bodyStart = readIndex + GRPCFrame.headerSize
        guard buffer.count - bodyStart < header.length else {
            return
        }
        var payload: [UInt8] = []
        payload.reserveCapacity(header.length)
        payload.append(contentsOf: buffer[bodyStart...])
        partial = PartialMessage(compressed: header.compressed, length: header.length, payload: payload)
        readIndex = buffer.count
        compact()
    }

    private func validate(_ header: (compressed: Bool, flag: UInt8, length: Int)) -> GRPCFramingError? {
        guard header.flag <= 1 else {
            return .invalidCompressionFlag(header.flag)
        }
        guard header.length <= maxMessageSize else {
            return .messageTooLarge(size: header.length, limit: maxMessageSize)
        }
        return nil
    }

    private func headerAtReadIndex() -> (compressed: Bool, flag: UInt8, length: Int)? {
        header(at: readIndex)
    }

    /// The header starting at `offset`, or nil if fewer than five bytes are buffered there.
    private func header(at offset: Int) -> (compressed: Bool, flag: UInt8, length: Int)? {
        guard buffer.count - offset >= GRPCFrame.headerSize else {
            return nil
        }
        let flag = buffer[offset]
        var length = 0
        for byte in buffer[(offset + 1)..<(offset + GRPCFrame.headerSize)] {
            length = length << 8 | Int(byte)
        }
        return (flag == 1, flag, length)
    }

    /// Drops consumed bytes: all of them when drained, otherwise only once they are the
    /// larger half, so each byte is moved at most a constant number of times.
    private mutating func compact() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= Self.retainedCapacity)
            readIndex = 0
        } else if readIndex >= 4096, readIndex >= buffer.count / 2 {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }
}

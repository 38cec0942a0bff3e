import Testing
import Wire

@Suite struct GRPCDeframerTests {
    /// Messages of assorted sizes (empty, tiny, multi-chunk) with both flag values.
    private static let messages: [GRPCFramedMessage] = [
        GRPCFramedMessage(compressed: false, payload: []),
        GRPCFramedMessage(compressed: false, payload: [1]),
        GRPCFramedMessage(compressed: true, payload: Array(0..<5)),
        GRPCFramedMessage(compressed: false, payload: (0..<300).map { UInt8(truncatingIfNeeded: $0) }),
        GRPCFramedMessage(compressed: false, payload: []),
        GRPCFramedMessage(compressed: true, payload: (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }),
    ]

    private static let stream: [UInt8] = messages.reduce(into: []) {
        GRPCFrame.append($1.payload, compressed: $1.compressed, to: &$0)
    }

    /// Feeds `chunks` one at a time, draining `next()` after each, then calls `finish()`.
    private static func deframe(_ chunks: [ArraySlice<UInt8>], maxMessageSize: Int = 1 << 20) throws -> [GRPCFramedMessage] {
        var deframer = GRPCDeframer(maxMessageSize: maxMessageSize)
        var output: [GRPCFramedMessage] = []
        for chunk in chunks {
            deframer.append(Array(chunk))
            while let message = try deframer.next() {
                output.append(message)
            }
        }
        try deframer.finish()
        #expect(deframer.bufferedByteCount == 0)
        return output
    }

    @Test func wholeStreamInOneChunk() throws {
        #expect(try Self.deframe([Self.stream[...]]) == Self.messages)
    }

    @Test func splitAtEveryOffset() throws {
        for offset in 0...Self.stream.count {
            let chunks = [Self.stream[..<offset], Self.stream[offset...]]
            #expect(try Self.deframe(chunks) == Self.messages, "split at \(offset)")
        }
    }

    @Test func splitAtEveryPairOfOffsets() throws {
        // The first three messages and the start of the fourth.
        let stream = Array(Self.stream.prefix(60))
        let expected = Array(Self.messages.prefix(3))
        for first in 0...stream.count {
            for second in first...stream.count {
                let chunks = [stream[..<first], stream[first..<second], stream[second...]]
                var deframer = GRPCDeframer(maxMessageSize: 1 << 20)
                var output: [GRPCFramedMessage] = []
                for chunk in chunks {
                    deframer.append(Array(chunk))
                    while let message = try deframer.next() { output.append(message) }
                }
                #expect(output == expected, "split at \(first), \(second)")
            }
        }
    }

    @Test func byteByByte() throws {
        let chunks = Self.stream.indices.map { Self.stream[$0..<($0 + 1)] }
        #expect(try Self.deframe(chunks) == Self.messages)
    }

    @Test(arguments: [2, 3, 7, 64, 333, 4096])
    func fixedChunkSizes(chunkSize: Int) throws {
        let chunks = stride(from: 0, to: Self.stream.count, by: chunkSize).map {
            Self.stream[$0..<min($0 + chunkSize, Self.stream.count)]
        }
        #expect(try Self.deframe(chunks) == Self.messages)
    }

    @Test func appendsWithoutDraining_thenDrain() throws {
        var deframer = GRPCDeframer(maxMessageSize: 1 << 20)
        for index in Self.stream.indices {
            deframer.append([Self.stream[index]])
        }
        #expect(deframer.bufferedByteCount == Self.stream.count)
        var output: [GRPCFramedMessage] = []
        while let message = try deframer.next() { output.append(message) }
        #expect(output == Self.messages)
        try deframer.finish()
    }

    @Test func unsafeRawBufferAppend() throws {
        var deframer = GRPCDeframer(maxMessageSize: 100)
        GRPCFrame.encode([1, 2, 3], compressed: false).withUnsafeBytes { deframer.append($0) }
        #expect(try deframer.next() == GRPCFramedMessage(compressed: false, payload: [1, 2, 3]))
        #expect(try deframer.next() == nil)
    }

    @Test func manySmallMessages_areLinear() throws {
        // 200 000 messages in one buffer: quadratic removal would take minutes.
        var stream: [UInt8] = []
        for index in 0..<200_000 {
            GRPCFrame.append([UInt8(truncatingIfNeeded: index)], compressed: false, to: &stream)
        }
        var deframer = GRPCDeframer(maxMessageSize: 16)
        deframer.append(stream)
        var count = 0
        while let message = try deframer.next() {
            #expect(message.payload == [UInt8(truncatingIfNeeded: count)])
            count += 1
        }
        #expect(count == 200_000)
    }

    @Test func largeMessageInSmallChunks() throws {
        let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let stream = GRPCFrame.encode(payload, compressed: false)
        let chunks = stride(from: 0, to: stream.count, by: 1000).map { stream[$0..<min($0 + 1000, stream.count)] }
        #expect(try Self.deframe(chunks, maxMessageSize: 1 << 20) == [GRPCFramedMessage(compressed: false, payload: payload)])
    }

    // MARK: - Errors

    @Test func oversizedLength_rejectedBeforeBody() {
        var deframer = GRPCDeframer(maxMessageSize: 1000)
        deframer.append([0, 0, 0, 0x03])
        #expect(throws: Never.self) { try deframer.next() }
        deframer.append([0xE9])  // 1001 bytes declared, no body yet.
        #expect(throws: GRPCFramingError.messageTooLarge(size: 1001, limit: 1000)) { try deframer.next() }
        // Later bytes are dropped, and the error sticks.
        deframer.append([UInt8](repeating: 0, count: 5000))
        #expect(deframer.bufferedByteCount == 0)
        #expect(throws: GRPCFramingError.messageTooLarge(size: 1001, limit: 1000)) { try deframer.next() }
        #expect(throws: GRPCFramingError.messageTooLarge(size: 1001, limit: 1000)) { try deframer.finish() }
    }

    @Test func oversizedLength_rejectedEvenWithoutCallingNext() {
        var deframer = GRPCDeframer(maxMessageSize: 10)
        deframer.append([0, 0xFF, 0xFF, 0xFF, 0xFF])
        for _ in 0..<100 {
            deframer.append([UInt8](repeating: 0, count: 1000))
        }
        #expect(deframer.bufferedByteCount == 0)
        #expect(throws: GRPCFramingError.messageTooLarge(size: Int(UInt32.max), limit: 10)) { try deframer.next() }
    }

    @Test func oversizedSecondMessage_afterValidFirst() throws {
        var deframer = GRPCDeframer(maxMessageSize: 4)
        deframer.append([0, 0, 0, 0, 1, 9, 0, 0, 0, 0, 5])
        #expect(try deframer.next() == GRPCFramedMessage(compressed: false, payload: [9]))
        #expect(throws: GRPCFramingError.messageTooLarge(size: 5, limit: 4)) { try deframer.next() }
    }

    @Test(arguments: [UInt8(2), 0x80, 0xFF])
    func badFlagByte_throws(flag: UInt8) {
        var deframer = GRPCDeframer(maxMessageSize: 100)
        deframer.append([flag, 0, 0, 0, 1, 0])
        #expect(throws: GRPCFramingError.invalidCompressionFlag(flag)) { try deframer.next() }
    }

    @Test(arguments: [1, 4, 5, 6, 9])
    func finish_onPartialData_throws(length: Int) {
        let stream = GRPCFrame.encode([1, 2, 3, 4, 5], compressed: false)
        var deframer = GRPCDeframer(maxMessageSize: 100)
        deframer.append(Array(stream.prefix(length)))
        #expect(throws: Never.self) { try deframer.next() }
        #expect(throws: GRPCFramingError.truncatedAtEndOfStream) { try deframer.finish() }
    }

    @Test func finish_withUnreadCompleteMessages_succeeds() throws {
        var deframer = GRPCDeframer(maxMessageSize: 100)
        deframer.append(Self.stream.prefix(5 + 0 + 5 + 1).map { $0 })
        try deframer.finish()
        try GRPCDeframer(maxMessageSize: 1).finish()
    }

    @Test func errorDescriptions_holdSizesNotPayload() {
        #expect(GRPCFramingError.messageTooLarge(size: 5, limit: 4).description == "gRPC message of 5 bytes exceeds the limit of 4")
        #expect(GRPCFramingError.invalidCompressionFlag(2).description == "gRPC message has invalid compressed flag 2")
        #expect(GRPCFramingError.truncatedAtEndOfStream.description == "gRPC stream ended inside a message")
    }
}

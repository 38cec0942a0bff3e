import RPC
import Testing

/// The gRPC-Web response body as the gateway client's URLSession transport splits it
/// (PROTOCOL-WEB.md): messages, then one trailers frame whose flag has the MSB set.
@Suite struct GRPCWebDeframerTests {
    static let body = GRPCWebFrame.encodeMessage([1, 2, 3]) + GRPCWebFrame.encodeMessage([])
        + GRPCWebFrame.encodeMessage(Array(repeating: 7, count: 300))
        + GRPCWebFrame.encodeTrailers([GRPCWebField(name: "grpc-status", value: "0"), GRPCWebField(name: "x-trace", value: "abc")])

    static let expected: [GRPCWebFrame] = [
        .message([1, 2, 3]), .message([]), .message(Array(repeating: 7, count: 300)),
        .trailers([GRPCWebField(name: "grpc-status", value: "0"), GRPCWebField(name: "x-trace", value: "abc")]),
    ]

    @Test func bodySplitAtEveryOffset_yieldsTheSameFrames() throws {
        for split in 0...Self.body.count {
            var deframer = GRPCWebDeframer(maxMessageSize: 1 << 20)
            var frames: [GRPCWebFrame] = []
            for part in [Self.body[..<split], Self.body[split...]] {
                deframer.append(part)
                while let frame = try deframer.next() { frames.append(frame) }
            }
            try deframer.finish()
            #expect(frames == Self.expected, "split at \(split)")
        }
    }

    @Test func trailersBlock_namesLowercased_valuesTrimmed_junkLinesSkipped() {
        let block = Array("Grpc-Status: 5\r\ngrpc-message:not%20found\r\nno colon here\r\n: empty name\r\nX-A:\tb \r\n".utf8)
        #expect(GRPCWebFrame.parseTrailers(block) == [
            GRPCWebField(name: "grpc-status", value: "5"), GRPCWebField(name: "grpc-message", value: "not%20found"),
            GRPCWebField(name: "x-a", value: "b"),
        ])
    }

    @Test func trailers_becomeTheStatus_withReasonAndMetadata() {
        let error = RPCError(code: .failedPrecondition, message: "session full ☺", reason: "SESSION_FULL", details: ["k": "v"])
        var fields = [(name: "grpc-status", value: String(error.code.rawValue)),
                      (name: "grpc-message", value: PercentEncoding.encode(error.message)),
                      (name: "grpc-status-details-bin", value: Base64.encode(error.statusDetailsBytes() ?? []))]
        fields.append((name: "x-request-id", value: "42"))
        let frame = GRPCWebFrame.encodeTrailers(fields.map { GRPCWebField(name: $0.name, value: $0.value) })
        var deframer = GRPCWebDeframer(maxMessageSize: 1024)
        deframer.append(frame)
        guard case .trailers(let parsed)? = try? deframer.next() else {
            Issue.record("no trailers frame")
            return
        }
        let status = RPCError(trailerFields: parsed.map { (name: $0.name, value: $0.value) })
        #expect(status.code == .failedPrecondition)
        #expect(status.message == "session full ☺")
        #expect(status.reason == "SESSION_FULL")
        #expect(status.details == ["k": "v"])
        #expect(status.trailers[string: "x-request-id"] == "42")
    }

    @Test func messageLongerThanTheLimit_isRefusedFromItsHeader() {
        var deframer = GRPCWebDeframer(maxMessageSize: 10)
        deframer.append([0, 0, 0, 0, 11])
        #expect(throws: GRPCWebDeframer.Failure.messageTooLarge(size: 11, limit: 10)) { try deframer.next() }
    }

    @Test(arguments: [UInt8(1), 2, 0x7F])
    func flagNeitherMessageNorTrailers_isRefused(flag: UInt8) {
        var deframer = GRPCWebDeframer(maxMessageSize: 10)
        deframer.append([flag, 0, 0, 0, 1, 9])
        #expect(throws: GRPCWebDeframer.Failure.invalidFlag(flag)) { try deframer.next() }
    }

    @Test func bodyEndingInsideAFrame_isTruncated() throws {
        var deframer = GRPCWebDeframer(maxMessageSize: 10)
        deframer.append([0, 0, 0, 0, 3, 1])
        #expect(try deframer.next() == nil)
        #expect(throws: GRPCWebDeframer.Failure.truncated) { try deframer.finish() }
    }

    @Test(arguments: [(200, StatusCode.unknown), (400, .internal), (401, .unauthenticated), (403, .permissionDenied),
                      (404, .unimplemented), (429, .unavailable), (502, .unavailable), (503, .unavailable),
                      (504, .unavailable), (500, .unknown)])
    func httpStatus_mapsAsGRPCsTableSays(http: Int, code: StatusCode) {
        #expect(StatusCode(httpStatus: http) == code)
    }
}

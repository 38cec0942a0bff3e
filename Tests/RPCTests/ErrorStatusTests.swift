import HTTP2
import IOLoop
import RPC
import Testing
import TestSupport
import Wire

/// What a client sees when a call fails: codes, messages, ErrorInfo, HTTP-level failures.
@Suite struct ErrorStatusTests {
    static let codes: [StatusCode] = [
        .cancelled, .unknown, .invalidArgument, .notFound, .alreadyExists, .permissionDenied,
        .resourceExhausted, .failedPrecondition, .aborted, .outOfRange, .internal, .unavailable,
        .dataLoss, .unauthenticated,
    ]

    @Test(arguments: codes)
    func thrownRPCError_reachesClient_withCodeMessageAndErrorInfo(code: StatusCode) async throws {
        try await withServer { _, client in
            let error = await rpcError {
                _ = try await client.unary(path: EchoService.path("Fail"),
                                           request: TestMessage(text: "session is full", number: Int64(code.rawValue)),
                                           as: TestMessage.self)
            }
            #expect(error?.code == code)
            #expect(error?.message == "session is full")
            #expect(error?.reason == "TEST_REASON")
            #expect(error?.domain == "test.rendezvous")
            #expect(error?.details == ["attempt": "3", "note": "näive ☺"])
        }
    }

    /// A message of any length reaches the client cut to 1 KiB of UTF-8 at a character boundary,
    /// marked; whole, a 1 MiB one made trailers no client takes.
    @Test(arguments: [2_000, 1 << 20])
    func anOversizedMessage_reachesClient_cutAtACharacter(length: Int) async throws {
        let message = String(repeating: "näive ☺ ", count: length / 8)
        try await withServer { _, client in
            let error = await rpcError {
                _ = try await client.unary(path: EchoService.path("Fail"), request: TestMessage(text: message, number: 3),
                                           as: TestMessage.self, options: CallOptions(timeout: .seconds(10)))
            }
            #expect(error?.code == .invalidArgument)
            let received = error?.message ?? ""
            #expect(received.utf8.count <= RPCError.maximumMessageBytes)
            #expect(received.hasSuffix(RPCError.truncationMarker))
            #expect(message.hasPrefix(received.dropLast(RPCError.truncationMarker.count)))
            #expect(error?.reason == "TEST_REASON")
        }
    }

    /// A status whose header block nghttp2 cannot send (here a 100 KB trailer a handler set) resets
    /// the stream: the client hears INTERNAL at once instead of nothing, even past its deadline.
    @Test func aTrailerTooLargeToSend_resetsTheStream() async throws {
        try await withServer { _, client in
            let started = ContinuousClock.now
            let error = await rpcError {
                _ = try await client.unary(path: EchoService.path("HugeTrailer"), request: TestMessage(number: 100_000),
                                           as: TestMessage.self, options: CallOptions(timeout: .seconds(10)))
            }
            #expect(error?.code == .internal)
            #expect(started.duration(to: .now) < .seconds(5))
            let fine = try await client.unary(path: EchoService.path("HugeTrailer"), request: TestMessage(number: 1_000),
                                              as: TestMessage.self, options: CallOptions(timeout: .seconds(10)))
            #expect(fine.message.text == "ok")
        }
    }

    @Test func bounded_cutsMessageAndErrorInfoMetadata_toTheirLimits() {
        let long = String(repeating: "é", count: 5_000)
        var details: [String: String] = [:]
        for index in 0..<40 { details["key\(index)"] = long }
        let status = RPCError(code: .invalidArgument, message: long, reason: "R", details: details).bounded
        #expect(status.message.utf8.count <= RPCError.maximumMessageBytes)
        #expect(status.message == String(repeating: "é", count: (1024 - RPCError.truncationMarker.utf8.count) / 2)
                + RPCError.truncationMarker)
        #expect(!status.details.isEmpty)
        #expect(status.details.values.allSatisfy { $0.utf8.count <= RPCError.maximumDetailBytes && $0.hasSuffix(RPCError.truncationMarker) })
        #expect(status.details.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count } <= RPCError.maximumDetailsBytes)
        #expect((status.statusDetailsBytes()?.count ?? .max) < 6 << 10, "base64 stays under 8 KiB")
        let short = RPCError(code: .notFound, message: "no such thing", reason: "R", details: ["a": "b"])
        #expect(short.bounded == short)
    }

    @Test func thrownNonRPCError_becomesInternal_withoutItsText() async throws {
        try await withServer { _, client in
            let error = await rpcError {
                _ = try await client.unary(path: EchoService.path("Crash"), request: TestMessage(), as: TestMessage.self)
            }
            #expect(error?.code == .internal)
            #expect(error?.message.isEmpty == false)
            #expect(error?.message.contains("hunter2") == false)
            #expect(error?.message.contains("10.1.2.3") == false)
            #expect(error?.description.contains("hunter2") == false)
            #expect(error?.reason == nil)
        }
    }

    static let messages = [
        "test status message",
        "\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n",
        "100% sure, %41 is not A, %zz is not hex, trailing %",
        "日本語のエラー",
        "quotes \" and ' and \\ backslash",
        "",
    ]

    @Test(arguments: messages)
    func statusMessage_withSpecialCharacters_survivesPercentEncoding(message: String) async throws {
        try await withServer { _, client in
            let error = await rpcError {
                _ = try await client.unary(path: EchoService.path("Fail"),
                                           request: TestMessage(text: message, number: 2), as: TestMessage.self)
            }
            #expect(error?.code == .unknown)
            #expect(error?.message == message)
        }
    }

    @Test(arguments: [
        EchoService.path("NoSuchMethod"), "/rv.test.NoSuchService/Echo", "/", "/rv.test.Echo", "/rv.test.echo/Echo",
    ])
    func unknownMethodOrService_isUnimplemented(path: String) async throws {
        try await withServer { _, client in
            let error = await rpcError {
                _ = try await client.unary(path: path, request: TestMessage(), as: TestMessage.self)
            }
            #expect(error?.code == .unimplemented)
        }
    }

    @Test func unknownMethod_onStreamingCall_isUnimplemented() async throws {
        try await withServer { _, client in
            let call = try await client.bidirectional(path: EchoService.path("Nope"),
                                                      as: TestMessage.self) as StreamingCall<TestMessage, TestMessage>
            try await call.send(TestMessage(text: "x"))
            let error = await rpcError { for try await _ in call {} }
            #expect(error?.code == .unimplemented)
            #expect(await call.status().code == .unimplemented)
        }
    }

    @Test(arguments: ["application/json", "text/plain", "application/grpcx", "application/grp"])
    func wrongContentType_isAnsweredWithHTTP415(contentType: String) async throws {
        try await withServer { server, _ in
            let head = RawStream.grpcHead(path: EchoService.path("Echo"), port: server.port, contentType: contentType)
            let raw = try await RawStream.open(port: server.port, headers: head,
                                               body: GRPCFrame.encode(TestMessage(text: "x").serializedBytes(), compressed: false))
            defer { raw.close() }
            let received = try #require(await raw.waitUntilClosed())
            #expect(received.head(":status") == "415")
            #expect(received.head("grpc-status") == nil)
            #expect(received.data.isEmpty)
        }
    }

    @Test func missingContentType_isAnsweredWithHTTP415() async throws {
        try await withServer { server, _ in
            let head = RawStream.grpcHead(path: EchoService.path("Echo"), port: server.port)
                .filter { $0.name != "content-type" }
            let raw = try await RawStream.open(port: server.port, headers: head)
            defer { raw.close() }
            let received = try #require(await raw.waitUntilClosed())
            #expect(received.head(":status") == "415")
        }
    }

    /// gRPC's doc/http-grpc-status-mapping.md.
    static let httpStatuses: [(String, StatusCode)] = [
        ("400", .internal), ("401", .unauthenticated), ("403", .permissionDenied), ("404", .unimplemented),
        ("415", .unknown), ("429", .unavailable), ("500", .unknown), ("502", .unavailable),
        ("503", .unavailable), ("504", .unavailable),
    ]

    @Test(arguments: httpStatuses)
    func nonGRPCHTTPStatus_isMappedPerSpec(httpStatus: String, expected: StatusCode) async throws {
        let server = HTTP2Server(port: 0, group: Self.plainHTTPGroup, handler: FixedStatusResponder(status: httpStatus))
        try server.start()
        let client = RPCClient(host: "127.0.0.1", port: server.port)
        let error = await rpcError {
            _ = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(text: "x"), as: TestMessage.self)
        }
        client.close()
        await server.shutdown(gracePeriod: .milliseconds(500))
        #expect(error?.code == expected)
    }

    @Test func http200WithoutGRPCContentType_isUnknown() async throws {
        let server = HTTP2Server(port: 0, group: Self.plainHTTPGroup,
                                 handler: FixedStatusResponder(status: "200", contentType: "text/html"))
        try server.start()
        let client = RPCClient(host: "127.0.0.1", port: server.port)
        let error = await rpcError {
            _ = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(text: "x"), as: TestMessage.self)
        }
        client.close()
        await server.shutdown(gracePeriod: .milliseconds(500))
        #expect(error?.code == .unknown)
    }

    @Test(arguments: ["application/grpc+proto", "application/grpc;charset=utf-8", "Application/gRPC"])
    func grpcContentTypeVariants_areAccepted(contentType: String) async throws {
        try await withServer { server, _ in
            let head = RawStream.grpcHead(path: EchoService.path("Echo"), port: server.port, contentType: contentType)
            let raw = try await RawStream.open(port: server.port, headers: head,
                                               body: GRPCFrame.encode(TestMessage(text: "x").serializedBytes(), compressed: false))
            defer { raw.close() }
            let received = try #require(await raw.waitUntilClosed())
            #expect(received.head(":status") == "200")
            #expect(received.trailer("grpc-status") == "0")
        }
    }

    /// gRPC over HTTP/2 spec, "Errors": RST_STREAM codes as the client reports them.
    static let resetCodes: [(UInt32, StatusCode)] = [
        (HTTP2ErrorCode.noError, .internal), (HTTP2ErrorCode.protocolError, .internal),
        (HTTP2ErrorCode.internalError, .internal), (HTTP2ErrorCode.flowControlError, .internal),
        (HTTP2ErrorCode.refusedStream, .unavailable), (HTTP2ErrorCode.cancel, .cancelled),
        (HTTP2ErrorCode.enhanceYourCalm, .resourceExhausted),
    ]

    @Test(arguments: resetCodes)
    func serverResetsStream_clientMapsCodePerSpec(resetCode: UInt32, expected: StatusCode) async throws {
        let server = HTTP2Server(port: 0, group: Self.plainHTTPGroup, handler: FixedStatusResponder(status: "", reset: resetCode))
        try server.start()
        let client = RPCClient(host: "127.0.0.1", port: server.port)
        let error = await rpcError {
            _ = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(text: "x"), as: TestMessage.self)
        }
        let second = await rpcError {
            _ = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(text: "x"), as: TestMessage.self)
        }
        client.close()
        await server.shutdown(gracePeriod: .milliseconds(500))
        #expect(error?.code == expected)
        #expect(second?.code == expected, "the connection survives a reset stream")
    }

    static let malformedBodies: [(String, [UInt8], StatusCode)] = [
        ("compressed flag 2", [2, 0, 0, 0, 1, 0x08], .internal),
        ("ends inside a message", [0, 0, 0, 0, 9, 0x08], .internal),
        ("declares 5 MB", [0, 0, 0x4C, 0x4B, 0x40, 0x08], .resourceExhausted),
        ("undecodable message", [0, 0, 0, 0, 2, 0xFF, 0xFF], .internal),
    ]

    @Test(arguments: malformedBodies)
    func malformedResponse_isReportedWithTheRightCode(name: String, body: [UInt8], expected: StatusCode) async throws {
        let server = HTTP2Server(port: 0, group: Self.plainHTTPGroup,
                                 handler: FixedStatusResponder(status: "200", contentType: "application/grpc", body: body))
        try server.start()
        let client = RPCClient(host: "127.0.0.1", port: server.port)
        let error = await rpcError {
            _ = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(text: "x"), as: TestMessage.self)
        }
        client.close()
        await server.shutdown(gracePeriod: .milliseconds(500))
        #expect(error?.code == expected, "\(name): \(String(describing: error))")
    }

    static let plainHTTPGroup: EventLoopGroup = {
        // Test-process setup: failing to create one loop means nothing else can run either.
        try! EventLoopGroup(loopCount: 1, name: "rv-test-http")
    }()
}

/// An HTTP/2 server that answers every request the same way: a response head (plus `body` and
/// `grpc-status: 0` trailers when `body` is set), or a RST_STREAM with `reset`.
private struct FixedStatusResponder: HTTP2ServerStreamHandler {
    var status: String
    var contentType: String?
    var body: [UInt8]?
    var reset: UInt32?

    func openStream(_ stream: HTTP2Stream, headers: [HTTP2Header]) -> any HTTP2StreamDelegate {
        if let reset {
            stream.reset(errorCode: reset)
            return DiscardingStreamDelegate(stream: stream)
        }
        var head = [HTTP2Header(":status", status)]
        if let contentType { head.append(HTTP2Header("content-type", contentType)) }
        if let body {
            stream.send(headers: head, data: body, end: .trailers([HTTP2Header("grpc-status", "0")]))
        } else {
            stream.send(headers: head, end: .endStream)
        }
        return DiscardingStreamDelegate(stream: stream)
    }
}

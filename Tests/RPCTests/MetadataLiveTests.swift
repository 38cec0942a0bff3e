import RPC
import Testing

/// Custom metadata both ways over a live socket: text and `-bin`, initial and trailing.
@Suite struct MetadataLiveTests {
    @Test func textMetadata_roundTrips_asInitialAndTrailing() async throws {
        try await withServer { _, client in
            var metadata = Metadata()
            metadata.addString("hello initial", forKey: "x-initial-text")
            metadata.addString("bye trailing", forKey: "x-trailing-text")
            let response = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(text: "m"),
                                                  as: TestMessage.self, options: CallOptions(metadata: metadata))
            #expect(response.initialMetadata[string: "x-initial-text"] == "hello initial")
            #expect(response.trailingMetadata[string: "x-trailing-text"] == "bye trailing")
            #expect(response.initialMetadata[string: "x-trailing-text"] == nil)
            #expect(response.trailingMetadata[string: "x-initial-text"] == nil)
        }
    }

    static let binaryValues: [[UInt8]] = [
        [], [0xFF], [0xFF, 0x00], [0xAB, 0xAB, 0xAB], [0xC3, 0x28, 0xA0, 0xA1, 0x80, 0xFE, 0x00, 0x0A, 0x0D],
        (0...255).map { UInt8($0) },
    ]

    @Test(arguments: binaryValues)
    func binaryMetadata_withNonUTF8Bytes_roundTrips(value: [UInt8]) async throws {
        try await withServer { _, client in
            var metadata = Metadata()
            metadata.addBinary(value, forKey: "x-initial-bin")
            metadata.addBinary(value.reversed(), forKey: "x-trailing-bin")
            let response = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(),
                                                  as: TestMessage.self, options: CallOptions(metadata: metadata))
            #expect(response.initialMetadata[binary: "x-initial-bin"] == value)
            #expect(response.trailingMetadata[binary: "x-trailing-bin"] == value.reversed())
        }
    }

    @Test func mixedCaseKey_arrivesLowercased() async throws {
        try await withServer { _, client in
            var metadata = Metadata()
            metadata.addString("v", forKey: "X-Initial-Mixed")
            let response = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(),
                                                  as: TestMessage.self, options: CallOptions(metadata: metadata))
            #expect(response.initialMetadata[string: "x-initial-mixed"] == "v")
        }
    }

    @Test func repeatedKey_keepsEveryValueInOrder() async throws {
        try await withServer { _, client in
            var metadata = Metadata()
            metadata.addString("one", forKey: "x-initial-multi")
            metadata.addString("two", forKey: "x-initial-multi")
            let response = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(),
                                                  as: TestMessage.self, options: CallOptions(metadata: metadata))
            let values = response.initialMetadata.filter { $0.key == "x-initial-multi" }.map(\.value)
            #expect(values == [.string("one"), .string("two")])
        }
    }

    @Test func reservedHeadersInMetadata_areNotSent() async throws {
        try await withServer { _, client in
            var metadata = Metadata()
            metadata.addString("text/plain", forKey: "content-type")
            metadata.addString("identity, br", forKey: "grpc-encoding")
            metadata.addString("1n", forKey: "grpc-timeout")
            metadata.addString("/elsewhere", forKey: ":path")
            let response = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(text: "fine"),
                                                  as: TestMessage.self, options: CallOptions(metadata: metadata))
            #expect(response.message.text == "fine")
        }
    }

    @Test func failedCall_carriesTrailingMetadata_withItsStatus() async throws {
        try await withServer { _, client in
            var metadata = Metadata()
            metadata.addString("on error", forKey: "x-trailing-text")
            metadata.addBinary([0x00, 0xFF], forKey: "x-trailing-bin")
            let error = await rpcError {
                _ = try await client.unary(path: EchoService.path("Fail"), request: TestMessage(text: "nope", number: 9),
                                           as: TestMessage.self, options: CallOptions(metadata: metadata))
            }
            #expect(error?.code == .failedPrecondition)
            #expect(error?.trailers[string: "x-trailing-text"] == "on error")
            #expect(error?.trailers[binary: "x-trailing-bin"] == [0x00, 0xFF])
            #expect(error?.trailers[string: "grpc-status"] == nil, "reserved headers are not metadata")
        }
    }

    @Test func streamingCall_exposesInitialAndTrailingMetadata() async throws {
        try await withServer { _, client in
            var metadata = Metadata()
            metadata.addString("init", forKey: "x-initial-text")
            metadata.addBinary([0xAB, 0xAB, 0xAB], forKey: "x-trailing-bin")
            let call = try await client.bidirectional(path: EchoService.path("Chat"), as: TestMessage.self,
                                                      options: CallOptions(metadata: metadata)) as StreamingCall<TestMessage, TestMessage>
            try await call.send(TestMessage(text: "a"))
            var responses = call.makeAsyncIterator()
            #expect(try await responses.next()?.text == "pong a")
            #expect(call.initialMetadata[string: "x-initial-text"] == "init")
            call.finishSending()
            #expect(try await responses.next() == nil)
            let status = await call.status()
            #expect(status.code == .ok)
            #expect(status.trailers[binary: "x-trailing-bin"] == [0xAB, 0xAB, 0xAB])
        }
    }
}

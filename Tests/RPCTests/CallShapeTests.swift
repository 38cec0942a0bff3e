import RPC
import Testing

/// The four call shapes, our client against our server over a live socket.
@Suite struct CallShapeTests {
    @Test(arguments: [1, 2])
    func unary_echo_returnsRequest(loopCount: Int) async throws {
        try await withServer(loopCount: loopCount) { _, client in
            let request = TestMessage(text: "hello", number: 42, payload: [0, 1, 2, 0xFF])
            let response = try await client.unary(path: EchoService.path("Echo"), request: request, as: TestMessage.self)
            #expect(response.message == request)
        }
    }

    @Test func unary_emptyMessage_roundTrips() async throws {
        try await withServer { _, client in
            let response = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(), as: TestMessage.self)
            #expect(response.message == TestMessage())
        }
    }

    @Test func serverStreaming_hundredMessages_arriveInOrder() async throws {
        try await withServer { _, client in
            let call = try await client.serverStreaming(path: EchoService.path("Expand"),
                                                        request: TestMessage(number: 100), as: TestMessage.self)
            var numbers: [Int64] = []
            for try await message in call {
                #expect(message.text == "\(message.number)")
                numbers.append(message.number)
            }
            #expect(numbers == Array(0..<100))
            #expect(await call.status().code == .ok)
        }
    }

    @Test func serverStreaming_largeMessages_arriveWhole() async throws {
        try await withServer { _, client in
            let payload = (0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let call = try await client.serverStreaming(path: EchoService.path("Expand"),
                                                        request: TestMessage(number: 20, payload: payload), as: TestMessage.self)
            var count = 0
            for try await message in call {
                #expect(message.payload == payload)
                count += 1
            }
            #expect(count == 20)
        }
    }

    /// Messages that arrived before an error status are the server's answer too: a reader that
    /// gets to them only after the status came still reads every one, then the error.
    @Test func serverStreaming_messagesBeforeAnErrorStatus_areAllDelivered_thenTheError() async throws {
        try await withServer { _, client in
            let call = try await client.serverStreaming(path: EchoService.path("Expand"),
                                                        request: TestMessage(text: "then fail", number: 5), as: TestMessage.self)
            #expect(await call.status().code == .aborted)
            var numbers: [Int64] = []
            let error = await #expect(throws: RPCError.self) {
                for try await message in call { numbers.append(message.number) }
            }
            #expect(numbers == Array(0..<5))
            #expect(error?.code == .aborted)
        }
    }

    @Test func serverStreaming_zeroMessages_endsOK() async throws {
        try await withServer { _, client in
            let call = try await client.serverStreaming(path: EchoService.path("Expand"),
                                                        request: TestMessage(number: 0), as: TestMessage.self)
            var count = 0
            for try await _ in call { count += 1 }
            #expect(count == 0)
            #expect(await call.status().code == .ok)
        }
    }

    @Test func clientStreaming_numbers_areSummed() async throws {
        try await withServer { _, client in
            let response = try await client.clientStreaming(path: EchoService.path("Sum"), as: TestMessage.self) {
                (call: StreamingCall<TestMessage, TestMessage>) in
                for number in 1...100 { try await call.send(TestMessage(number: Int64(number))) }
            }
            #expect(response.message.number == 5050)
            #expect(response.message.text == "100")
        }
    }

    @Test func clientStreaming_noMessages_sumsToZero() async throws {
        try await withServer { _, client in
            let response = try await client.clientStreaming(path: EchoService.path("Sum"), as: TestMessage.self) {
                (_: StreamingCall<TestMessage, TestMessage>) in
            }
            #expect(response.message.number == 0)
            #expect(response.message.text == "0")
        }
    }

    @Test func bidirectional_pingPong_answersEachRequestBeforeTheNext() async throws {
        try await withServer { _, client in
            let call = try await client.bidirectional(path: EchoService.path("Chat"),
                                                      as: TestMessage.self) as StreamingCall<TestMessage, TestMessage>
            var responses = call.makeAsyncIterator()
            for index in 0..<50 {
                try await call.send(TestMessage(text: "ping \(index)", number: Int64(index)))
                let response = try await responses.next()
                #expect(response == TestMessage(text: "pong ping \(index)", number: Int64(index)))
            }
            call.finishSending()
            #expect(try await responses.next() == nil)
            #expect(await call.status().code == .ok)
        }
    }

    @Test func bidirectional_emptyStream_endsOK() async throws {
        try await withServer { _, client in
            let call = try await client.bidirectional(path: EchoService.path("Chat"),
                                                      as: TestMessage.self) as StreamingCall<TestMessage, TestMessage>
            call.finishSending()
            var count = 0
            for try await _ in call { count += 1 }
            #expect(count == 0)
            #expect(await call.status().code == .ok)
        }
    }
}

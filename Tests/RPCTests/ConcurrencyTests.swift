import RPC
import Testing

/// Many calls at once over one connection, and more than one client.
@Suite struct ConcurrencyTests {
    @Test(arguments: [1, 2])
    func twoHundredConcurrentUnaryCalls_overOneClient_allSucceed(loopCount: Int) async throws {
        try await withServer(loopCount: loopCount) { _, client in
            let results = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let request = TestMessage(text: "call \(index)", number: Int64(index),
                                                  payload: [UInt8](repeating: UInt8(index % 256), count: index * 100))
                        let response = try await client.unary(path: EchoService.path("Echo"), request: request, as: TestMessage.self)
                        return response.message == request
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.count == 200)
            #expect(results.allSatisfy { $0 })
        }
    }

    @Test func twoClients_callConcurrently_overTheirOwnConnections() async throws {
        try await withServer(loopCount: 2) { server, first in
            let second = RPCClient(host: "127.0.0.1", port: server.port)
            defer { second.close() }
            let peers = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<100 {
                    let client = index % 2 == 0 ? first : second
                    group.addTask {
                        try await client.unary(path: EchoService.path("Inspect"), request: TestMessage(), as: TestMessage.self).message.text
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(peers.count == 2)
        }
    }

    @Test func concurrentBidirectionalStreams_keepTheirMessagesApart() async throws {
        try await withServer(loopCount: 2) { _, client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for stream in 0..<20 {
                    group.addTask {
                        let call = try await client.bidirectional(path: EchoService.path("Chat"),
                                                                  as: TestMessage.self) as StreamingCall<TestMessage, TestMessage>
                        var responses = call.makeAsyncIterator()
                        for index in 0..<20 {
                            try await call.send(TestMessage(text: "\(stream)", number: Int64(index)))
                            let response = try await responses.next()
                            #expect(response == TestMessage(text: "pong \(stream)", number: Int64(index)))
                        }
                        call.finishSending()
                        #expect(try await responses.next() == nil)
                        #expect(await call.status().code == .ok)
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

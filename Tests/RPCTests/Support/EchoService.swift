import RPC

/// A handler failure that is not an RPCError; its text must never reach the client.
struct SecretError: Error, CustomStringConvertible {
    static let secret = "password=hunter2 host=10.1.2.3"
    var description: String { "leaked: \(Self.secret)" }
}

/// `rv.test.Echo`: one method per behaviour the RPC tests exercise. Events go to `probe`.
struct EchoService: RPCService {
    static let name = "rv.test.Echo"
    var serviceName: String { Self.name }
    let probe: Probe

    init(probe: Probe = Probe()) { self.probe = probe }

    static func path(_ method: String) -> String { "/\(name)/\(method)" }

    func register(in router: inout RPCRouter) {
        let probe = probe
        // Returns the request; request metadata `x-initial*` / `x-trailing*` comes back as
        // initial / trailing metadata.
        router.unary(serviceName, "Echo") { (request: TestMessage, context) in
            Self.echoMetadata(context)
            return request
        }
        // Reports the call: text = peer, number = 1 when the request arrived compressed;
        // answers with `number` zero bytes, gzip-compressed when text is "gzip".
        router.unary(serviceName, "Inspect") { (request: TestMessage, context) in
            context.compressResponses = request.text == "gzip"
            return TestMessage(text: context.peer, number: context.lastRequestCompressed ? 1 : 0,
                               payload: [UInt8](repeating: 0, count: Int(request.number)))
        }
        // `number` messages numbered from 0, each carrying the request's payload; then ABORTED
        // when the request's text is "then fail".
        router.serverStreaming(serviceName, "Expand") { (request: TestMessage, writer: ResponseWriter<TestMessage>, context) in
            Self.echoMetadata(context)
            context.compressResponses = request.text == "gzip"
            for index in 0..<request.number {
                try await writer.write(TestMessage(text: "\(index)", number: index, payload: request.payload))
            }
            if request.text == "then fail" { throw RPCError(code: .aborted, message: "failed after the messages") }
        }
        // number = sum of the numbers, text = how many messages, payload[0] = 1 if all compressed.
        router.clientStreaming(serviceName, "Sum") { (requests: RequestStream<TestMessage>, context) in
            var sum: Int64 = 0
            var count = 0
            var allCompressed = true
            for try await request in requests {
                sum += request.number
                count += 1
                allCompressed = allCompressed && context.lastRequestCompressed
            }
            return TestMessage(text: "\(count)", number: sum, payload: count > 0 && allCompressed ? [1] : [])
        }
        // Answers each request at once: "pong <text>", same number.
        router.bidirectional(serviceName, "Chat") { (requests: RequestStream<TestMessage>, writer: ResponseWriter<TestMessage>, context) in
            Self.echoMetadata(context)
            for try await request in requests {
                try await writer.write(TestMessage(text: "pong \(request.text)", number: request.number))
            }
        }
        // Throws an RPCError: code = number, message = text, with an ErrorInfo.
        router.unary(serviceName, "Fail") { (request: TestMessage, context) -> TestMessage in
            Self.echoMetadata(context)
            throw RPCError(code: StatusCode(rawValue: Int(request.number)), message: request.text,
                           reason: "TEST_REASON", domain: "test.rendezvous",
                           details: ["attempt": "3", "note": "näive ☺"])
        }
        // Answers OK with a trailer of `number` bytes (past nghttp2's 64 KiB header block limit
        // when large).
        router.unary(serviceName, "HugeTrailer") { (request: TestMessage, context) -> TestMessage in
            context.trailingMetadata.addString(String(repeating: "t", count: Int(request.number)), forKey: "x-huge")
            return TestMessage(text: "ok")
        }
        // text = the value an interceptor stored under "account".
        router.unary(serviceName, "Whoami") { (_: TestMessage, context) in
            TestMessage(text: context[value: "account"] ?? "")
        }
        // Throws something that is not an RPCError.
        router.unary(serviceName, "Crash") { (_: TestMessage, _) -> TestMessage in
            throw SecretError()
        }
        // Sleeps `number` ms, recording "started", then "finished" or "cancelled".
        router.unary(serviceName, "Sleep") { (request: TestMessage, _) in
            probe.record("started")
            do {
                try await Task.sleep(for: .milliseconds(request.number))
            } catch {
                probe.record("cancelled")
                throw error
            }
            probe.record("finished")
            return request
        }
        // Sends "ready", then waits for a minute unless cancelled (recorded as "cancelled").
        router.bidirectional(serviceName, "Hang") { (_: RequestStream<TestMessage>, writer: ResponseWriter<TestMessage>, _) in
            try await writer.write(TestMessage(text: "ready"))
            probe.record("started")
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                probe.record("cancelled")
                throw error
            }
        }
        // A subscription: asks to end when the server drains (after `number` ms, recording
        // "subscribed"), then streams like Ticks, recording "cancelled" when it is ended.
        router.serverStreaming(serviceName, "Subscribe") { (request: TestMessage, writer: ResponseWriter<TestMessage>, context) in
            probe.record("started")
            do {
                try await writer.write(TestMessage(number: 0))
                try await Task.sleep(for: .milliseconds(request.number))
                context.endWhenServerDrains()
                probe.record("subscribed")
                try await Self.tick(writer, from: 1)
            } catch {
                probe.record("cancelled")
                throw error
            }
        }
        // Streams messages until cancelled, recording "cancelled" when a write or sleep fails.
        router.serverStreaming(serviceName, "Ticks") { (_: TestMessage, writer: ResponseWriter<TestMessage>, _) in
            probe.record("started")
            do {
                try await Self.tick(writer, from: 0)
            } catch {
                probe.record("cancelled")
                throw error
            }
        }
    }

    /// Writes messages numbered from `first`, one every 5 ms, until a write or sleep fails.
    static func tick(_ writer: ResponseWriter<TestMessage>, from first: Int64) async throws {
        var index = first
        while true {
            try await writer.write(TestMessage(number: index))
            index += 1
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    static func echoMetadata(_ context: ServerCallContext) {
        var initial = context.initialMetadata
        var trailing = context.trailingMetadata
        for element in context.requestMetadata {
            if element.key.hasPrefix("x-initial") {
                add(element, to: &initial)
            } else if element.key.hasPrefix("x-trailing") {
                add(element, to: &trailing)
            }
        }
        context.initialMetadata = initial
        context.trailingMetadata = trailing
    }

    private static func add(_ element: Metadata.Element, to metadata: inout Metadata) {
        switch element.value {
        case .string(let value): metadata.addString(value, forKey: element.key)
        case .binary(let bytes): metadata.addBinary(bytes, forKey: element.key)
        }
    }
}

package import HTTP2
import IOLoop
import Tracing
import Wire
import Synchronization

/// One RPC on the server: deframes the request, runs the handler as a task on the stream's
/// event loop, and writes the response and status, framed for gRPC or gRPC-Web (`framing`).
///
/// Inbound state is confined to the loop. The response side is a small `Mutex`-guarded state
/// machine, because the handler may call it from any executor.
package final class ServerCall: HTTP2StreamDelegate, @unchecked Sendable {
    // @unchecked Sendable: `deframer`, `textDecoder`, `singleRequest`, `requestEnded`, `owedBytes`, `task` and
    // `deadlineTimer` are touched only on `stream.loop`; `response` is behind a Mutex; the
    // rest is immutable.

    let stream: HTTP2Stream
    let route: RPCRoute
    package let context: ServerCallContext
    let options: ServerCallOptions
    /// gRPC's or gRPC-Web's response framing.
    let framing: ResponseFraming
    /// The request's compression: nil for identity.
    let requestCompressed: Bool
    /// Whether the client accepts gzip responses.
    let clientAcceptsGzip: Bool

    /// Messages for streaming handlers; nil for single-request kinds.
    let inbox: MessageInbox?

    private var deframer: GRPCDeframer
    /// Decodes a `grpc-web-text` request body before it reaches the deframer.
    private var textDecoder: WebTextDecoder?
    private var singleRequest: InboundMessage?
    private var requestEnded = false
    private var owedBytes = 0
    private var task: Task<Void, Never>?
    private var deadlineTimer: TimerID?

    private enum ResponseState: Equatable {
        case idle
        case streaming
        /// With the status sent (CANCELLED when the client went away first).
        case finished(StatusCode)

        var isFinished: Bool {
            if case .finished = self { return true }
            return false
        }
    }

    private let response = Mutex(ResponseState.idle)

    init(stream: HTTP2Stream, route: RPCRoute, context: ServerCallContext, options: ServerCallOptions,
         framing: ResponseFraming, requestCompressed: Bool, clientAcceptsGzip: Bool) {
        self.stream = stream
        self.route = route
        self.context = context
        self.options = options
        self.framing = framing
        self.textDecoder = framing.format == .webText ? WebTextDecoder() : nil
        self.requestCompressed = requestCompressed
        self.clientAcceptsGzip = clientAcceptsGzip
        self.deframer = GRPCDeframer(maxMessageSize: options.maxReceiveMessageSize)
        let relay = ServerCallRelay(loop: stream.loop)
        if route.kind.hasSingleRequest {
            self.inbox = nil
        } else {
            self.inbox = MessageInbox(onTaken: { _ in
                relay.loop.executeSoon { relay.call?.grantOwedCredit() }
            })
        }
        relay.call = self
        context.attach(relay)
    }

    /// Returns withheld flow-control credit once the handler has caught up. Loop only.
    private func grantOwedCredit() {
        guard owedBytes > 0, (inbox?.bufferedBytes ?? 0) < options.maxBufferedRequestBytes else { return }
        let owed = owedBytes
        owedBytes = 0
        stream.consume(owed)
    }

    // MARK: Start

    /// Called on the loop right after the request headers.
    func start(timeoutNanoseconds: UInt64?) {
        if let timeoutNanoseconds {
            deadlineTimer = stream.loop.scheduleTimer(afterNanoseconds: timeoutNanoseconds) { [weak self] in
                self?.deadlineExpired()
            }
        }
        if !route.kind.hasSingleRequest { startHandler() }
    }

    private func startHandler() {
        let loop = stream.loop
        task = Task(executorPreference: loop) { [self] in
            await self.runHandler()
        }
    }

    /// Runs the interceptors and the handler inside the call's server span, so their logs,
    /// statements and outgoing calls belong to the caller's trace.
    nonisolated(nonsending) private func runHandler() async {
        let tracer = options.tracer
        guard options.scopesTracer else { return await runTraced(tracer: tracer) }
        await withTracer(tracer) { await runTraced(tracer: tracer) }
    }

    nonisolated(nonsending) private func runTraced(tracer: any Tracer) async {
        let span = RPCSpan.startServer(name: route.spanName, metadata: context.requestMetadata, tracer: tracer)
        await InstrumentationContext.$current.withValue(span.context) {
            do {
                try await options.intercept(context) {
                    try await self.route.handler(self)
                }
                finish(with: nil)
            } catch {
                finish(with: ServerCall.statusFor(error))
            }
        }
        RPCSpan.end(span, code: sentStatus ?? .cancelled, kind: .server)
    }

    /// The status the call ended with; nil while it runs.
    private var sentStatus: StatusCode? {
        response.withLock { state in
            if case .finished(let code) = state { return code }
            return nil
        }
    }

    static func statusFor(_ error: any Error) -> RPCError {
        if let convertible = error as? any RPCErrorConvertible { return convertible.rpcError }
        if error is CancellationError { return RPCError(code: .cancelled, message: "cancelled") }
        return RPCError(code: .internal, message: "internal error")
    }

    // MARK: Inbound (loop)

    package func didReceiveHeaders(_ headers: [HTTP2Header], endStream: Bool) {}

    package func didReceiveData(_ bytes: UnsafeRawBufferPointer) {
        guard !isFinished else {
            stream.consume(bytes.count)
            return
        }
        owedBytes += bytes.count
        do {
            if let decoded = try textDecoder?.decode(bytes) {
                deframer.append(decoded)
            } else {
                deframer.append(bytes)
            }
            while let framed = try deframer.next() {
                let message = try inflate(framed)
                if let inbox {
                    // RequestStream records the flag when the handler takes the message.
                    inbox.append(message)
                } else if singleRequest == nil {
                    context.lastRequestCompressed = framed.compressed
                    singleRequest = message
                } else {
                    throw RPCError(code: .invalidArgument, message: "expected one request message", reason: "TOO_MANY_MESSAGES")
                }
            }
        } catch {
            failFromLoop(ServerCall.framingStatus(error))
            return
        }
        // Keep reading while the handler keeps up; stop granting window when it falls behind,
        // so only this stream's sender slows down.
        grantOwedCredit()
    }

    package func didReceiveEnd() {
        guard !requestEnded else { return }
        requestEnded = true
        guard !isFinished else { return }
        do {
            try textDecoder?.finish()
            try deframer.finish()
        } catch {
            failFromLoop(ServerCall.framingStatus(error))
            return
        }
        if let inbox {
            inbox.finish()
        } else if singleRequest == nil {
            failFromLoop(RPCError(code: .invalidArgument, message: "missing request message", reason: "NO_MESSAGE"))
        } else {
            startHandler()
        }
    }

    package func didClose(errorCode: UInt32) {
        if let deadlineTimer { stream.loop.cancelTimer(deadlineTimer) }
        deadlineTimer = nil
        let wasOpen = response.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            state = .finished(.cancelled)
            return true
        }
        if wasOpen {
            inbox?.finish(RPCError(code: .cancelled, message: "the client cancelled the call"))
            task?.cancel()
        }
        task = nil
    }

    package func serverDraining() {
        endIfServerDraining()
    }

    /// Ends the call with UNAVAILABLE when the server is draining and the handler asked to end
    /// then (`ServerCallContext.endWhenServerDrains`). Loop only.
    func endIfServerDraining() {
        guard stream.isConnectionDraining, context.endsWhenServerDrains, !isFinished else { return }
        failFromLoop(RPCError(code: .unavailable, message: "the server is shutting down; call again to resume elsewhere",
                              reason: "SERVER_DRAINING"))
    }

    private func deadlineExpired() {
        deadlineTimer = nil
        guard !isFinished else { return }
        finish(with: RPCError(code: .deadlineExceeded, message: "deadline exceeded"))
        inbox?.finish(RPCError(code: .deadlineExceeded, message: "deadline exceeded"))
        task?.cancel()
    }

    private func failFromLoop(_ status: RPCError) {
        finish(with: status)
        inbox?.finish(status)
        task?.cancel()
    }

    private func inflate(_ framed: GRPCFramedMessage) throws -> InboundMessage {
        let wireBytes = framed.payload.count + GRPCFrame.headerSize
        guard framed.compressed else {
            return InboundMessage(payload: framed.payload, compressed: false, wireBytes: wireBytes)
        }
        guard requestCompressed else {
            throw RPCError(code: .internal, message: "compressed message without grpc-encoding", reason: "PROTOCOL_ERROR")
        }
        do {
            let payload = try Gzip.decompress(framed.payload, limit: options.maxReceiveMessageSize)
            return InboundMessage(payload: payload, compressed: true, wireBytes: wireBytes)
        } catch let error as GzipError where error.code == .outputTooLarge {
            throw RPCError(code: .resourceExhausted, message: "message larger than \(options.maxReceiveMessageSize) bytes",
                           reason: "MESSAGE_TOO_LARGE")
        } catch {
            throw RPCError(code: .internal, message: "could not decompress the message", reason: "BAD_COMPRESSION")
        }
    }

    static func framingStatus(_ error: any Error) -> RPCError {
        if let rpc = error as? RPCError { return rpc }
        if let framing = error as? GRPCFramingError, case .messageTooLarge = framing.code {
            return RPCError(code: .resourceExhausted, message: "request message too large", reason: "MESSAGE_TOO_LARGE")
        }
        return RPCError(code: .internal, message: "malformed gRPC framing", reason: "PROTOCOL_ERROR")
    }

    // MARK: Handler-facing

    /// The single request of a unary or server-streaming call, decoded.
    func decodeSingleRequest<Message: ProtoMessage>() throws -> Message {
        // Safe to read off-loop: written on the loop before this task was created, never after.
        guard let request = singleRequest else {
            throw RPCError(code: .internal, message: "missing request")
        }
        return try decode(Message.self, from: request.payload)
    }

    func decode<Message: ProtoMessage>(_ type: Message.Type, from payload: [UInt8]) throws -> Message {
        do {
            return try Message(serializedBytes: payload, limits: options.decodingLimits)
        } catch {
            throw RPCError(code: .invalidArgument, message: "the request message could not be decoded", reason: "MALFORMED_MESSAGE")
        }
    }

    var isFinished: Bool { response.withLock { $0.isFinished } }

    func checkOpen() throws {
        if isFinished { throw CancellationError() }
    }

    /// Sends one response message (with the response headers first, if not yet sent).
    func sendMessage<Message: ProtoMessage>(_ message: Message, compressed: Bool?) throws {
        let frame = try makeFrame(message, compressed: compressed ?? context.compressResponses)
        let wasIdle = try response.withLock { state -> Bool in
            switch state {
            case .finished: throw CancellationError()
            case .idle:
                state = .streaming
                return true
            case .streaming: return false
            }
        }
        stream.send(headers: wasIdle ? responseHeaders() : nil, data: framing.body(frame))
    }

    /// Sends a unary-style response: headers, the one message and OK in one step.
    func sendFinal<Message: ProtoMessage>(_ message: Message) {
        let frame: [UInt8]
        do {
            frame = try makeFrame(message, compressed: context.compressResponses)
        } catch {
            finish(with: ServerCall.statusFor(error))
            return
        }
        guard let wasIdle = markFinished(code: .ok) else { return }
        let ending = framing.ending(trailers(for: nil))
        var data = framing.body(frame)
        data.append(contentsOf: ending.data)
        stream.send(headers: wasIdle ? responseHeaders() : nil, data: data, end: ending.end)
        cleanUpAfterFinish()
    }

    /// Ends the call with OK (nil) or `status`; does nothing when already finished.
    func finish(with status: RPCError?) {
        guard let wasIdle = markFinished(code: status?.code ?? .ok) else { return }
        let ending = framing.ending(trailers(for: status))
        stream.send(headers: wasIdle ? responseHeaders() : nil, data: ending.data, end: ending.end)
        cleanUpAfterFinish()
    }

    /// Moves the response to finished; nil when it already was, else whether no headers went out.
    private func markFinished(code: StatusCode) -> Bool? {
        response.withLock { state -> Bool? in
            switch state {
            case .finished: return nil
            case .idle:
                state = .finished(code)
                return true
            case .streaming:
                state = .finished(code)
                return false
            }
        }
    }

    private func cleanUpAfterFinish() {
        stream.loop.executeSoon { [self] in
            if let deadlineTimer { stream.loop.cancelTimer(deadlineTimer) }
            deadlineTimer = nil
        }
    }

    /// Frames a response message, gzip-compressed when asked and the client accepts it.
    private func makeFrame<Message: ProtoMessage>(_ message: Message, compressed: Bool) throws -> [UInt8] {
        let tooLarge = RPCError(code: .resourceExhausted, message: "response message too large", reason: "MESSAGE_TOO_LARGE")
        guard compressed && clientAcceptsGzip else {
            let frame = GRPCFrame.encode(message: message)
            guard frame.count - GRPCFrame.headerSize <= options.maxSendMessageSize else { throw tooLarge }
            return frame
        }
        let payload = message.serializedBytes()
        guard payload.count <= options.maxSendMessageSize else { throw tooLarge }
        let body: [UInt8]
        do {
            body = try Gzip.compress(payload)
        } catch {
            throw RPCError(code: .internal, message: "could not compress the response")
        }
        return GRPCFrame.encode(body, compressed: true)
    }

    private func responseHeaders() -> [HTTP2Header] {
        var headers = framing.head(reserving: 1 + context.initialMetadata.count)
        if clientAcceptsGzip { headers.append(HTTP2Header("grpc-encoding", "gzip")) }
        context.initialMetadata.append(to: &headers)
        return headers
    }

    private func trailers(for status: RPCError?) -> [HTTP2Header] {
        var trailers: [HTTP2Header] = []
        trailers.reserveCapacity(3 + context.trailingMetadata.count)
        if let status {
            status.appendStatusHeaders(to: &trailers)
        } else {
            trailers.append(HTTP2Header("grpc-status", "0"))
        }
        context.trailingMetadata.append(to: &trailers)
        return trailers
    }
}

/// Lets the inbox and the call's context reach the call on its loop without a strong reference.
final class ServerCallRelay: @unchecked Sendable {
    // @unchecked Sendable: `call` is set once during the call's init, before the relay is shared,
    // and read only on the call's loop (credit grants, the drain check).
    weak var call: ServerCall?
    let loop: EventLoop

    init(loop: EventLoop) { self.loop = loop }
}

/// Per-server settings every call consults.
struct ServerCallOptions: Sendable {
    var maxReceiveMessageSize: Int
    var maxSendMessageSize: Int
    var maxBufferedRequestBytes: Int
    var decodingLimits: DecodingLimits
    var interceptors: [any ServerInterceptor]
    /// The calls' tracer: the server's own, or the process's (`InstrumentationSystem.tracer`)
    /// as it was when the server was made, looked up once rather than per call (a dynamic cast).
    var tracer: any Tracer
    /// Whether `tracer` is the server's own, which the handlers' own spans (their outgoing
    /// calls, their statements) must then use too.
    var scopesTracer: Bool

    nonisolated(nonsending) func intercept(_ context: ServerCallContext,
                                           _ body: nonisolated(nonsending) () async throws -> Void) async throws {
        try await Self.run(interceptors[...], context, body)
    }

    nonisolated(nonsending) private static func run(_ chain: ArraySlice<any ServerInterceptor>, _ context: ServerCallContext,
                                                    _ body: nonisolated(nonsending) () async throws -> Void) async throws {
        guard let first = chain.first else { return try await body() }
        try await first.intercept(context) {
            try await run(chain.dropFirst(), context, body)
        }
    }
}

package import HTTP2
import IOLoop
import Tracing
package import Wire
import Synchronization

/// One RPC on the client: sends request messages, deframes responses into an inbox, and turns
/// the trailers (or a reset, or a lost connection) into the call's final status.
package final class ClientCall: HTTP2StreamDelegate, ClientStream, @unchecked Sendable {
    // @unchecked Sendable: `deframer`, `headersSeen`, `responseCompressed`, `owedBytes` and
    // `deadlineTimer` are touched only on the stream's loop; `shared` is behind a Mutex.

    private(set) var stream: HTTP2Stream!
    private let connection: HTTP2Connection
    let inbox: MessageInbox
    package let maxReceiveMessageSize: Int
    private var deframer: GRPCDeframer
    private var headersSeen = false
    private var responseCompressed = false
    private var owedBytes = 0
    private var deadlineTimer: TimerID?
    private let requestHead: [HTTP2Header]
    private let compressRequests: Bool
    /// The call's client span, ended with its final status.
    private let span: (any Tracing.Span)?

    private struct Shared {
        var initialMetadata = Metadata()
        var status: RPCError?
        var trailingMetadata = Metadata()
        var sentHead = false
        var statusWaiters: [CheckedContinuation<RPCError, Never>] = []
    }

    private let shared = Mutex(Shared())
    private static let okStatus = RPCError(code: .ok, message: "")

    init(connection: HTTP2Connection, head: [HTTP2Header], compressRequests: Bool, maxReceiveMessageSize: Int,
         timeoutNanoseconds: UInt64?, span: (any Tracing.Span)? = nil) {
        self.connection = connection
        self.span = span
        self.requestHead = head
        self.compressRequests = compressRequests
        self.maxReceiveMessageSize = maxReceiveMessageSize
        self.deframer = GRPCDeframer(maxMessageSize: maxReceiveMessageSize)
        let relay = ClientCreditRelay()
        self.inbox = MessageInbox(onTaken: { _ in
            relay.loop?.executeSoon { relay.call?.grantOwedCredit() }
        })
        self.stream = connection.makeStream(delegate: self)
        relay.loop = connection.loop
        relay.call = self
        if let timeoutNanoseconds {
            connection.loop.execute { [self] in
                guard shared.withLock({ $0.status == nil }) else { return }
                deadlineTimer = stream.loop.scheduleTimer(afterNanoseconds: timeoutNanoseconds) { [weak self] in
                    self?.fail(RPCError(code: .deadlineExceeded, message: "deadline exceeded"), reset: true)
                }
            }
        }
    }

    // MARK: Sending (any thread)

    /// Sends one request message, with the request head first if not sent yet.
    package func send<Message: ProtoMessage>(_ message: Message, end: Bool = false) throws {
        try send(payload: message.serializedBytes(), end: end)
    }

    /// Sends one serialized request message; when not the last, waits until the stream can
    /// take more (HTTP/2 flow control).
    package func send(_ message: [UInt8], end: Bool) async throws {
        try send(payload: message, end: end)
        if !end { await stream.waitUntilWritable() }
    }

    private func send(payload: [UInt8], end: Bool) throws {
        let frame = try makeFrame(payload)
        let head = takeHead()
        stream.send(headers: head, data: frame, end: end ? .endStream : nil)
    }

    /// Half-closes the request side.
    package func finishSending() {
        stream.send(headers: takeHead(), end: .endStream)
    }

    /// Cancels the call: the server sees RST_STREAM(CANCEL), the caller CANCELLED.
    package func cancel() {
        fail(RPCError(code: .cancelled, message: "cancelled by the client"), reset: true)
    }

    private func takeHead() -> [HTTP2Header]? {
        shared.withLock { state in
            if state.sentHead { return nil }
            state.sentHead = true
            return requestHead
        }
    }

    private func makeFrame(_ payload: [UInt8]) throws -> [UInt8] {
        guard compressRequests else { return GRPCFrame.encode(payload, compressed: false) }
        return GRPCFrame.encode(try Gzip.compress(payload), compressed: true)
    }

    // MARK: Results (any thread)

    /// The response headers' metadata (empty until they arrive).
    package var initialMetadata: Metadata { shared.withLock { $0.initialMetadata } }

    /// The next response message's bytes; nil after the last.
    package func next() async throws -> [UInt8]? {
        try await inbox.next()?.payload
    }

    /// The next response message's bytes if it has arrived.
    package func nextIfReceived() -> [UInt8]? {
        inbox.nextIfReceived()?.payload
    }

    /// Waits for the call's final status; `.ok` on success.
    package func status() async -> RPCError {
        if let status = shared.withLock({ $0.status }) { return status }
        return await withCheckedContinuation { continuation in
            let ready = shared.withLock { state -> RPCError? in
                if let status = state.status { return status }
                state.statusWaiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    // MARK: HTTP2StreamDelegate (loop)

    package func didReceiveHeaders(_ headers: [HTTP2Header], endStream: Bool) {
        if !headersSeen {
            headersSeen = true
            let httpStatus = headers[first: ":status"] ?? ""
            guard httpStatus == "200" else {
                fail(RPCError(code: StatusCode(httpStatus: Int(httpStatus) ?? 0), message: "HTTP status \(httpStatus)"), reset: !endStream)
                return
            }
            guard let contentType = headers[first: "content-type"], GRPCContentType.matches(contentType) else {
                fail(RPCError(code: .unknown, message: "response is not gRPC"), reset: !endStream)
                return
            }
            responseCompressed = headers[first: "grpc-encoding"] == "gzip"
            if !endStream {
                let metadata = Metadata(headers: headers)
                shared.withLock { $0.initialMetadata = metadata }
                return
            }
        }
        complete(withTrailers: headers)
    }

    package func didReceiveData(_ bytes: UnsafeRawBufferPointer) {
        deframer.append(bytes)
        owedBytes += bytes.count
        do {
            while let framed = try deframer.next() {
                var payload = framed.payload
                if framed.compressed {
                    guard responseCompressed else {
                        throw RPCError(code: .internal, message: "compressed message without grpc-encoding")
                    }
                    payload = try Gzip.decompress(framed.payload, limit: maxReceiveMessageSize)
                }
                inbox.append(InboundMessage(payload: payload, compressed: framed.compressed,
                                            wireBytes: framed.payload.count + GRPCFrame.headerSize))
            }
        } catch let error as RPCError {
            fail(error, reset: true)
            return
        } catch let error as GzipError where error.code == .outputTooLarge {
            fail(RPCError(code: .resourceExhausted, message: "response message larger than \(maxReceiveMessageSize) bytes"), reset: true)
            return
        } catch let error as GRPCFramingError {
            if case .messageTooLarge = error.code {
                fail(RPCError(code: .resourceExhausted, message: "response message larger than \(maxReceiveMessageSize) bytes"), reset: true)
            } else {
                fail(RPCError(code: .internal, message: "malformed response framing"), reset: true)
            }
            return
        } catch {
            fail(RPCError(code: .internal, message: "could not decompress the response"), reset: true)
            return
        }
        grantOwedCredit()
    }

    fileprivate func grantOwedCredit() {
        guard owedBytes > 0, inbox.bufferedBytes < 1 << 20 else { return }
        let owed = owedBytes
        owedBytes = 0
        stream.consume(owed)
    }

    package func didReceiveEnd() {
        if shared.withLock({ $0.status == nil }) {
            fail(RPCError(code: .internal, message: "the server ended the stream without a status"), reset: false)
        }
    }

    /// Maps how the stream ended without a status (gRPC over HTTP/2 spec, "Errors"). A stream
    /// the connection took down with it is UNAVAILABLE, whatever code the HTTP/2 layer reports.
    package func didClose(errorCode: UInt32) {
        let status: RPCError
        switch errorCode {
        case _ where !connection.acceptsNewStreams:
            status = RPCError(code: .unavailable, message: "the connection was lost")
        case HTTP2ErrorCode.noError: status = RPCError(code: .internal, message: "stream closed without a status")
        case HTTP2ErrorCode.refusedStream: status = RPCError(code: .unavailable, message: "the server refused the stream")
        case HTTP2ErrorCode.cancel: status = RPCError(code: .cancelled, message: "the stream was cancelled")
        case HTTP2ErrorCode.enhanceYourCalm: status = RPCError(code: .resourceExhausted, message: "the server asked to slow down")
        default: status = RPCError(code: .internal, message: "the stream failed (HTTP/2 error \(errorCode))")
        }
        fail(status, reset: false)
    }

    // MARK: Completion

    private func complete(withTrailers headers: [HTTP2Header]) {
        var status = RPCError(trailerFields: headers.map { (name: $0.name, value: $0.value) })
        do {
            try deframer.finish()
        } catch {
            status = RPCError(code: .internal, message: "the response ended inside a message")
        }
        settle(status, keepingReceived: true)
    }

    /// Ends the call with `status` unless it already ended; messages not yet read are dropped.
    private func fail(_ status: RPCError, reset: Bool) {
        guard settle(status, keepingReceived: false) else { return }
        if reset { stream.reset(errorCode: HTTP2ErrorCode.cancel) }
    }

    /// Records the final status; with `keepingReceived` (the server's own status) the messages
    /// it sent before it are still read first.
    @discardableResult
    private func settle(_ status: RPCError, keepingReceived: Bool) -> Bool {
        let waiters = shared.withLock { state -> [CheckedContinuation<RPCError, Never>]? in
            guard state.status == nil else { return nil }
            state.status = status
            state.trailingMetadata = status.trailers
            let waiters = state.statusWaiters
            state.statusWaiters.removeAll()
            return waiters
        }
        guard let waiters else { return false }
        if let span { RPCSpan.end(span, code: status.code, kind: .client) }
        stream.loop.executeSoon { [self] in
            if let deadlineTimer { stream.loop.cancelTimer(deadlineTimer) }
            deadlineTimer = nil
        }
        inbox.finish(status.code == .ok ? nil : status, keepingReceived: keepingReceived)
        for waiter in waiters { waiter.resume(returning: status) }
        return true
    }
}

private final class ClientCreditRelay: @unchecked Sendable {
    // @unchecked Sendable: both fields are set once in ClientCall.init before the relay is
    // shared, then only read.
    var loop: EventLoop?
    weak var call: ClientCall?
}

package import HTTP2
package import IOLoop
import Tracing
import Wire
import Synchronization

/// A gRPC client for one server address: one multiplexed HTTP/2 connection, reconnected on
/// demand after it closes or the server sends GOAWAY.
///
/// Each call runs in a client span of the current task's tracer (`InstrumentationSystem.tracer`),
/// a child of the task's span, and sends that span's `traceparent`.
package final class RPCClient: Sendable {
    package let host: String
    package let port: Int
    private let security: TransportSecurity
    private let configuration: HTTP2Configuration
    private let group: EventLoopGroup
    package let maxReceiveMessageSize: Int
    /// Whether calls get client spans and send `traceparent` (not the trace exporter's own).
    private let tracesCalls: Bool

    private enum ConnectionState {
        case idle
        case connecting(Task<HTTP2Connection, any Error>)
        case ready(HTTP2Connection)
        case closed
    }

    private let state = Mutex(ConnectionState.idle)

    package init(host: String, port: Int, security: TransportSecurity = .plaintext,
                 group: EventLoopGroup = .shared, configuration: HTTP2Configuration = HTTP2Configuration(),
                 maxReceiveMessageSize: Int = 4 << 20, tracesCalls: Bool = true) {
        self.host = host
        self.port = port
        self.security = security
        self.group = group
        self.configuration = configuration
        self.maxReceiveMessageSize = maxReceiveMessageSize
        self.tracesCalls = tracesCalls
    }

    /// `http` or `https`: the `:scheme` of this client's requests.
    package var scheme: String { security.scheme }

    /// A ready connection, reusing the current one while it accepts streams.
    func connection() async throws -> HTTP2Connection {
        let action = state.withLock { state -> Result<Task<HTTP2Connection, any Error>, RPCError> in
            switch state {
            case .ready(let connection) where connection.acceptsNewStreams:
                return .success(Task { connection })
            case .connecting(let task):
                return .success(task)
            case .closed:
                return .failure(RPCError(code: .unavailable, message: "the client is closed"))
            case .idle, .ready:
                let task = Task { [host, port, group, security, configuration] in
                    try await HTTP2Client.connect(host: host, port: port, loop: group.next(),
                                                  security: security, configuration: configuration)
                }
                state = .connecting(task)
                return .success(task)
            }
        }
        let task = try action.get()
        do {
            let connection = try await task.value
            state.withLock { state in
                if case .connecting = state { state = .ready(connection) }
            }
            return connection
        } catch {
            state.withLock { state in
                if case .connecting = state { state = .idle }
            }
            throw RPCError(code: .unavailable, message: "could not connect to \(host):\(port): \(error)")
        }
    }

    /// `connection()` within a call's time limit (`timeout` nanoseconds): when the connect takes
    /// longer (a peer that drops connection attempts keeps one pending for minutes), the call
    /// fails DEADLINE_EXCEEDED at its deadline, and the connect goes on for calls with more time.
    func connection(within timeout: UInt64?) async throws -> HTTP2Connection {
        let ready = state.withLock { state -> HTTP2Connection? in
            if case .ready(let connection) = state, connection.acceptsNewStreams { return connection }
            return nil
        }
        if let ready { return ready }
        guard let timeout else { return try await connection() }
        let waiter = FirstAnswer()
        return try await withCheckedThrowingContinuation { continuation in
            waiter.set(continuation)
            let timer = Task { [host, port] in
                try await Task.sleep(nanoseconds: timeout)
                waiter.resume(with: .failure(RPCError(code: .deadlineExceeded,
                                                      message: "deadline exceeded while connecting to \(host):\(port)")))
            }
            Task {
                let result: Result<HTTP2Connection, any Error>
                do { result = .success(try await self.connection()) } catch { result = .failure(error) }
                timer.cancel()
                waiter.resume(with: result)
            }
        }
    }

    /// A continuation resumed by whichever answer comes first; later ones are dropped.
    private final class FirstAnswer: Sendable {
        private let continuation = Mutex<CheckedContinuation<HTTP2Connection, any Error>?>(nil)

        func set(_ waiting: CheckedContinuation<HTTP2Connection, any Error>) { continuation.withLock { $0 = waiting } }

        func resume(with result: Result<HTTP2Connection, any Error>) {
            continuation.withLock { $0.take() }?.resume(with: result)
        }
    }

    /// Closes the connection; later calls fail with UNAVAILABLE.
    package func close() {
        let current = state.withLock { state -> HTTP2Connection? in
            defer { state = .closed }
            if case .ready(let connection) = state { return connection }
            return nil
        }
        current?.shutdownSoon()
    }

    /// Opens a call on `path` and returns it before any message is sent.
    package func makeCall(path: String, options: CallOptions) async throws -> ClientCall {
        var metadata = options.metadata
        var span: (any Tracing.Span)?
        if tracesCalls {
            (span, metadata) = RPCSpan.startClient(path: path, host: host, port: port, metadata: metadata)
        }
        let limit = options.timeout.map { GRPCTimeout.nanoseconds($0) }
        let started = MonotonicClock.nanoseconds()
        let connection: HTTP2Connection
        do {
            connection = try await self.connection(within: limit)
        } catch {
            if let span { RPCSpan.end(span, code: ServerCall.statusFor(error).code, kind: .client) }
            throw error
        }
        // What is left of the time limit once connected: the deadline counts from the call's start.
        let timeout = limit.map { limit in max(1, limit - min(MonotonicClock.nanoseconds() - started, limit)) }
        var head = [
            HTTP2Header(":method", "POST"),
            HTTP2Header(":scheme", security.scheme),
            HTTP2Header(":path", path),
            HTTP2Header(":authority", "\(host):\(port)"),
            HTTP2Header("content-type", "application/grpc"),
            HTTP2Header("te", "trailers"),
            HTTP2Header("grpc-accept-encoding", "gzip"),
            HTTP2Header("user-agent", "rendezvous-swift/1.0"),
        ]
        if options.compressRequests { head.append(HTTP2Header("grpc-encoding", "gzip")) }
        if let timeout { head.append(HTTP2Header("grpc-timeout", GRPCTimeout.encode(nanoseconds: timeout), indexed: false)) }
        metadata.append(to: &head)
        return ClientCall(connection: connection, head: head, compressRequests: options.compressRequests,
                          maxReceiveMessageSize: maxReceiveMessageSize, timeoutNanoseconds: timeout, span: span)
    }
}

import CryptoCore
import HTTP2
import IOLoop
import Synchronization
import Tracing

/// One APNs gateway (production or sandbox) over HTTP/2 and TLS: one multiplexed connection,
/// reconnected on demand after it closes (APNs closes idle connections and sends GOAWAY).
final class APNsClient: Sendable {
    let host: String
    let port: Int
    private let security: TransportSecurity
    private let group: EventLoopGroup

    private enum ConnectionState {
        case idle
        case connecting(Task<HTTP2Connection, any Error>)
        case ready(HTTP2Connection)
    }

    private let state = Mutex(ConnectionState.idle)

    init(host: String, port: Int, tls: TLSContext, group: EventLoopGroup = .shared) {
        self.host = host
        self.port = port
        self.security = .tls(tls)
        self.group = group
    }

    /// Sends `notification` to `deviceToken` with provider token `bearer`. Throws when the
    /// connection fails or the request times out (`timeout`); an answer, whatever its status,
    /// returns.
    ///
    /// Inside a span, the request is a client span by the OpenTelemetry HTTP conventions, named by
    /// its path's template: never the device token, the provider token or the payload.
    func send(_ notification: APNsNotification, to deviceToken: String, bearer: String,
              timeout: Duration = .seconds(10)) async throws -> APNsResponse {
        guard InstrumentationContext.current != nil else {
            return try await exchange(notification, to: deviceToken, bearer: bearer, timeout: timeout)
        }
        let span = InstrumentationSystem.tracer.startSpan("POST /3/device/{device_token}", ofKind: .client)
        defer { span.end() }
        if span.isRecording {
            span.updateAttributes { attributes in
                attributes["http.request.method"] = "POST"
                attributes["url.template"] = "/3/device/{device_token}"
                attributes["server.address"] = host
                attributes["server.port"] = port
            }
        }
        do {
            let response = try await exchange(notification, to: deviceToken, bearer: bearer, timeout: timeout)
            if span.isRecording {
                span.attributes["http.response.status_code"] = response.status
                if response.status >= 400 {
                    span.attributes["error.type"] = String(response.status)
                    span.setStatus(SpanStatus(code: .error))
                }
            }
            return response
        } catch {
            if span.isRecording {
                span.attributes["error.type"] = String(reflecting: type(of: error))
                span.setStatus(SpanStatus(code: .error))
            }
            throw error
        }
    }

    private func exchange(_ notification: APNsNotification, to deviceToken: String, bearer: String,
                          timeout: Duration) async throws -> APNsResponse {
        let connection = try await ready()
        var head = [
            HTTP2Header(":method", "POST"),
            HTTP2Header(":scheme", "https"),
            HTTP2Header(":path", "/3/device/\(deviceToken)"),
            HTTP2Header(":authority", host),
            HTTP2Header("authorization", "bearer \(bearer)"),
            HTTP2Header("apns-topic", notification.topic),
            HTTP2Header("apns-push-type", notification.pushType),
            HTTP2Header("apns-priority", String(notification.priority)),
            HTTP2Header("apns-expiration", String(notification.expiration)),
            HTTP2Header("content-type", "application/json"),
        ]
        if let collapseID = notification.collapseID { head.append(HTTP2Header("apns-collapse-id", collapseID)) }
        let request = head
        let response: HTTP2Response
        do {
            response = try await withThrowingTaskGroup(of: HTTP2Response?.self) { group in
                group.addTask { try await connection.request(request, body: notification.payload) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw HTTP2RequestError(reason: "no answer within \(timeout)")
                }
                return response
            }
        } catch {
            // A timeout resets only its stream (the connection's keepalive PING finds a dead
            // peer); a connection that is going away is forgotten at once.
            if !connection.acceptsNewStreams { drop(connection) }
            throw error
        }
        var result = APNsResponse(status: response.status, apnsID: response.headers[first: "apns-id"])
        if !response.body.isEmpty, let body = try? JSONValue.parseObject(response.body) {
            result.reason = body["reason"]?.stringValue
            result.timestamp = body["timestamp"]?.int64Value
        }
        return result
    }

    /// Closes the connection.
    func close() {
        let current = state.withLock { state -> ConnectionState in
            defer { state = .idle }
            return state
        }
        if case .ready(let connection) = current { connection.shutdownSoon() }
    }

    private func ready() async throws -> HTTP2Connection {
        let task = state.withLock { state -> Task<HTTP2Connection, any Error> in
            switch state {
            case .ready(let connection) where connection.acceptsNewStreams:
                return Task { connection }
            case .connecting(let task):
                return task
            case .idle, .ready:
                let task = Task { [host, port, group, security] in
                    try await HTTP2Client.connect(host: host, port: port, loop: group.next(), security: security)
                }
                state = .connecting(task)
                return task
            }
        }
        do {
            let connection = try await task.value
            state.withLock { state in
                if case .connecting(let current) = state, current == task { state = .ready(connection) }
            }
            return connection
        } catch {
            state.withLock { state in
                if case .connecting(let current) = state, current == task { state = .idle }
            }
            throw error
        }
    }

    /// Forgets `broken` (unless a newer connection replaced it already) and closes it, so the
    /// next send connects anew.
    private func drop(_ broken: HTTP2Connection) {
        state.withLock { state in
            if case .ready(let current) = state, current === broken { state = .idle }
        }
        broken.closeSoon()
    }
}

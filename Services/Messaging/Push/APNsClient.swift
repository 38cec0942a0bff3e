import CryptoCore
import HTTP2
import IOLoop
import Synchronization

/// One APNs gateway (production or sandbox) over HTTP/2 and TLS: one multiplexed connection,
/// reconnected on demand after it closes (APNs closes idle connections and sends GOAWAY).
final class APNsClient: Sendable {
    let host: String
    let port: Int
    private let security: TransportSecurity
    private let group: EventLoopGroup
    private let connection = Mutex<Task<HTTP2Connection, any Error>?>(nil)

    init(host: String, port: Int, tls: TLSContext, group: EventLoopGroup = .shared) {
        self.host = host
        self.port = port
        self.security = .tls(tls)
        self.group = group
    }

    /// Sends `notification` to `deviceToken` with provider token `bearer`. Throws when the
    /// connection fails or the request times out (`timeout`); an answer, whatever its status,
    /// returns.
    func send(_ notification: APNsNotification, to deviceToken: String, bearer: String,
              timeout: Duration = .seconds(10)) async throws -> APNsResponse {
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
            drop(connection)
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
        let task = connection.withLock { state in
            defer { state = nil }
            return state
        }
        Task { (try? await task?.value)?.shutdownSoon() }
    }

    private func ready() async throws -> HTTP2Connection {
        let task = connection.withLock { state in
            if let state { return state }
            let task = Task { [host, port, group, security] in
                try await HTTP2Client.connect(host: host, port: port, loop: group.next(), security: security)
            }
            state = task
            return task
        }
        do {
            let current = try await task.value
            guard current.acceptsNewStreams else {
                drop(current)
                return try await ready()
            }
            return current
        } catch {
            connection.withLock { state in
                if state == task { state = nil }
            }
            throw error
        }
    }

    /// Forgets `broken` so the next send connects anew.
    private func drop(_ broken: HTTP2Connection) {
        let stale = connection.withLock { state -> Task<HTTP2Connection, any Error>? in
            guard let task = state else { return nil }
            state = nil
            return task
        }
        _ = stale
        broken.closeSoon()
    }
}

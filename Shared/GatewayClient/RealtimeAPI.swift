public import ContractTypes
import RPCCore

extension GatewayClient {
    /// The signed-in account's live events (`rendezvous.messaging.v1.Realtime`).
    public var realtime: RealtimeAPI { RealtimeAPI(runner: runner) }
}

/// The realtime stream as an app holds it: one subscription that outlives broken connections.
public struct RealtimeAPI: Sendable {
    let runner: CallRunner

    /// New messages, read receipts, matches and closed conversations after `cursor` (0: from
    /// now), as long as the caller keeps iterating. Each stream the server opens replays what was
    /// missed, then sends Ready (the app is caught up), then live events. When a stream breaks — the connection drops, the server restarts or cuts a slow
    /// reader off (RESOURCE_EXHAUSTED `SUBSCRIBER_TOO_SLOW`) — it is opened again after the last
    /// cursor received, after a backoff, so nothing is lost or repeated; an access token refused
    /// on the way is refreshed once. Iteration ends with an error only for what a retry cannot
    /// fix — a signed-out session, a bad cursor, FAILED_PRECONDITION `CURSOR_EXPIRED` (the events
    /// after it were pruned: reload the conversations and start again from 0) — and ends quietly
    /// when the task is cancelled.
    /// Save the last event's `cursor` to pass here after a relaunch.
    public func events(after cursor: Int64 = 0) -> RealtimeEvents {
        RealtimeEvents(runner: runner, start: cursor)
    }
}

/// The events of `RealtimeAPI.events(after:)`. Over HTTP/2 they are read from the network only as
/// fast as they are iterated (flow control holds the rest back on the server, which cuts off a
/// reader that falls too far behind; the iterator then resumes); over gRPC-Web, URLSession reads
/// on and the events wait in memory until iterated.
public struct RealtimeEvents: AsyncSequence, Sendable {
    public typealias Element = Realtime.RealtimeEvent

    let runner: CallRunner
    let start: Int64

    public func makeAsyncIterator() -> Iterator { Iterator(runner: runner, cursor: start) }

    public struct Iterator: AsyncIteratorProtocol {
        let runner: CallRunner
        /// The cursor a new stream resumes after: the last event's or Ready's.
        public private(set) var cursor: Int64
        private var current: OpenStream?
        private var inner: StreamingCall<Realtime.SubscribeRequest, Realtime.RealtimeEvent>.AsyncIterator?
        /// The token the open stream was opened with, and whether it was just refreshed.
        private var token = ""
        private var refreshed = false
        /// Broken streams in a row since the last event.
        private var failures = 0

        init(runner: CallRunner, cursor: Int64) {
            self.runner = runner
            self.cursor = cursor
        }

        public mutating func next() async throws -> Realtime.RealtimeEvent? {
            while !Task.isCancelled {
                let failure: RPCError
                do {
                    if inner == nil { try await open() }
                    if let event = try await inner?.next() {
                        failures = 0
                        refreshed = false
                        if case .ready(let ready)? = event.event {
                            cursor = Swift.max(cursor, ready.cursor)
                            return event
                        }
                        // A stream never repeats a cursor; one at or below ours was already delivered.
                        guard event.cursor > cursor else { continue }
                        cursor = event.cursor
                        return event
                    }
                    failure = await current?.call.status() ?? RPCError(code: .unavailable, message: "the stream ended")
                } catch {
                    failure = RPCError.gateway(error)
                }
                close()
                if Task.isCancelled { return nil }
                try await recover(from: failure)
            }
            close()
            return nil
        }

        private mutating func open() async throws {
            token = try await runner.sessions.accessToken()
            let stub = RealtimeClient(client: runner.transport)
            let call = try await stub.subscribe(.init(afterCursor: cursor), options: .bearer(token))
            current = OpenStream(call: call)
            inner = call.makeAsyncIterator()
        }

        private mutating func close() {
            current = nil
            inner = nil
        }

        /// Whether and when to open the stream again after it ended with `status`; throws what
        /// a retry cannot fix.
        private mutating func recover(from status: RPCError) async throws {
            switch status.code {
            case .unauthenticated:
                guard !refreshed else { throw status }
                refreshed = true
                _ = try await runner.sessions.refreshed(after: token)
            case .ok, .unavailable, .resourceExhausted, .deadlineExceeded, .cancelled, .unknown, .internal, .aborted:
                failures += 1
                let policy = runner.configuration.retryPolicy
                let wait = failures == 1 && status.code != .unavailable ? .zero : policy.backoff(afterAttempt: failures)
                if wait > .zero {
                    do { try await Task.sleep(for: wait) } catch { return }
                }
            default:
                throw status
            }
        }
    }
}

/// The stream an iterator has open, cancelled when the iterator lets go of it: closed after a
/// break, or dropped with the iterator when the app stops iterating (a `break` out of the loop).
private final class OpenStream: Sendable {
    let call: StreamingCall<Realtime.SubscribeRequest, Realtime.RealtimeEvent>

    init(call: StreamingCall<Realtime.SubscribeRequest, Realtime.RealtimeEvent>) { self.call = call }

    deinit { call.cancel() }
}

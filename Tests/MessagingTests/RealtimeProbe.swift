import Contracts
import RPC
import Synchronization

/// One open realtime stream in a test: everything it received, kept in order, and how it ended.
final class RealtimeProbe: Sendable {
    private struct State {
        var events: [Realtime.RealtimeEvent] = []
        var end: RPCError?
    }

    private let state = Mutex(State())
    private let call: StreamingCall<Realtime.SubscribeRequest, Realtime.RealtimeEvent>
    private let reader = Mutex<Task<Void, Never>?>(nil)

    private init(call: StreamingCall<Realtime.SubscribeRequest, Realtime.RealtimeEvent>) {
        self.call = call
    }

    /// Subscribes as `token` after `cursor` and waits for Ready.
    static func open(_ client: RealtimeClient, token: String, after cursor: Int64 = 0) async throws -> RealtimeProbe {
        let call = try await client.subscribe(.init(afterCursor: cursor), options: .bearer(token))
        let probe = RealtimeProbe(call: call)
        probe.reader.withLock {
            $0 = Task {
                do {
                    for try await event in call { probe.state.withLock { $0.events.append(event) } }
                    let status = await call.status()
                    probe.state.withLock { $0.end = status }
                } catch {
                    probe.state.withLock { $0.end = error as? RPCError ?? RPCError(code: .unknown, message: "\(error)") }
                }
            }
        }
        _ = try await probe.first { if case .ready? = $0.event { true } else { false } }
        return probe
    }

    var events: [Realtime.RealtimeEvent] { state.withLock { $0.events } }

    /// Events other than Ready.
    var deliveries: [Realtime.RealtimeEvent] {
        events.filter { if case .ready? = $0.event { false } else { true } }
    }

    /// The cursor to resume after: the last event's, or Ready's.
    var lastCursor: Int64 {
        events.reduce(0) { last, event in
            if case .ready(let ready)? = event.event { return max(last, ready.cursor) }
            return max(last, event.cursor)
        }
    }

    /// The first event received so far or within `timeout` that satisfies `predicate`.
    @discardableResult
    func first(timeout: Duration = .seconds(15),
               where predicate: @Sendable (Realtime.RealtimeEvent) -> Bool) async throws -> Realtime.RealtimeEvent {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (found, end) = state.withLock { ($0.events.first(where: predicate), $0.end) }
            if let found { return found }
            if let end { throw end }
            guard ContinuousClock.now < deadline else { throw RPCError(code: .deadlineExceeded, message: "no such event") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// How the stream ended, waiting up to `timeout`.
    func end(timeout: Duration = .seconds(15)) async throws -> RPCError {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let end = state.withLock({ $0.end }) { return end }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw RPCError(code: .deadlineExceeded, message: "the stream did not end")
    }

    /// Drops the stream, as an app losing its connection does.
    func cancel() {
        call.cancel()
        reader.withLock { $0?.cancel() }
    }
}

extension Realtime.RealtimeEvent {
    /// The message this event delivers, if it is one.
    var deliveredMessage: Messaging.Message? {
        if case .message(let received)? = event { return received.message }
        return nil
    }
}

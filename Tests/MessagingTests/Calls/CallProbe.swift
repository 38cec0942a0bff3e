import Contracts
import RPC
import Synchronization

/// One side's Signal stream (or Attach stream) in a test: everything it received, in order, and
/// how it ended.
final class CallProbe: Sendable {
    private struct State {
        var responses: [Calls.SignalResponse] = []
        var end: RPCError?
    }

    private let state = Mutex(State())
    /// Signal's stream, to send on; nil for an Attach stream (its messages go by Send).
    private let call: StreamingCall<Calls.SignalRequest, Calls.SignalResponse>?
    private let cancelCall: @Sendable () -> Void
    private let reader = Mutex<Task<Void, Never>?>(nil)

    private init(call: StreamingCall<Calls.SignalRequest, Calls.SignalResponse>?, cancel: @escaping @Sendable () -> Void) {
        self.call = call
        self.cancelCall = cancel
    }

    /// Rings the other member of `conversation` as `token`; waits for the first Call (throws
    /// the stream's status when it is refused instead).
    static func ring(_ client: CallsClient, token: String, conversation: String) async throws -> CallProbe {
        try await open(client, token: token, first: .ring(Calls.CallRing(conversationID: conversation)))
    }

    /// Joins call `id` as `token`; waits for the first Call.
    static func join(_ client: CallsClient, token: String, call id: String) async throws -> CallProbe {
        try await open(client, token: token, first: .join(Calls.CallJoin(callID: id)))
    }

    /// Attaches as `token` with `role` (Attach: ring or join); waits for the first Call.
    static func attach(_ client: CallsClient, token: String, _ role: Calls.AttachRequest.Role?) async throws -> CallProbe {
        var request = Calls.AttachRequest()
        request.role = role
        let call = try await client.attach(request, options: .bearer(token))
        let probe = CallProbe(call: nil, cancel: { call.cancel() })
        probe.read(call)
        try await probe.started()
        return probe
    }

    private static func open(_ client: CallsClient, token: String, first: Calls.SignalRequest.Action) async throws -> CallProbe {
        let call = try await client.signal(options: .bearer(token))
        let probe = CallProbe(call: call, cancel: { call.cancel() })
        probe.read(call)
        try await probe.send(first)
        try await probe.started()
        return probe
    }

    private func read<Request>(_ call: StreamingCall<Request, Calls.SignalResponse>) {
        reader.withLock {
            $0 = Task {
                do {
                    for try await response in call { self.state.withLock { $0.responses.append(response) } }
                    let status = await call.status()
                    self.state.withLock { $0.end = status }
                } catch {
                    self.state.withLock { $0.end = error as? RPCError ?? RPCError(code: .unknown, message: "\(error)") }
                }
            }
        }
    }

    private func started() async throws {
        do {
            _ = try await firstCall(where: { _ in true })
        } catch {
            cancel()
            throw error
        }
    }

    /// Whether the stream has ended so far.
    var ended: Bool { state.withLock { $0.end != nil } }

    func send(_ action: Calls.SignalRequest.Action) async throws {
        guard let call else { throw RPCError(code: .internal, message: "an Attach stream's messages go by Send") }
        var request = Calls.SignalRequest()
        request.action = action
        try await call.send(request)
    }

    var responses: [Calls.SignalResponse] { state.withLock { $0.responses } }

    /// The states received, in order.
    var states: [Calls.CallState] {
        responses.compactMap { if case .call(let call)? = $0.event { call.state } else { nil } }
    }

    /// The relayed signals received, in order.
    var signals: [Calls.SignalResponse] {
        responses.filter { if case .call? = $0.event { false } else { true } }
    }

    /// The first Call received so far or within `timeout` that satisfies `predicate`; throws
    /// the stream's status when it ends first.
    @discardableResult
    func firstCall(timeout: Duration = .seconds(15), where predicate: @Sendable (Calls.Call) -> Bool) async throws -> Calls.Call {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (found, end) = state.withLock { state -> (Calls.Call?, RPCError?) in
                let calls = state.responses.compactMap { if case .call(let call)? = $0.event { call } else { nil } }
                return (calls.first(where: predicate), state.end)
            }
            if let found { return found }
            if let end { throw end }
            guard ContinuousClock.now < deadline else { throw RPCError(code: .deadlineExceeded, message: "no such call state") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits until `count` signals arrived (up to `timeout`); returns them.
    func signals(count: Int, timeout: Duration = .seconds(15)) async throws -> [Calls.SignalResponse] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let signals = self.signals
            if signals.count >= count { return signals }
            if let end = state.withLock({ $0.end }) { throw end }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw RPCError(code: .deadlineExceeded, message: "only \(signals.count) of \(count) signals")
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
        cancelCall()
        reader.withLock { $0?.cancel() }
    }
}

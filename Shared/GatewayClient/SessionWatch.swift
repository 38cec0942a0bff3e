import ContractTypes
import RPCCore

/// One participant's watch of a group session (`GroupSessionsAPI.watch`) that outlives broken
/// streams: each stream WatchSession opens starts with the session's state now, so a stream
/// opened again after a break tells what was missed, and a state is passed on only when it is
/// newer than the last one delivered. A match that happens while the stream is down therefore
/// arrives once, when the stream is back, and one that arrived just before a break is not
/// repeated (the watch ends with it).
struct SessionWatch {
    let runner: CallRunner
    let sessionID: String
    /// The last state delivered.
    private(set) var last: Sessions.GroupSession?
    /// Broken streams in a row since the last state received.
    private var failures = 0
    /// The token the current stream was opened with, and whether it was just refreshed.
    private var token = ""
    private var refreshed = false

    init(runner: CallRunner, sessionID: String) {
        self.runner = runner
        self.sessionID = sessionID
    }

    /// Delivers states until one is MATCHED or CLOSED (returns) or the task is cancelled
    /// (returns); throws what a retry cannot fix.
    mutating func run(deliver: (Sessions.GroupSession) -> Void) async throws {
        let stub = GroupSessionsClient(client: runner.transport)
        while !Task.isCancelled {
            let failure: RPCError
            do {
                token = try await runner.sessions.accessToken()
                let call = try await stub.watchSession(.init(sessionID: sessionID), options: .bearer(token))
                defer { call.cancel() }
                for try await state in call {
                    failures = 0
                    refreshed = false
                    if Self.isNewer(state, than: last) {
                        last = state
                        deliver(state)
                    }
                    if state.status != .open { return }
                }
                failure = await call.status()
            } catch {
                failure = RPCError.gateway(error)
            }
            if Task.isCancelled { return }
            try await recover(from: failure)
        }
    }

    /// Whether `state` says something `last` did not: a later update, or another status.
    static func isNewer(_ state: Sessions.GroupSession, than last: Sessions.GroupSession?) -> Bool {
        guard let last else { return true }
        return state.status != last.status || (state.updatedAt ?? Timestamp()) > (last.updatedAt ?? Timestamp())
    }

    /// Waits before the next stream after one that ended with `status` (an end with OK while
    /// the session is open is a break too: a draining server ends its streams), refreshing a
    /// refused token once; throws what a retry cannot fix (SESSION_NOT_FOUND, a signed-out session).
    private mutating func recover(from status: RPCError) async throws {
        switch status.code {
        case .unauthenticated:
            guard !refreshed else { throw status }
            refreshed = true
            _ = try await runner.sessions.refreshed(after: token)
        case .ok, .unavailable, .resourceExhausted, .deadlineExceeded, .cancelled, .unknown, .internal, .aborted:
            failures += 1
            let wait = runner.configuration.retryPolicy.backoff(afterAttempt: failures)
            if wait > .zero {
                do { try await Task.sleep(for: wait) } catch { return }
            }
        default:
            throw status
        }
    }
}

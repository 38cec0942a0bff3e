import ContractTypes
import Foundation
import RPCCore

/// Runs one call of any service the way the gateway promises: the session's access token on
/// authenticated methods (refreshed once on UNAUTHENTICATED), a deadline on every attempt, and
/// retries with backoff for the methods whose kind allows them.
struct CallRunner: Sendable {
    let transport: any GatewayConnection
    let sessions: SessionKeeper
    let configuration: GatewayConfiguration

    /// Runs `body` (one RPC through a Contracts stub) under `method`'s rules. `deadline` bounds
    /// each attempt, including the refresh an attempt may need; the retry policy's
    /// `maxTotalTime` bounds all attempts of a retried call together.
    ///
    /// Every attempt belongs to one trace (the app's, or one started here); a failure names it
    /// in `traceID`.
    func run<Response: Sendable>(_ method: GatewayMethod, deadline: Duration?,
                                 _ body: @Sendable (CallOptions) async throws -> Response) async throws(RPCError) -> Response {
        let trace = GatewayTrace.current ?? GatewayTrace.start()
        do {
            return try await GatewayTrace.$current.withValue(trace) {
                try await observed(method, deadline: deadline, body)
            }
        } catch {
            var failure = RPCError.gateway(error)
            failure.traceID = trace.traceID.hex
            throw failure
        }
    }

    private func observed<Response: Sendable>(_ method: GatewayMethod, deadline: Duration?,
                                              _ body: @Sendable (CallOptions) async throws -> Response) async throws(RPCError)
        -> Response {
        guard let observer = configuration.callObserver else { return try await attempts(method, deadline: deadline, body) }
        let start = ContinuousClock.now
        do {
            let response = try await attempts(method, deadline: deadline, body)
            observer(method.name, ContinuousClock.now - start, nil)
            return response
        } catch {
            observer(method.name, ContinuousClock.now - start, error)
            throw error
        }
    }

    /// Every attempt `run` allows, without the observer.
    private func attempts<Response: Sendable>(_ method: GatewayMethod, deadline: Duration?,
                                              _ body: @Sendable (CallOptions) async throws -> Response) async throws(RPCError)
        -> Response {
        let clock = ContinuousClock()
        let start = clock.now
        let attemptTime = deadline ?? configuration.defaultDeadline
        let policy = method.kind == .write ? RetryPolicy.none : configuration.retryPolicy
        var attempt = 1
        while true {
            var timeout = attemptTime
            if policy.maxAttempts > 1 {
                timeout = min(timeout, policy.maxTotalTime - (clock.now - start))
            }
            do {
                return try await once(method, timeout: timeout, body)
            } catch {
                let failure = RPCError.gateway(error)
                guard attempt < policy.maxAttempts, method.mayRetry(after: failure.code) else { throw failure }
                let wait = policy.backoff(afterAttempt: attempt)
                // A retry needs time left for its wait and for a useful attempt after it.
                guard (clock.now - start) + wait + .milliseconds(50) < policy.maxTotalTime else { throw failure }
                do {
                    try await Task.sleep(for: wait)
                } catch {
                    throw RPCError.gateway(error)
                }
                attempt += 1
            }
        }
    }

    /// One attempt: with the access token if the method needs it, and once more with a
    /// refreshed one if the server refuses the first.
    private func once<Response: Sendable>(_ method: GatewayMethod, timeout: Duration,
                                          _ body: @Sendable (CallOptions) async throws -> Response) async throws -> Response {
        guard timeout > .zero else { throw RPCError(code: .deadlineExceeded, message: "deadline exceeded") }
        guard method.authentication == .session else { return try await body(CallOptions(timeout: timeout)) }
        let clock = ContinuousClock()
        let end = clock.now + timeout
        func left() throws -> Duration {
            let left = end - clock.now
            guard left > .zero else { throw RPCError(code: .deadlineExceeded, message: "deadline exceeded") }
            return left
        }
        let token = try await sessions.accessToken()
        do {
            return try await body(.bearer(token, timeout: try left()))
        } catch let error as RPCError where method.mayRefresh(after: error) {
            let refreshed = try await sessions.refreshed(after: token)
            return try await body(.bearer(refreshed.accessToken, timeout: try left()))
        }
    }
}

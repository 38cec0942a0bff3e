import Synchronization

/// `grpc.health.v1.Health`: Check and Watch over a table of service statuses.
package final class HealthService: HealthProvider {
    package typealias ServingStatus = HealthCheckResponse.ServingStatus

    private struct State {
        var statuses: [String: ServingStatus] = [:]
        var watchers: [Int: (service: String, continuation: AsyncStream<ServingStatus>.Continuation)] = [:]
        var nextWatcher = 0
        var shuttingDown = false
    }

    private let state = Mutex(State())

    package init() {}

    /// Sets a service's status ("" is the whole server) and tells its watchers.
    package func setStatus(_ status: ServingStatus, for service: String) {
        let watchers = state.withLock { state -> [AsyncStream<ServingStatus>.Continuation] in
            guard !state.shuttingDown else { return [] }
            state.statuses[service] = status
            return state.watchers.values.filter { $0.service == service }.map(\.continuation)
        }
        for watcher in watchers { watcher.yield(status) }
    }

    /// A status that only says the process runs and answers (SERVING until shutdown): for
    /// liveness and start-up probes, which must not restart a process whose dependency is down.
    /// The server's own status ("") and every service's follow its readiness (`setReadiness`).
    package static let livenessService = "liveness"

    /// Sets the server's status ("") and every service's, except `livenessService`: SERVING when
    /// `ready`, else NOT_SERVING. No effect once shutdown began.
    package func setReadiness(_ ready: Bool) {
        let status: ServingStatus = ready ? .serving : .notServing
        let watchers = state.withLock { state -> [AsyncStream<ServingStatus>.Continuation] in
            guard !state.shuttingDown else { return [] }
            for key in state.statuses.keys where key != Self.livenessService { state.statuses[key] = status }
            return state.watchers.values
                .filter { $0.service != Self.livenessService && state.statuses[$0.service] != nil }.map(\.continuation)
        }
        for watcher in watchers { watcher.yield(status) }
    }

    /// Marks everything NOT_SERVING for good (graceful shutdown).
    package func enterShutdown() {
        let watchers = state.withLock { state -> [AsyncStream<ServingStatus>.Continuation] in
            state.shuttingDown = true
            for key in state.statuses.keys { state.statuses[key] = .notServing }
            return state.watchers.values.map(\.continuation)
        }
        // Tell watchers, then end their streams: an open Watch would otherwise hold the drain
        // for the whole grace period. Clients watching again see the server go away.
        for watcher in watchers {
            watcher.yield(.notServing)
            watcher.finish()
        }
    }

    package func status(of service: String) -> ServingStatus? {
        state.withLock { $0.statuses[service] }
    }

    package func check(_ request: HealthCheckRequest, context: ServerCallContext) async throws -> HealthCheckResponse {
        guard let status = status(of: request.service) else {
            throw RPCError(code: .notFound, message: "unknown service \(request.service)", reason: "SERVICE_UNKNOWN")
        }
        return HealthCheckResponse(status: status)
    }

    package func watch(_ request: HealthCheckRequest, writer: ResponseWriter<HealthCheckResponse>,
                       context: ServerCallContext) async throws {
        let (updates, continuation) = AsyncStream<ServingStatus>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let (id, current) = state.withLock { state -> (Int, ServingStatus) in
            let id = state.nextWatcher
            state.nextWatcher += 1
            state.watchers[id] = (request.service, continuation)
            return (id, state.statuses[request.service] ?? .serviceUnknown)
        }
        defer { _ = state.withLock { $0.watchers.removeValue(forKey: id) } }
        try await writer.write(HealthCheckResponse(status: current))
        var last = current
        for await status in updates where status != last {
            last = status
            try await writer.write(HealthCheckResponse(status: status))
        }
    }
}

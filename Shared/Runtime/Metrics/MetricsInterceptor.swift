import CoreMetrics
package import RPC
import Synchronization

/// Counts calls by method and status code (`rpc_server_requests_total{method,code}`), times
/// them (`rpc_server_duration_seconds{method}`), and tracks calls in progress
/// (`rpc_server_active_calls`).
///
/// Methods are the server's registered paths only (unknown paths are answered before the
/// interceptors run), so label cardinality stays bounded.
package struct MetricsInterceptor: ServerInterceptor {
    private let metrics: RuntimeMetrics
    private let instruments: Instruments

    /// Records into `metrics`.
    package init(metrics: RuntimeMetrics) {
        self.metrics = metrics
        self.instruments = Instruments(metrics: metrics)
    }

    /// Times the rest of the chain and counts its outcome.
    nonisolated(nonsending) package func intercept(_ context: ServerCallContext, next: nonisolated(nonsending) () async throws -> Void) async throws {
        instruments.active.increment()
        let start = ContinuousClock.now
        var failure: (any Error)?
        do {
            try await next()
        } catch {
            failure = error
        }
        let elapsed = ContinuousClock.now - start
        instruments.active.decrement()
        let code = CallOutcome.statusCode(for: failure, context: context)
        instruments.requests(method: context.path, code: code).increment()
        instruments.duration(method: context.path).recordNanoseconds(Self.nanoseconds(elapsed))
        if let failure { throw failure }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }

    /// Handles cached per label set, so a call costs a dictionary lookup, not a registry lookup.
    private final class Instruments: Sendable {
        let metrics: RuntimeMetrics
        let active: CoreMetrics.Meter
        private struct Cache {
            var requests: [RequestsKey: CoreMetrics.Counter] = [:]
            var durations: [String: CoreMetrics.Timer] = [:]
        }
        private struct RequestsKey: Hashable {
            var method: String
            var code: Int
        }
        private let cache = Mutex(Cache())

        init(metrics: RuntimeMetrics) {
            self.metrics = metrics
            self.active = metrics.makeGauge("rpc_server_active_calls")
        }

        func requests(method: String, code: StatusCode) -> CoreMetrics.Counter {
            let key = RequestsKey(method: method, code: code.rawValue)
            return cache.withLock { cache in
                if let counter = cache.requests[key] { return counter }
                let counter = metrics.makeCounter("rpc_server_requests_total",
                                                  dimensions: [("method", method), ("code", code.description)])
                cache.requests[key] = counter
                return counter
            }
        }

        func duration(method: String) -> CoreMetrics.Timer {
            cache.withLock { cache in
                if let timer = cache.durations[method] { return timer }
                let timer = metrics.makeTimer("rpc_server_duration_seconds", dimensions: [("method", method)])
                cache.durations[method] = timer
                return timer
            }
        }
    }
}

import CoreMetrics
import Runtime
import Synchronization

/// The edge's responses counted for Prometheus: `edge_responses_total{route,method,code}` in a
/// `RuntimeMetrics` registry, which rendezvous-edge serves on its admin listener (`/metrics`).
///
/// At most `maxMethods` method labels: a method seen after that is counted as `other`, so a
/// client cannot grow the registry without bound.
final class EdgeMetrics: Sendable {
    /// Everything `/metrics` exposes.
    let metrics: RuntimeMetrics
    let maxMethods: Int

    private struct State {
        var counters: [EdgeResponse: CoreMetrics.Counter] = [:]
        var methods: Set<String> = []
    }
    private let state = Mutex(State())

    init(metrics: RuntimeMetrics = RuntimeMetrics(), maxMethods: Int = 500) {
        self.metrics = metrics
        self.maxMethods = maxMethods
    }

    /// Counts one response.
    func record(_ response: EdgeResponse) {
        let counter = state.withLock { state -> CoreMetrics.Counter in
            var response = response
            if !state.methods.contains(response.method) {
                if state.methods.count < maxMethods { state.methods.insert(response.method) } else { response.method = "other" }
            }
            if let counter = state.counters[response] { return counter }
            let counter = metrics.makeCounter("edge_responses_total", dimensions: [
                ("route", response.route), ("method", response.method), ("code", response.code),
            ])
            state.counters[response] = counter
            return counter
        }
        counter.increment()
    }
}

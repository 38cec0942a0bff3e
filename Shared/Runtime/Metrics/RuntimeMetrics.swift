package import CoreMetrics
package import Prometheus
import Synchronization

/// A service's metrics: one Prometheus registry, a swift-metrics factory writing to it, and
/// gauge hooks sampled at every scrape.
///
/// Tests make their own instance and never touch the global `MetricsSystem`; `ServiceMain`
/// makes one per process and calls `bootstrapSystem()` so libraries using swift-metrics'
/// global API report into the same registry.
package final class RuntimeMetrics: Sendable {
    /// Everything `/metrics` exposes.
    package let registry: PrometheusCollectorRegistry
    /// A swift-metrics factory writing into `registry`.
    package let factory: PrometheusMetricsFactory
    private let hooks = Mutex<[GaugeHook]>([])

    private struct GaugeHook {
        var gauge: Prometheus.Gauge
        var sample: @Sendable () -> Double
    }

    /// Buckets for every swift-metrics `Timer`: RPCs here take from under a millisecond to seconds.
    package static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
    ]

    /// Metrics over `registry` (a fresh one by default, so tests stay isolated).
    package init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.durationBuckets
        self.factory = factory
    }

    private static let bootstrapped = Atomic<Bool>(false)

    /// Makes this registry the process-wide swift-metrics backend. Only the first call in a
    /// process does so (`MetricsSystem.bootstrap` traps when called twice); returns whether it did.
    @discardableResult
    package func bootstrapSystem() -> Bool {
        guard Self.bootstrapped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        MetricsSystem.bootstrap(factory)
        return true
    }

    /// A swift-metrics counter in this registry.
    package func makeCounter(_ name: String, dimensions: [(String, String)] = []) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: name, dimensions: dimensions, factory: factory)
    }

    /// A swift-metrics gauge (a `Meter`: set, increment, decrement) in this registry.
    package func makeGauge(_ name: String, dimensions: [(String, String)] = []) -> CoreMetrics.Meter {
        CoreMetrics.Meter(label: name, dimensions: dimensions, factory: factory)
    }

    /// A swift-metrics timer (a Prometheus histogram in seconds) in this registry.
    package func makeTimer(_ name: String, dimensions: [(String, String)] = []) -> CoreMetrics.Timer {
        CoreMetrics.Timer(label: name, dimensions: dimensions, factory: factory)
    }

    /// A gauge whose value `sample` reads at every scrape, e.g. a pool's connections in use.
    /// `sample` runs on the admin listener's thread and must be quick and non-blocking.
    package func addGaugeHook(_ name: String, labels: [(String, String)] = [], help: String = "",
                              sample: @escaping @Sendable () -> Double) {
        let descriptor = MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
        let gauge = registry.makeGauge(descriptor: descriptor, labels: labels)
        hooks.withLock { $0.append(GaugeHook(gauge: gauge, sample: sample)) }
    }

    /// Every metric in the Prometheus text format (version 0.0.4), gauge hooks sampled first.
    package func exposition() -> [UInt8] {
        let current = hooks.withLock { $0 }
        for hook in current { hook.gauge.set(hook.sample()) }
        return registry.emitToBuffer()
    }
}

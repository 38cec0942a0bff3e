import CoreMetrics
import Runtime

/// `push_deliveries_total{status}`: every push to a token by how it ended, as the delivery log
/// records it. Every status is exported from the start (at 0), so a failure ratio has a
/// denominator before the first failure.
struct PushDeliveryCounts: Sendable {
    private let counters: [PushDelivery.Status: CoreMetrics.Counter]

    init(metrics: RuntimeMetrics) {
        counters = Dictionary(uniqueKeysWithValues: PushDelivery.Status.allCases.map { status in
            (status, metrics.makeCounter("push_deliveries_total", dimensions: [("status", status.rawValue)]))
        })
    }

    func record(_ status: PushDelivery.Status) {
        counters[status]?.increment()
    }
}

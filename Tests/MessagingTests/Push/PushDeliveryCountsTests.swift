@testable import Messaging
import Runtime
import Testing

/// `push_deliveries_total{status}` as `/metrics` shows it: the PushFailures alert's input.
@Suite struct PushDeliveryCountsTests {
    @Test func everyStatus_isExportedFromTheStart_andCountsItsDeliveries() {
        let metrics = RuntimeMetrics()
        let counts = PushDeliveryCounts(metrics: metrics)
        counts.record(.delivered)
        counts.record(.failed)
        counts.record(.failed)
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(text.contains(#"push_deliveries_total{status="delivered"} 1"#))
        #expect(text.contains(#"push_deliveries_total{status="failed"} 2"#))
        for status in ["unregistered", "bad_token", "rejected"] {
            #expect(text.contains("push_deliveries_total{status=\"\(status)\"} 0"), "\(status) missing from \(text)")
        }
    }
}

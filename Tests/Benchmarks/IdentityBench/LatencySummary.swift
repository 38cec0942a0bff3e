/// Throughput and latency percentiles of one run, from every request's latency.
struct LatencySummary {
    let succeeded: Int
    let failed: Int
    let seconds: Double
    let p50: Double
    let p99: Double
    let max: Double

    /// `nanoseconds` unsorted, one per successful request.
    init(nanoseconds: [UInt64], failed: Int, seconds: Double) {
        let sorted = nanoseconds.sorted()
        self.succeeded = sorted.count
        self.failed = failed
        self.seconds = seconds
        self.p50 = Self.milliseconds(Self.percentile(sorted, 0.50))
        self.p99 = Self.milliseconds(Self.percentile(sorted, 0.99))
        self.max = Self.milliseconds(sorted.last ?? 0)
    }

    var requestsPerSecond: Double { seconds > 0 ? Double(succeeded) / seconds : 0 }

    /// Nearest-rank percentile of a sorted sample.
    static func percentile(_ sorted: [UInt64], _ fraction: Double) -> UInt64 {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank - 1))]
    }

    static func milliseconds(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e6 }
}

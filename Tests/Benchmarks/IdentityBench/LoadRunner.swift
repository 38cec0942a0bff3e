import Contracts

/// Runs one workload at a number of concurrent streams for a fixed time, spread over a few
/// HTTP/2 connections, and collects every request's latency.
struct LoadRunner {
    let clients: [IdentityClient]

    /// What one run measured.
    struct Outcome {
        var summary: LatencySummary
        /// The first failure's text, if any.
        var firstError: String?
    }

    private struct StreamResult: Sendable {
        var latencies: [UInt64] = []
        var failures = 0
        var firstError: String?
    }

    /// A stream stops after this many failures: a broken refresh chain cannot recover, and a
    /// fast-failing loop would only measure the error path.
    static let maxFailuresPerStream = 100

    func run(_ workload: Workload, streams: Int, seconds: Int) async throws -> Outcome {
        let clients = self.clients
        // Every stream is ready (signed in, say) before the clock starts.
        let ready = try await withThrowingTaskGroup(of: (any BenchStream).self) { group in
            for index in 0..<streams {
                group.addTask { try await workload.start(clients[index % clients.count], index) }
            }
            return try await group.reduce(into: [any BenchStream]()) { $0.append($1) }
        }

        let clock = ContinuousClock()
        let start = clock.now
        let end = start + .seconds(seconds)
        let results = await withTaskGroup(of: StreamResult.self) { group in
            for initial in ready {
                group.addTask {
                    var stream = initial
                    var result = StreamResult()
                    result.latencies.reserveCapacity(4096)
                    while clock.now < end && result.failures < Self.maxFailuresPerStream {
                        let sent = clock.now
                        do {
                            try await stream.step()
                            result.latencies.append(Self.nanoseconds(clock.now - sent))
                        } catch {
                            result.failures += 1
                            if result.firstError == nil { result.firstError = "\(error)" }
                        }
                    }
                    return result
                }
            }
            return await group.reduce(into: [StreamResult]()) { $0.append($1) }
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Outcome(summary: LatencySummary(nanoseconds: results.flatMap(\.latencies),
                                               failed: results.reduce(0) { $0 + $1.failures }, seconds: seconds),
                       firstError: results.lazy.compactMap(\.firstError).first)
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
